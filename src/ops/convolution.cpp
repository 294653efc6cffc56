// Convolution (webnn-spec.md §2 rows 7-8, §3.5): conv2d and convTranspose2d over a 4-D input and
// a 4-D filter in any of their layouts, with an optional [outputChannels] bias. The checks are the
// option list lengths, zero strides/dilations/groups, channel agreement between input, filter and
// bias, and the output sizes, computed in wide arithmetic.
#include "src/ops/convolution_params.h"
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// input f32,f16 rank 4; filter same type rank 4; optional bias same type rank 1; output rank 4.
const OpLimits kConvLimits{
    {{"input", kFloat, kFloat, 4, 4}, {"filter", 0, 0, 4, 4, 0}, {"bias", 0, 0, 1, 1, 0, true}},
    {{"output", kFloat, kFloat, 4, 4}}};

// The 4-D output shape for `layout`.
Dims output_shape(MLInputOperandLayout layout, uint32_t batches, uint32_t channels, uint32_t height,
                  uint32_t width) {
  if (layout == MLInputOperandLayout::kNchw) return {batches, channels, height, width};
  return {batches, height, width, channels};
}

// Applies the defaults and checks the lengths (4, 2, 2) and that no stride or dilation is 0.
Result<WindowOptions> window_options(const OptionalList<uint32_t>& padding,
                                     const OptionalList<uint32_t>& strides,
                                     const OptionalList<uint32_t>& dilations) {
  WindowOptions w = window_defaults(padding, strides, dilations);
  CPPNN_RETURN_IF_ERROR(check_length(w.padding.size(), 4, "padding"));
  CPPNN_RETURN_IF_ERROR(check_length(w.strides.size(), 2, "strides"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(w.strides, "strides"));
  CPPNN_RETURN_IF_ERROR(check_length(w.dilations.size(), 2, "dilations"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(w.dilations, "dilations"));
  return w;
}

// The optional bias must have shape [output_channels].
Status check_bias(const MLOperandDescriptor* bias, uint32_t output_channels) {
  if (bias && bias->shape != Dims{output_channels})
    return type_error("bias shape ", dims_str(bias->shape), " must be [", output_channels,
                      "] (the output channels)");
  return Ok{};
}

// A convTranspose2d output size: outputSizes[i] when given (calc <= size < calc + stride, with
// calc computed without outputPadding), otherwise calc + outputPadding[i]; a valid dimension.
Result<uint32_t> conv_transpose_size(uint32_t in, uint32_t k, uint32_t pad_begin, uint32_t pad_end,
                                     uint32_t stride, uint32_t dilation, uint32_t output_padding,
                                     const uint32_t* output_size, std::string_view what) {
  int64_t size;
  if (output_size) {
    int64_t calc = conv_transpose_output_size(in, k, pad_begin, pad_end, stride, dilation, 0);
    size = *output_size;
    if (size < calc || size - calc >= stride)
      return type_error("outputSizes ", what, " ", size, " must be at least ", calc,
                        " and less than ", calc, " + stride ", stride);
  } else {
    size = conv_transpose_output_size(in, k, pad_begin, pad_end, stride, dilation, output_padding);
  }
  if (!is_valid_dimension(size))
    return type_error("output ", what, " ", size, " is not a valid dimension");
  return static_cast<uint32_t>(size);
}

}  // namespace

// conv2d: 2-D convolution of input by filter, with groups and an optional bias (row 7).
const OpLimits limits_conv2d = kConvLimits;
Result<OutputDescs> infer_conv2d(const InferInput& in, const AttrsOf<OpType::kConv2d>& attrs) {
  const auto& o = attrs.options;
  auto w = window_options(o.padding, o.strides, o.dilations);
  if (!w) return w.error();
  if (o.groups == 0) return type_error("groups must be greater than 0");
  InputDims x = input_dims(in[0].shape, o.inputLayout);
  FilterDims f = filter_dims(in[1].shape, conv2d_filter_axes(o.filterLayout));
  if (x.channels % o.groups != 0)
    return type_error("input channels ", x.channels, " are not divisible by groups ", o.groups);
  if (x.channels / o.groups != f.in_channels)
    return type_error("filter input channels ", f.in_channels,
                      " must equal input channels / groups (", x.channels / o.groups, ")");
  if (f.out_channels % o.groups != 0)
    return type_error("filter output channels ", f.out_channels, " are not divisible by groups ",
                      o.groups);
  CPPNN_RETURN_IF_ERROR(check_bias(in.optional(2), f.out_channels));
  const Dims& p = w->padding;
  auto height = conv_output_size(x.height, f.height, p[0], p[1], w->strides[0], w->dilations[0],
                                 false, "output height");
  if (!height) return height.error();
  auto width = conv_output_size(x.width, f.width, p[2], p[3], w->strides[1], w->dilations[1], false,
                                "output width");
  if (!width) return width.error();
  return OutputDescs{
      {in[0].dataType, output_shape(o.inputLayout, x.batches, f.out_channels, *height, *width)}};
}

// convTranspose2d: 2-D transposed convolution, with groups, outputPadding or outputSizes and an
// optional bias (row 8).
const OpLimits limits_convTranspose2d = kConvLimits;
Result<OutputDescs> infer_convTranspose2d(const InferInput& in,
                                          const AttrsOf<OpType::kConvTranspose2d>& attrs) {
  const auto& o = attrs.options;
  auto w = window_options(o.padding, o.strides, o.dilations);
  if (!w) return w.error();
  Dims output_padding = o.outputPadding.value_or({0, 0});
  CPPNN_RETURN_IF_ERROR(check_length(output_padding.size(), 2, "outputPadding"));
  if (o.outputSizes) {
    CPPNN_RETURN_IF_ERROR(check_length(o.outputSizes->size(), 2, "outputSizes"));
  } else {
    for (size_t i = 0; i < 2; ++i)
      if (output_padding[i] >= w->strides[i])
        return type_error("outputPadding ", dims_str(output_padding),
                          " must be smaller than strides ", dims_str(w->strides));
  }
  if (o.groups == 0) return type_error("groups must be greater than 0");
  InputDims x = input_dims(in[0].shape, o.inputLayout);
  FilterDims f = filter_dims(in[1].shape, conv_transpose2d_filter_axes(o.filterLayout));
  if (x.channels != f.in_channels)
    return type_error("filter input channels ", f.in_channels, " must equal input channels ",
                      x.channels);
  uint64_t output_channels = uint64_t{f.out_channels} * o.groups;
  if (output_channels > kMaxDimension)
    return type_error("output channels ", output_channels, " (filter output channels ",
                      f.out_channels, " * groups ", o.groups, ") is not a valid dimension");
  uint32_t cout = static_cast<uint32_t>(output_channels);
  CPPNN_RETURN_IF_ERROR(check_bias(in.optional(2), cout));
  const Dims& p = w->padding;
  const uint32_t* sizes = o.outputSizes ? o.outputSizes->data() : nullptr;
  auto height = conv_transpose_size(x.height, f.height, p[0], p[1], w->strides[0], w->dilations[0],
                                    output_padding[0], sizes, "height");
  if (!height) return height.error();
  auto width = conv_transpose_size(x.width, f.width, p[2], p[3], w->strides[1], w->dilations[1],
                                   output_padding[1], sizes ? sizes + 1 : nullptr, "width");
  if (!width) return width.error();
  return OutputDescs{
      {in[0].dataType, output_shape(o.inputLayout, x.batches, cout, *height, *width)}};
}

}  // namespace cppnn
