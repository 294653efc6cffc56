// resample2d on the cpu backend (webnn-spec.md §2 row 80) in nearest-neighbor mode, for every
// element type it takes (1, 2 and 4 bytes): the source index of every output coordinate resolved at
// build by the reference's rule (resample_nearest_index, half-pixel, ties to the smaller index), so
// the result is the reference's element for element. The output's innermost rows are gathered from
// their source row with the column table (or copied whole when the last axis is not resampled),
// a row whose source row is the previous row's (an upsampling's repeated rows) copied from that
// output row; rows split over the pool. Linear mode stays on the reference kernel (double).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/resample_params.h"

namespace cppnn::cpu {
namespace {

// The source offsets (in elements) of every output coordinate along one dimension of `in`
// elements with element stride `stride`, resampled to `out` elements.
std::vector<size_t> nearest_offsets(size_t in, size_t out, size_t stride) {
  std::vector<size_t> offsets(out);
  for (size_t x = 0; x < out; ++x)
    offsets[x] = (in == out ? x : resample_nearest_index(x, in, out)) * stride;
  return offsets;
}

// dst[j] = src[columns[j]] for j < n, elements of E bytes.
template <size_t E>
void gather_row(const std::byte* src, const size_t* columns, size_t n, std::byte* dst) {
  for (size_t j = 0; j < n; ++j) std::memcpy(dst + j * E, src + columns[j] * E, E);
}

struct NearestResampleKernel {
  OperandId input, output;
  std::array<size_t, 4> out_shape;
  std::array<std::vector<size_t>, 4> offsets;  // per dimension, per output coordinate
  size_t element_bytes;
  bool last_resampled;  // the innermost dimension is resampled (gathered, not copied)
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const std::byte* x = slots[input.value];
    std::byte* y = slots[output.value];
    const size_t rows = out_shape[0] * out_shape[1] * out_shape[2];
    const size_t row_bytes = out_shape[3] * element_bytes;
    pool->parallel_ranges(rows, std::max<size_t>(16384 / (row_bytes + 1), 1),
                          [&](size_t r0, size_t r1) {
                            // (i0, i1, i2) of row r0, then counted up row by row
                            size_t i2 = r0 % out_shape[2], i1 = r0 / out_shape[2] % out_shape[1];
                            size_t i0 = r0 / (out_shape[2] * out_shape[1]);
                            for (size_t r = r0; r < r1; ++r) {
                              row(x, y + r * row_bytes, i0, i1, i2, r == r0);
                              if (++i2 == out_shape[2]) {
                                i2 = 0;
                                if (++i1 == out_shape[1]) i1 = 0, ++i0;
                              }
                            }
                          });
  }

  // The output row at `dst`, of coordinates (i0, i1, i2); `first` of its task (no previous row
  // to copy from).
  void row(const std::byte* x, std::byte* dst, size_t i0, size_t i1, size_t i2, bool first) const {
    const size_t row_bytes = out_shape[3] * element_bytes;
    if (!first && i2 > 0 && offsets[2][i2] == offsets[2][i2 - 1]) {
      std::memcpy(dst, dst - row_bytes, row_bytes);
      return;
    }
    const std::byte* src = x + (offsets[0][i0] + offsets[1][i1] + offsets[2][i2]) * element_bytes;
    if (!last_resampled) {
      std::memcpy(dst, src, row_bytes);
      return;
    }
    const size_t* columns = offsets[3].data();
    switch (element_bytes) {
      case 1:
        return gather_row<1>(src, columns, out_shape[3], dst);
      case 2:
        return gather_row<2>(src, columns, out_shape[3], dst);
      default:
        return gather_row<4>(src, columns, out_shape[3], dst);
    }
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_resample2d(const CompileContext& cc, const Operation& op) {
  const auto& o = attrs_of<OpType::kResample2d>(op.attrs).options;
  if (o.mode == MLInterpolationMode::kLinear || !op.activations.empty()) return std::nullopt;
  const Dims& in = cc.desc(op.inputs[0]).shape;
  const Dims& out = cc.desc(op.outputs[0]).shape;
  const size_t bytes = data_type_bits(cc.desc(op.inputs[0]).dataType) / 8;
  if (in.size() != 4 || out.size() != 4 || !(bytes == 1 || bytes == 2 || bytes == 4))
    return std::nullopt;
  NearestResampleKernel k;
  k.input = op.inputs[0];
  k.output = op.outputs[0];
  k.element_bytes = bytes;
  size_t stride = 1;
  for (size_t d = 4; d-- > 0;) {
    k.out_shape[d] = out[d];
    k.offsets[d] = nearest_offsets(in[d], out[d], stride);
    stride *= in[d];
  }
  k.last_resampled = in[3] != out[3];  // else its offsets are 0, 1, 2, ...
  k.pool = cc.pool;
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
