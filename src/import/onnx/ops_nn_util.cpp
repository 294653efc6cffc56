// Helpers shared by the nn family's ONNX operator handlers (see ops_nn_util.h).
#include "src/import/onnx/ops_nn_util.h"

#include <algorithm>
#include <string>

#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {

int64_t effective_kernel(uint32_t k, uint32_t d) {
  return (static_cast<int64_t>(k) - 1) * static_cast<int64_t>(d) + 1;
}

SpatialParams spatial_params(const NodeContext& c, const std::vector<uint32_t>& in,
                             const std::vector<uint32_t>& kernel) {
  const size_t n = in.size();
  SpatialParams p;
  p.kernel = c.has_attr("kernel_shape") ? to_dims(c, c.attr_ints("kernel_shape")) : kernel;
  p.strides = to_dims(c, c.attr_ints("strides", std::vector<int64_t>(n, 1)));
  p.dilations = to_dims(c, c.attr_ints("dilations", std::vector<int64_t>(n, 1)));
  if (p.kernel.size() != n || p.strides.size() != n || p.dilations.size() != n)
    c.invalid("kernel_shape, strides and dilations need " + std::to_string(n) + " entries");
  for (size_t i = 0; i < n; ++i)
    if (p.kernel[i] == 0 || p.strides[i] == 0 || p.dilations[i] == 0)
      c.invalid("kernel_shape, strides and dilations must be positive");
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  p.pad_begin.assign(n, 0);
  p.pad_end.assign(n, 0);
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = p.strides[i];
      const int64_t out = (static_cast<int64_t>(in[i]) + s - 1) / s;
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * s + effective_kernel(p.kernel[i], p.dilations[i]) - in[i]);
      const auto small = static_cast<uint32_t>(total / 2);
      const auto large = static_cast<uint32_t>(total - total / 2);
      p.pad_begin[i] = auto_pad == "SAME_UPPER" ? small : large;
      p.pad_end[i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n) c.invalid("pads needs " + std::to_string(2 * n) + " entries");
    for (size_t i = 0; i < n; ++i) {
      if (pads[i] < 0 || pads[i + n] < 0) c.unsupported("negative pads");
      p.pad_begin[i] = to_dims(c, {pads[i]})[0];
      p.pad_end[i] = to_dims(c, {pads[i + n]})[0];
    }
  } else if (auto_pad != "VALID") {
    c.invalid("unknown auto_pad '" + auto_pad + "'");
  }
  return p;
}

std::vector<uint32_t> webnn_padding(const SpatialParams& p) {
  if (p.pad_begin.size() == 1) return {0, 0, p.pad_begin[0], p.pad_end[0]};
  return {p.pad_begin[0], p.pad_end[0], p.pad_begin[1], p.pad_end[1]};
}

std::vector<uint32_t> two_d(const std::vector<uint32_t>& v, uint32_t fill) {
  if (v.size() == 1) return {fill, v[0]};
  return v;
}

MLOperand reshape_to(NodeContext& c, const MLOperand& x, const std::vector<uint32_t>& shape) {
  if (x.shape() == shape) return x;
  return c.builder().reshape(x, shape, c.opts<MLOperatorOptions>());
}

MLOperand reshaped_input(NodeContext& c, size_t i, const std::vector<uint32_t>& shape) {
  if (c.is_constant(i)) return c.constant_operand(host_reshape(c.constant(i), shape));
  return reshape_to(c, c.input(i), shape);
}

void require_float(const NodeContext& c, size_t i, const char* op) {
  if (!is_float_type(c.input_type(i)))
    c.unsupported(std::string("WebNN ") + op + " takes float32 or float16 only");
}

std::vector<uint32_t> insert_one(std::vector<uint32_t> shape, size_t axis) {
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 1u);
  return shape;
}

uint64_t dims_product(const NodeContext& c, const std::vector<uint32_t>& shape, size_t from,
                      size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= shape[i];
  if (p > UINT32_MAX) c.unsupported("a dimension over 2^32-1");
  return p;
}

MLOperand Float32Arith::iota(uint32_t n, double offset, std::vector<uint32_t> shape) {
  std::vector<double> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i + offset;
  return c.constant_operand(HostTensor::of_double(v, std::move(shape)));
}

}  // namespace cppnn::onnx_import
