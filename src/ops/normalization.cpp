// Normalizations (webnn-spec.md §2 rows 3, 57 and 58): batchNormalization, instanceNormalization
// and layerNormalization. The output copies the input descriptor; the parameter operands (mean,
// variance, scale, bias) must match the normalized dimensions of the input.
#include "src/ops/infer.h"
#include "src/ops/normalization_params.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// A parameter operand of rank `rank` with the input's data type; `optional` when an option.
RoleLimits param_role(std::string_view name, uint8_t rank, bool optional) {
  return {name, 0, 0, rank, rank, 0, optional};
}

// The parameter operand `p` (if present) has shape `expected`.
Status check_param_shape(const MLOperandDescriptor* p, const Dims& expected,
                         std::string_view what) {
  if (p && p->shape != expected)
    return type_error(what, " shape ", dims_str(p->shape), " must be ", dims_str(expected));
  return Ok{};
}

}  // namespace

// batchNormalization: normalize with given mean/variance along `axis` (row 3).
const OpLimits limits_batchNormalization{{{"input", kFloat, kFloat, 1},
                                          param_role("mean", 1, false),
                                          param_role("variance", 1, false),
                                          param_role("scale", 1, true),
                                          param_role("bias", 1, true)},
                                         {{"output", kFloat, kFloat, 1}}};
Result<OutputDescs> infer_batchNormalization(const InferInput& in,
                                             const AttrsOf<OpType::kBatchNormalization>& attrs) {
  const MLOperandDescriptor& input = in[0];
  const auto& options = attrs.options;
  if (options.axis >= input.shape.size())
    return type_error("axis ", options.axis, " is out of range for input rank ",
                      input.shape.size());
  CPPNN_RETURN_IF_ERROR(check_finite(options.epsilon, "epsilon"));
  const Dims expected{input.shape[options.axis]};
  CPPNN_RETURN_IF_ERROR(check_param_shape(&in[1], expected, "mean"));
  CPPNN_RETURN_IF_ERROR(check_param_shape(&in[2], expected, "variance"));
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(3), expected, "scale"));
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(4), expected, "bias"));
  return OutputDescs{input};
}

// instanceNormalization: normalize each channel of each batch over the spatial dims (row 57).
const OpLimits limits_instanceNormalization{
    {{"input", kFloat, kFloat, 4, 4}, param_role("scale", 1, true), param_role("bias", 1, true)},
    {{"output", kFloat, kFloat, 4, 4}}};
Result<OutputDescs> infer_instanceNormalization(
    const InferInput& in, const AttrsOf<OpType::kInstanceNormalization>& attrs) {
  const MLOperandDescriptor& input = in[0];
  const auto& options = attrs.options;
  CPPNN_RETURN_IF_ERROR(check_finite(options.epsilon, "epsilon"));
  const uint32_t channels = input.shape[options.layout == MLInputOperandLayout::kNchw ? 1 : 3];
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(1), {channels}, "scale"));
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(2), {channels}, "bias"));
  return OutputDescs{input};
}

// layerNormalization: normalize over `axes`, by default every dimension but the first (row 58).
const OpLimits limits_layerNormalization{{{"input", kFloat, kFloat},
                                          {"scale", 0, 0, 0, kRankN, 0, true},
                                          {"bias", 0, 0, 0, kRankN, 0, true}},
                                         {{"output", kFloat, kFloat}}};
Result<OutputDescs> infer_layerNormalization(const InferInput& in,
                                             const AttrsOf<OpType::kLayerNormalization>& attrs) {
  const MLOperandDescriptor& input = in[0];
  const auto& options = attrs.options;
  const size_t rank = input.shape.size();
  const std::vector<uint32_t> axes = layer_normalization_axes(options, rank);
  CPPNN_RETURN_IF_ERROR(validate_axes(axes, rank, "axes"));
  CPPNN_RETURN_IF_ERROR(check_finite(options.epsilon, "epsilon"));
  Dims expected;
  for (uint32_t a : axes) expected.push_back(input.shape[a]);
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(1), expected, "scale"));
  CPPNN_RETURN_IF_ERROR(check_param_shape(in.optional(2), expected, "bias"));
  return OutputDescs{input};
}

}  // namespace cppnn
