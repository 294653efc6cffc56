// Shape and stride helpers of the reference kernels: row-major strides, broadcast strides, and an
// N-dimensional loop that tracks one offset per operand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cppnn::ref {

using Dims = std::vector<uint32_t>;
using Strides = std::vector<int64_t>;

// Number of elements of `shape` (1 for a scalar).
size_t element_count_of(const Dims& shape);
// Row-major strides of `shape`, in elements.
Strides contiguous_strides(const Dims& shape);
// Strides for reading `in` as if broadcast to `out` (right-aligned; 0 on broadcast dimensions).
Strides broadcast_strides(const Dims& in, const Dims& out);

// Calls f(offsets) for every element of `shape` in row-major order, where offsets[k] is the
// element offset of operand k given its strides (each of rank shape.size()).
template <size_t N, class F>
void for_each_offset(const Dims& shape, const std::array<Strides, N>& strides, F&& f) {
  const size_t rank = shape.size();
  std::array<int64_t, N> off{};
  if (element_count_of(shape) == 0) return;
  if (rank == 0) {
    f(off);
    return;
  }
  std::vector<uint32_t> idx(rank, 0);
  while (true) {
    f(off);
    size_t d = rank;
    while (d-- > 0) {
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

}  // namespace cppnn::ref
