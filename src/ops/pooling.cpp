// Pooling (webnn-spec.md §2 rows 65-67, §3.5, erratum §6.9): averagePool2d, l2Pool2d and
// maxPool2d over a 4-D input in nchw or nhwc layout. The checks are the option list lengths, zero
// window dimensions/strides/dilations, and the output sizes: floor or ceil of the conv output size
// (by outputShapeRounding), or outputSizes when given, which must equal the floor or the ceil
// result in both dimensions. Per erratum 9 the padding is kept with outputSizes and outputSizes
// need not be smaller than strides.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/pooling_params.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// Wide signed integer for the exact size formula (the effective window reaches 2^64).
__extension__ typedef __int128 Wide;

// Input of `allowed` [f32,f16] types and rank 4; output the same.
OpLimits pool_limits(DataTypeMask allowed) {
  return {{{"input", allowed, kFloat, 4, 4}}, {{"output", allowed, kFloat, 4, 4}}};
}

// The floor and the ceil of the §3.5 conv output size (in - ((k-1)*d+1) + pb + pe)/s + 1, which
// the spec computes as a mathematical number (it may be negative), clamped to int64.
struct RoundedSizes {
  int64_t floor, ceil;
};
RoundedSizes pool_output_size(uint32_t in, uint32_t window, uint32_t pad_begin, uint32_t pad_end,
                              uint32_t stride, uint32_t dilation) {
  Wide num = Wide(in) - ((Wide(window) - 1) * dilation + 1) + pad_begin + pad_end;
  Wide q_floor = num >= 0 ? num / stride : -((-num + stride - 1) / stride);
  Wide q_ceil = num >= 0 ? (num + stride - 1) / stride : -(-num / stride);
  auto clamp = [](Wide v) {
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : static_cast<int64_t>(v);
  };
  return {clamp(q_floor + 1), clamp(q_ceil + 1)};
}

// The shared pooling steps: options checks and the output descriptor.
Result<OutputDescs> infer_pool(const InferInput& in, const MLPool2dOptions& o) {
  const Dims& s = in[0].shape;
  bool nchw = o.layout == MLInputOperandLayout::kNchw;
  const PoolWindow pw = pool_window(s, o);
  const uint32_t height = pw.height, width = pw.width;
  const Dims &window = pw.window, &padding = pw.padding, &strides = pw.strides,
             &dilations = pw.dilations;
  CPPNN_RETURN_IF_ERROR(check_length(window.size(), 2, "windowDimensions"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(window, "windowDimensions"));
  CPPNN_RETURN_IF_ERROR(check_length(padding.size(), 4, "padding"));
  CPPNN_RETURN_IF_ERROR(check_length(strides.size(), 2, "strides"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(strides, "strides"));
  if (o.outputSizes) CPPNN_RETURN_IF_ERROR(check_length(o.outputSizes->size(), 2, "outputSizes"));
  CPPNN_RETURN_IF_ERROR(check_length(dilations.size(), 2, "dilations"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(dilations, "dilations"));

  RoundedSizes h =
      pool_output_size(height, window[0], padding[0], padding[1], strides[0], dilations[0]);
  RoundedSizes w =
      pool_output_size(width, window[1], padding[2], padding[3], strides[1], dilations[1]);
  int64_t out_h, out_w;
  if (o.outputSizes) {
    out_h = (*o.outputSizes)[0];
    out_w = (*o.outputSizes)[1];
    bool is_floor = out_h == h.floor && out_w == w.floor;
    bool is_ceil = out_h == h.ceil && out_w == w.ceil;
    if (!is_floor && !is_ceil)
      return type_error("outputSizes ", dims_str(*o.outputSizes), " must be [", h.floor, ",",
                        w.floor, "] (floor) or [", h.ceil, ",", w.ceil, "] (ceil)");
  } else {
    bool ceil = o.outputShapeRounding == MLRoundingType::kCeil;
    out_h = ceil ? h.ceil : h.floor;
    out_w = ceil ? w.ceil : w.floor;
  }
  for (int64_t size : {out_h, out_w}) {
    if (size <= 0)
      return type_error("output sizes [", out_h, ",", out_w,
                        "] are not valid dimensions: the window does not fit the padded input");
    if (!is_valid_dimension(size))
      return type_error("output sizes [", out_h, ",", out_w, "] exceed the largest dimension ",
                        kMaxDimension);
  }
  uint32_t oh = static_cast<uint32_t>(out_h), ow = static_cast<uint32_t>(out_w);
  Dims out = nchw ? Dims{s[0], s[1], oh, ow} : Dims{s[0], oh, ow, s[3]};
  return OutputDescs{{in[0].dataType, std::move(out)}};
}

}  // namespace

// averagePool2d: mean of the in-bounds elements of each window (row 65).
const OpLimits limits_averagePool2d = pool_limits(kFloat);
Result<OutputDescs> infer_averagePool2d(const InferInput& in,
                                        const AttrsOf<OpType::kAveragePool2d>& attrs) {
  return infer_pool(in, attrs.options);
}

// l2Pool2d: sqrt of the sum of squares of each window (row 66).
const OpLimits limits_l2Pool2d = pool_limits(kFloat);
Result<OutputDescs> infer_l2Pool2d(const InferInput& in, const AttrsOf<OpType::kL2Pool2d>& attrs) {
  return infer_pool(in, attrs.options);
}

// maxPool2d: maximum of each window, any data type (row 67).
const OpLimits limits_maxPool2d = pool_limits(kAny);
Result<OutputDescs> infer_maxPool2d(const InferInput& in,
                                    const AttrsOf<OpType::kMaxPool2d>& attrs) {
  return infer_pool(in, attrs.options);
}

}  // namespace cppnn
