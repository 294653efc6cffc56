// ONNX Conv and ConvTranspose (ops_nn.def) as WebNN conv2d / convTranspose2d. 1-D convolutions
// become 2-D ones over [N, C, 1, L]; 3-D ones are decomposed (ops_nn_conv3d.cpp). ONNX pads
// [x1_begin, x2_begin, x1_end, x2_end] become WebNN's [beginH, endH, beginW, endW].
#include <optional>
#include <string>
#include <utility>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_conv3d.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// The spatial rank of input 0, NotSupportedError unless it is 1, 2 or 3.
size_t conv_spatial_rank(const NodeContext& c) {
  const size_t rank = c.input_rank(0);
  if (rank < 3) c.invalid("input rank " + std::to_string(rank) + " is below 3");
  if (rank > 5) c.unsupported(std::to_string(rank - 2) + "-D convolution (WebNN has 2-D only)");
  if (c.input_rank(1) != rank) c.invalid("weight rank differs from the input rank");
  return rank - 2;
}

// Input 0 and the weight as 4-D operands (1-D: a unit H axis inserted).
std::pair<MLOperand, MLOperand> conv_operands(NodeContext& c, size_t n) {
  if (n == 2) return {c.input(0), c.input(1)};
  return {reshaped_input(c, 0, insert_one(c.input_shape(0), 2)),
          reshaped_input(c, 1, insert_one(c.input_shape(1), 2))};
}

// The bias operand (input 2) when present.
std::optional<MLOperand> conv_bias(NodeContext& c) {
  if (!c.has_input(2)) return std::nullopt;
  return c.input(2);
}

// The result of a 1-D convolution back to rank 3.
MLOperand conv_result(NodeContext& c, const MLOperand& y, size_t n) {
  if (n == 2) return y;
  const std::vector<uint32_t>& s = y.shape();
  return reshape_to(c, y, {s[0], s[1], s[3]});
}

// ConvTranspose pads for an explicit output size: the total padding split as the ONNX reference
// does (SAME_UPPER puts the odd element at the end, every other mode at the beginning).
void output_shape_pads(SpatialParams& p, const std::vector<uint32_t>& in,
                       const std::vector<uint32_t>& out_pad, const std::vector<int64_t>& out,
                       bool same_upper) {
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t full = (static_cast<int64_t>(in[i]) - 1) * p.strides[i] + out_pad[i] +
                         effective_kernel(p.kernel[i], p.dilations[i]);
    const int64_t total = std::max<int64_t>(0, full - out[i]);
    const auto small = static_cast<uint32_t>(total / 2);
    const auto large = static_cast<uint32_t>(total - total / 2);
    p.pad_begin[i] = same_upper ? small : large;
    p.pad_end[i] = same_upper ? large : small;
  }
}

}  // namespace

void import_Conv(NodeContext& c) {
  const size_t n = conv_spatial_rank(c);
  require_float(c, 0, "conv2d");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t>& ws = c.input_shape(1);
  const std::vector<uint32_t> in(xs.begin() + 2, xs.end());
  const SpatialParams p = spatial_params(c, in, std::vector<uint32_t>(ws.begin() + 2, ws.end()));
  if (n == 3) return import_conv3d(c, p);
  for (size_t i = 0; i < n; ++i)
    if (p.kernel[i] != ws[2 + i]) c.invalid("kernel_shape differs from the weight shape");
  auto [x, w] = conv_operands(c, n);
  MLConv2dOptions o = c.opts<MLConv2dOptions>();
  o.padding = webnn_padding(p);
  o.strides = two_d(p.strides);
  o.dilations = two_d(p.dilations);
  o.groups = static_cast<uint32_t>(c.attr_int("group", 1));
  o.bias = conv_bias(c);
  c.set_output(0, conv_result(c, c.builder().conv2d(x, w, o), n));
}

void import_ConvTranspose(NodeContext& c) {
  const size_t n = conv_spatial_rank(c);
  require_float(c, 0, "convTranspose2d");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t>& ws = c.input_shape(1);
  const std::vector<uint32_t> in(xs.begin() + 2, xs.end());
  SpatialParams p = spatial_params(c, in, std::vector<uint32_t>(ws.begin() + 2, ws.end()));
  for (size_t i = 0; i < n; ++i)
    if (p.kernel[i] != ws[2 + i]) c.invalid("kernel_shape differs from the weight shape");
  const std::vector<uint32_t> out_pad =
      to_dims(c, c.attr_ints("output_padding", std::vector<int64_t>(n, 0)));
  if (out_pad.size() != n) c.invalid("output_padding needs " + std::to_string(n) + " entries");
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> out_shape = c.attr_ints("output_shape");
  if (!out_shape.empty()) {
    if (out_shape.size() == n + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != n) c.invalid("output_shape needs " + std::to_string(n) + " entries");
    output_shape_pads(p, in, out_pad, out_shape, auto_pad == "SAME_UPPER");
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>(in[i]) * p.strides[i]);
    output_shape_pads(p, in, out_pad, out, auto_pad == "SAME_UPPER");
    out_shape = out;
  }
  for (size_t i = 0; i < n; ++i)
    if (out_pad[i] >= p.strides[i])
      c.unsupported("output_padding " + std::to_string(out_pad[i]) + " not below the stride");
  if (n == 3) return import_conv_transpose3d(c, p, out_pad, out_shape);
  auto [x, w] = conv_operands(c, n);
  MLConvTranspose2dOptions o = c.opts<MLConvTranspose2dOptions>();
  o.padding = webnn_padding(p);
  o.strides = two_d(p.strides);
  o.dilations = two_d(p.dilations);
  o.outputPadding = two_d(out_pad, 0);
  if (!out_shape.empty()) o.outputSizes = two_d(to_dims(c, out_shape));
  o.groups = static_cast<uint32_t>(c.attr_int("group", 1));
  o.bias = conv_bias(c);
  c.set_output(0, conv_result(c, c.builder().convTranspose2d(x, w, o), n));
}

}  // namespace cppnn::onnx_import
