// The Indices output of ONNX MaxPool (see ops_nn_pool_indices.h).
#include "src/import/onnx/ops_nn_pool_indices.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// Most window elements the decomposition records (one slice each).
constexpr uint64_t kMaxWindow = 256;

// Advances the row-major multi-index `at` within `dims`.
void next_index(std::vector<uint32_t>& at, const std::vector<uint32_t>& dims) {
  for (size_t i = at.size(); i-- > 0;) {
    if (++at[i] < dims[i]) return;
    at[i] = 0;
  }
}

// Per (window element, output position), both row-major: the row-major spatial position of the
// input element it reads, or `size` when that lies in the padding.
std::vector<int64_t> window_keys(const SpatialParams& p, const std::vector<uint32_t>& in,
                                 const std::vector<uint32_t>& out, uint64_t window,
                                 uint64_t outputs, uint64_t size) {
  const size_t n = in.size();
  std::vector<int64_t> keys;
  keys.reserve(window * outputs);
  std::vector<uint32_t> k(n, 0), o(n, 0);
  for (uint64_t kk = 0; kk < window; ++kk, next_index(k, p.kernel)) {
    for (uint64_t oo = 0; oo < outputs; ++oo, next_index(o, out)) {
      int64_t flat = 0;
      bool valid = true;
      for (size_t i = 0; i < n; ++i) {
        const int64_t at =
            int64_t{o[i]} * p.strides[i] - p.pad_begin[i] + int64_t{k[i]} * p.dilations[i];
        valid = valid && at >= 0 && at < int64_t{in[i]};
        flat = flat * in[i] + at;
      }
      keys.push_back(valid ? flat : static_cast<int64_t>(size));
    }
  }
  return keys;
}

// Row-major spatial position -> column-major one, with `size` (no match) kept as it is.
std::vector<int64_t> column_major_map(const std::vector<uint32_t>& in, uint64_t size) {
  std::vector<int64_t> map;
  map.reserve(size + 1);
  std::vector<uint32_t> at(in.size(), 0);
  for (uint64_t r = 0; r < size; ++r, next_index(at, in)) {
    int64_t col = 0;
    for (size_t i = in.size(); i-- > 0;) col = col * in[i] + at[i];
    map.push_back(col);
  }
  map.push_back(static_cast<int64_t>(size));
  return map;
}

// The windows of input 0 side by side: [N·C, K, O...], element k of each window a strided slice
// of the padded input.
MLOperand window_stack(NodeContext& c, const SpatialParams& p, const std::vector<uint32_t>& out,
                       uint32_t planes) {
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const size_t n = xs.size() - 2;
  std::vector<uint32_t> shape = {planes};
  shape.insert(shape.end(), xs.begin() + 2, xs.end());
  MLOperand x = reshaped_input(c, 0, shape);
  // Pad so that every window lies inside (ceil_mode windows may reach past pad_end).
  std::vector<uint32_t> begin = {0}, end = {0}, extent = {planes};
  for (size_t i = 0; i < n; ++i) {
    const int64_t last = (int64_t{out[i]} - 1) * p.strides[i] +
                         effective_kernel(p.kernel[i], p.dilations[i]);  // padded extent needed
    const int64_t have = int64_t{xs[2 + i]} + p.pad_begin[i];
    begin.push_back(p.pad_begin[i]);
    end.push_back(static_cast<uint32_t>(std::max<int64_t>(0, last - have)));
    extent.push_back(out[i]);
  }
  bool padded = false;
  for (size_t i = 0; i <= n; ++i) padded = padded || begin[i] || end[i];
  if (padded) x = c.builder().pad(x, begin, end, c.opts<MLPadOptions>());
  std::vector<MLOperand> parts;
  std::vector<uint32_t> k(n, 0), part_shape = {planes, 1};
  part_shape.insert(part_shape.end(), out.begin(), out.end());
  do {
    std::vector<uint32_t> starts = {0}, sizes = {planes}, strides = {1};
    for (size_t i = 0; i < n; ++i) {
      starts.push_back(k[i] * p.dilations[i]);
      sizes.push_back((out[i] - 1) * p.strides[i] + 1);  // ceil(size / stride) = out
      strides.push_back(p.strides[i]);
    }
    MLSliceOptions so = c.opts<MLSliceOptions>();
    so.strides = strides;
    parts.push_back(reshape_to(c, c.builder().slice(x, starts, sizes, so), part_shape));
    next_index(k, p.kernel);
  } while (std::any_of(k.begin(), k.end(), [](uint32_t v) { return v != 0; }));
  if (parts.size() == 1) return parts[0];
  return c.builder().concat(parts, 1, c.opts<MLOperatorOptions>());
}

}  // namespace

