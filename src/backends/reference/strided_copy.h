// Strided copies: the data movement ops (webnn-spec.md §2 rows 6, 47, 81, 82, 86, 90, 92, 93:
// concat, expand, reshape, reverse, slice, split, tile, transpose) as copies of elements from one
// operand to another along strides fixed at build(). Shared by the reference kernels (one thread)
// and the cpu backend (the outer iterations split over its pool). Elements are copied as bytes of
// the element size, so the copies are bit-exact and type-agnostic.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cppnn/graph_model.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {

// A strided copy: for every index i of a shape, out[out_base + i·out_strides] =
// in[in_base + i·in_strides] (element offsets; strides may be 0 to broadcast or negative to
// reverse). Built once: dimensions of size 1 are dropped and adjacent dimensions that are
// contiguous in both operands are merged, so the innermost run is as long as possible. The copy
// is a loop of outer_count() runs of the innermost dimension; run(in, out, begin, end) copies the
// runs [begin, end), so that disjoint ranges can be copied by different threads.
class StridedCopy {
 public:
  StridedCopy(size_t esize, const Dims& shape, const Strides& in_strides,
              const Strides& out_strides, int64_t in_base, int64_t out_base);

  // Runs of the innermost dimension (the product of the outer dimensions).
  size_t outer_count() const { return outer_count_; }
  // Bytes written per run.
  size_t run_bytes() const { return esize_ * inner_count_; }
  // Copies runs [begin, end) (all of them by default).
  void run(const std::byte* in, std::byte* out, size_t begin = 0, size_t end = SIZE_MAX) const;

 private:
  size_t esize_;
  int64_t in_base_, out_base_;            // bytes
  Dims outer_shape_;                      // outermost first
  std::array<Strides, 2> outer_strides_;  // bytes
  size_t outer_count_ = 1;
  uint32_t inner_count_ = 1;
  int64_t inner_in_ = 0, inner_out_ = 0;  // bytes
};

// Bytes of one element of `type`; OperationError for 4-bit types (no data movement op takes them).
size_t element_size(MLOperandDataType type);

// Writes `count` copies of the `esize`-byte element at `value` to `out`.
void fill_elements(std::byte* out, const std::byte* value, size_t esize, size_t count);

// One strided copy of an op: from operand `from` into operand `to`.
struct CopyPart {
  OperandId from, to;
  StridedCopy copy;
};

// pad in "constant" mode (row 64): the output filled with the value cast to the input type
// (§3.6) when it is larger than the input, then the input copied into its interior.
struct ConstantPad {
  OperandId from, to;
  std::array<std::byte, 8> value{};
  size_t esize = 0, out_count = 0;
  bool padded = false;
  StridedCopy interior;
};

// The constant pad of `op`, or nullopt when it is no pad in constant mode.
std::optional<ConstantPad> constant_pad(const Graph& graph, const Operation& op);

// The strided copies that together compute `op` when it is a concat, expand, reshape, reverse,
// slice, split, tile or transpose (of whole-byte elements); nullopt for every other op.
std::optional<std::vector<CopyPart>> copy_parts(const Graph& graph, const Operation& op);

}  // namespace cppnn::ref
