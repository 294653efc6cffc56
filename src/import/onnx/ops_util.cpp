// Helpers shared by the ONNX operator handlers.
#include "src/import/onnx/ops_util.h"

#include <algorithm>
#include <set>

namespace cppnn::onnx_import {

bool is_float_type(MLOperandDataType t) {
  return t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16;
}

uint32_t normalize_axis(const NodeContext& c, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    c.invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

std::vector<uint32_t> normalize_axes(const NodeContext& c, const std::vector<int64_t>& axes,
                                     size_t rank) {
  std::vector<uint32_t> out;
  std::set<uint32_t> seen;
  for (int64_t a : axes) {
    const uint32_t n = normalize_axis(c, a, rank);
    if (!seen.insert(n).second) c.invalid("axis " + std::to_string(a) + " is repeated");
    out.push_back(n);
  }
  return out;
}

std::vector<uint32_t> to_dims(const NodeContext& c, const std::vector<int64_t>& values) {
  std::vector<uint32_t> out;
  for (int64_t v : values) {
    if (v < 0 || v > UINT32_MAX) c.invalid("dimension " + std::to_string(v) + " is out of range");
    out.push_back(static_cast<uint32_t>(v));
  }
  return out;
}

std::vector<uint32_t> broadcast_shapes(const NodeContext& c, const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<uint32_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      c.invalid("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

HostTensor host_reshape(const HostTensor& t, std::vector<uint32_t> shape) {
  HostTensor out = t;
  out.desc.shape = std::move(shape);
  return out;
}

MLOperand cast_to(NodeContext& c, const MLOperand& x, MLOperandDataType type) {
  if (x.dataType() == type) return x;
  return c.builder().cast(x, type, c.opts<MLOperatorOptions>());
}

std::optional<std::vector<int64_t>> axes_attr_or_input(const NodeContext& c, const char* name,
                                                       int64_t input_opset, size_t index) {
  if (c.opset() < input_opset) {
    if (!c.has_attr(name)) return std::nullopt;
    return c.attr_ints(name);
  }
  if (!c.has_input(index)) return std::nullopt;
  return c.ints(index, name);
}

MLOperand wrapped_indices(NodeContext& c, size_t i, const std::vector<int64_t>& dims,
                          std::optional<MLOperandDataType> type) {
  using DT = MLOperandDataType;
  const DT in = c.input_type(i);
  if (in != DT::kInt32 && in != DT::kInt64) c.invalid("indices must be int32 or int64");
  const DT out = type.value_or(in);
  if (c.is_constant(i)) {
    std::vector<int64_t> v = c.ints(i, "indices");
    for (size_t e = 0; e < v.size(); ++e) {
      const int64_t d = dims[e % dims.size()];
      if (v[e] < -d || v[e] >= d) c.invalid("index " + std::to_string(v[e]) + " is out of range");
      if (v[e] < 0) v[e] += d;
    }
    return c.constant_operand(HostTensor::of_int64(v, c.input_shape(i), out));
  }
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  const MLOperand idx = cast_to(c, c.input(i), out);
  const MLOperand d =
      dims.size() == 1 ? c.scalar(out, static_cast<double>(dims[0])) : c.constant_ints(dims, out);
  return b.where(b.lesser(idx, c.scalar(out, 0), o), b.add(idx, d, o), idx, o);
}

}  // namespace cppnn::onnx_import
