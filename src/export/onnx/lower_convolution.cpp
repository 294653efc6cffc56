// ONNX lowering of the convolution ops (see lower.h): conv2d -> Conv and convTranspose2d ->
// ConvTranspose (webnn-spec.md §2 rows 7-8). ONNX takes nchw inputs and oihw (Conv) / iohw
// (ConvTranspose) filters only, so other layouts are transposed around the node; the float32
// nchw/oihw (iohw) path is exactly one node with the bias as its third input.
#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_convolution_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/convolution_params.h"

namespace cppnn::onnx_export {
namespace {

// The filter operand's ONNX value in the layout ONNX expects (a Transpose when `perm` is set).
std::string filter_value(Emitter& e, const Operation& op, const std::vector<int64_t>& perm) {
  const std::string& w = in(e, op, 1);
  return perm.empty() ? w : transpose(e, w, perm);
}

// Checks that the op computes in a float type (conv2d/convTranspose2d take float32/float16).
void require_float(const Emitter& e, const Operation& op) {
  const MLOperandDataType t = e.type(op.inputs.at(0));
  if (t != MLOperandDataType::kFloat32 && t != MLOperandDataType::kFloat16)
    throw NotSupportedError("input must be float32 or float16");
}

}  // namespace

// conv2d (§2 row 7): Conv{pads, strides, dilations, group, kernel_shape} on nchw/oihw, bias B.
void lower_conv2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kConv2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const FilterDims f =
      filter_dims(e.desc(op.inputs.at(1)).shape, conv2d_filter_axes(o.filterLayout));
  const std::string w = filter_value(e, op, conv2d_filter_perm<int64_t>(o.filterLayout));
  const std::string& bias = in(e, op, 2);
  std::vector<Attr> conv_attrs = {
      {"dilations", to_i64(win.dilations)},
      {"group", int64_t{o.groups}},
      {"kernel_shape", std::vector<int64_t>{f.height, f.width}},
      {"pads", onnx_pads(win.padding)},
      {"strides", to_i64(win.strides)},
  };
  emit_in_nchw(e, in(e, op, 0), out(e, op), o.inputLayout == MLInputOperandLayout::kNhwc,
               [&](const std::string& x, const std::string& y) {
                 e.node_to("Conv", {x, w, bias}, {y}, conv_attrs);
               });
}

// convTranspose2d (§2 row 8): ConvTranspose on nchw/iohw. The output size is fixed through
// output_padding: outputSizes (when given) minus the size the padding alone gives, so ONNX's
// output = s·(in−1) + output_padding + (k−1)·d + 1 − pb − pe equals WebNN's.
void lower_convTranspose2d(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kConvTranspose2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const FilterDims f =
      filter_dims(e.desc(op.inputs.at(1)).shape, conv_transpose2d_filter_axes(o.filterLayout));
  const InputDims x_dims = input_dims(e.desc(op.inputs.at(0)).shape, o.inputLayout);
  const InputDims y_dims = input_dims(e.desc(op.outputs.at(0)).shape, o.inputLayout);
  // output_padding[i] = out[i] − ((in[i]−1)·s + (k−1)·d + 1 − pb − pe), from the validated
  // output descriptor (covers outputPadding and outputSizes alike).
  const int64_t in_sizes[2] = {x_dims.height, x_dims.width};
  const int64_t out_sizes[2] = {y_dims.height, y_dims.width};
  const int64_t kernel[2] = {f.height, f.width};
  std::vector<int64_t> output_padding(2);
  bool any_output_padding = false;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t calc = (in_sizes[i] - 1) * win.strides[i] + (kernel[i] - 1) * win.dilations[i] +
                         1 - win.padding[2 * i] - win.padding[2 * i + 1];
    output_padding[i] = out_sizes[i] - calc;
    if (output_padding[i] < 0)
      throw OperationError("convTranspose2d output size " + std::to_string(out_sizes[i]) +
                           " is below the computed size " + std::to_string(calc));
    any_output_padding = any_output_padding || output_padding[i] != 0;
  }
  const std::string w = filter_value(e, op, conv_transpose2d_filter_perm<int64_t>(o.filterLayout));
  const std::string& bias = in(e, op, 2);
  std::vector<Attr> conv_attrs = {
      {"dilations", to_i64(win.dilations)},
      {"group", int64_t{o.groups}},
      {"kernel_shape", std::vector<int64_t>{kernel[0], kernel[1]}},
  };
  if (any_output_padding) conv_attrs.push_back({"output_padding", output_padding});
  conv_attrs.push_back({"pads", onnx_pads(win.padding)});
  conv_attrs.push_back({"strides", to_i64(win.strides)});
  emit_in_nchw(e, in(e, op, 0), out(e, op), o.inputLayout == MLInputOperandLayout::kNhwc,
               [&](const std::string& x, const std::string& y) {
                 e.node_to("ConvTranspose", {x, w, bias}, {y}, conv_attrs);
               });
}

}  // namespace cppnn::onnx_export