MLOperand maxpool_indices(NodeContext& c, const SpatialParams& p, const MLOperand& y) {
  const int64_t order = c.attr_int("storage_order", 0);
  if (order != 0 && order != 1) c.invalid("storage_order must be 0 or 1");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t> in(xs.begin() + 2, xs.end());
  const std::vector<uint32_t> ys = y.shape();
  const std::vector<uint32_t> out(ys.begin() + 2, ys.end());
  const uint64_t planes = dims_product(c, xs, 0, 2), size = dims_product(c, xs, 2, xs.size());
  uint64_t window = 1, outputs = 1;
  for (size_t i = 0; i < in.size(); ++i) window *= p.kernel[i], outputs *= out[i];
  if (window > kMaxWindow)
    c.unsupported("Indices of a window over " + std::to_string(kMaxWindow) +
                  " elements (one slice per window element)");
  bounded_product(c, {planes, window, outputs}, "the stacked windows of MaxPool's Indices");
  const auto n_planes = static_cast<uint32_t>(planes);
  const MLOperand windows = window_stack(c, p, out, n_planes);
  // Where an element equals the maximum: its row-major position; the smallest is the first.
  const MLOperandDataType it = size < static_cast<uint64_t>(std::numeric_limits<int32_t>::max())
                                   ? MLOperandDataType::kInt32
                                   : MLOperandDataType::kInt64;
  std::vector<uint32_t> table_shape = {static_cast<uint32_t>(window)};
  table_shape.insert(table_shape.end(), out.begin(), out.end());
  const HostTensor keys =
      HostTensor::of_int64(window_keys(p, in, out, window, outputs, size), table_shape, it);
  std::vector<uint32_t> max_shape = {n_planes, 1};
  max_shape.insert(max_shape.end(), out.begin(), out.end());
  const MLOperand hit =
      c.builder().equal(windows, reshape_to(c, y, max_shape), c.opts<MLOperatorOptions>());
  const MLOperand picked =
      c.builder().where(hit, c.constant_operand(keys), c.scalar(it, static_cast<double>(size)),
                        c.opts<MLOperatorOptions>());
  MLReduceOptions ro = c.opts<MLReduceOptions>();
  ro.axes = std::vector<uint32_t>{1};
  MLOperand first = c.builder().reduceMin(picked, ro);  // [N·C, O...]
  if (order == 1) {
    bounded_product(c, {size + 1}, "the column-major position table of MaxPool's Indices");
    const std::vector<int64_t> map = column_major_map(in, size);
    const MLOperand table =
        c.constant_operand(HostTensor::of_int64(map, {static_cast<uint32_t>(map.size())}, it));
    first = c.builder().gather(table, first, c.opts<MLGatherOptions>());
  }
  // Plus the plane offset (n·C + c)·ΠS, as int64.
  std::vector<int64_t> offsets(planes);
  for (uint64_t i = 0; i < planes; ++i) offsets[i] = static_cast<int64_t>(i * size);
  std::vector<uint32_t> offset_shape(ys.size() - 1, 1);
  offset_shape[0] = n_planes;
  const MLOperand offset =
      c.constant_operand(HostTensor::of_int64(offsets, offset_shape, MLOperandDataType::kInt64));
  const MLOperand idx = c.builder().add(cast_to(c, first, MLOperandDataType::kInt64), offset,
                                        c.opts<MLOperatorOptions>());
  return reshape_to(c, idx, ys);
}

}  // namespace cppnn::onnx_import
