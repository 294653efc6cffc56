// Activations (webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59, 60, 68, 79, 85, 87-89, 91): each
// output copies the input descriptor, except prelu (broadcast of input and slope). The checks are
// the data type limits, finite `double` options, clamp's bounds and softmax's axis.
#include "src/ops/activations_params.h"
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// Input "input" with `allowed` [`required`] types and ranks min_rank..N; output the same types.
OpLimits activation_limits(DataTypeMask allowed, DataTypeMask required, uint8_t min_rank = 0) {
  return {{{"input", allowed, required, min_rank}}, {{"output", allowed, required, min_rank}}};
}

// f32, f16 and the signed integer types prelu and relu accept.
constexpr DataTypeMask kSignedNumeric = kFloat | kI64 | kI32 | kI8;

OutputDescs copy_input(const InferInput& in) {
  return OutputDescs{in[0]};
}

}  // namespace

// clamp: min(max(x, minValue), maxValue) (row 5, erratum §6.1).
const OpLimits limits_clamp = activation_limits(kAny, kFloat);
Result<OutputDescs> infer_clamp(const InferInput& in, const AttrsOf<OpType::kClamp>& attrs) {
  // Absent or NaN bounds mean -Inf/+Inf; both are cast to the input type before comparing.
  const auto [lo, hi] = clamp_bounds(attrs.options);
  if (MLNumber::compare_as(in[0].dataType, lo, hi) > 0)
    return type_error("minValue ", lo.as_double(), " is greater than maxValue ", hi.as_double());
  return copy_input(in);
}

// elu: max(0,x) + alpha*(exp(min(0,x)) - 1) (row 46).
const OpLimits limits_elu = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_elu(const InferInput& in, const AttrsOf<OpType::kElu>& attrs) {
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.alpha, "alpha"));
  return copy_input(in);
}

// gelu: 0.5*x*(1 + erf(x/sqrt(2))) (row 51).
const OpLimits limits_gelu = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_gelu(const InferInput& in, const AttrsOf<OpType::kGelu>&) {
  return copy_input(in);
}

// hardSigmoid: max(0, min(1, alpha*x + beta)) (row 55).
const OpLimits limits_hardSigmoid = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_hardSigmoid(const InferInput& in,
                                      const AttrsOf<OpType::kHardSigmoid>& attrs) {
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.alpha, "alpha"));
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.beta, "beta"));
  return copy_input(in);
}

// hardSwish: x*max(0, min(6, x+3))/6 (row 56).
const OpLimits limits_hardSwish = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_hardSwish(const InferInput& in, const AttrsOf<OpType::kHardSwish>&) {
  return copy_input(in);
}

// leakyRelu: max(0,x) + alpha*min(0,x) (row 59).
const OpLimits limits_leakyRelu = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_leakyRelu(const InferInput& in,
                                    const AttrsOf<OpType::kLeakyRelu>& attrs) {
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.alpha, "alpha"));
  return copy_input(in);
}

// linear: alpha*x + beta (row 60).
const OpLimits limits_linear = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_linear(const InferInput& in, const AttrsOf<OpType::kLinear>& attrs) {
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.alpha, "alpha"));
  CPPNN_RETURN_IF_ERROR(check_finite(attrs.options.beta, "beta"));
  return copy_input(in);
}

// prelu: max(0,x) + slope*min(0,x), bidirectionally broadcast (row 68).
const OpLimits limits_prelu{{{"input", kSignedNumeric, kFloat}, {"slope", 0, 0, 0, kRankN, 0}},
                            {{"output", kSignedNumeric, kFloat}}};
Result<OutputDescs> infer_prelu(const InferInput& in, const AttrsOf<OpType::kPrelu>&) {
  auto shape = broadcast_bidirectional(in[0].shape, in[1].shape);
  if (!shape)
    return type_error("slope shape ", dims_str(in[1].shape),
                      " is not broadcastable with input shape ", dims_str(in[0].shape));
  return OutputDescs{{in[0].dataType, std::move(*shape)}};
}

// relu: max(0, x) (row 79).
const OpLimits limits_relu = activation_limits(kSignedNumeric, kFloat);
Result<OutputDescs> infer_relu(const InferInput& in, const AttrsOf<OpType::kRelu>&) {
  return copy_input(in);
}

// sigmoid: 1/(1 + exp(-x)) (row 85).
const OpLimits limits_sigmoid = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_sigmoid(const InferInput& in, const AttrsOf<OpType::kSigmoid>&) {
  return copy_input(in);
}

// softmax along `axis`; rank >= 1 (row 87).
const OpLimits limits_softmax = activation_limits(kFloat, kFloat, 1);
Result<OutputDescs> infer_softmax(const InferInput& in, const AttrsOf<OpType::kSoftmax>& attrs) {
  const size_t rank = in[0].shape.size();
  if (attrs.params.axis >= rank)
    return type_error("axis ", attrs.params.axis, " is out of range for input rank ", rank);
  return copy_input(in);
}

// softplus: ln(1 + exp(x)) (row 88).
const OpLimits limits_softplus = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_softplus(const InferInput& in, const AttrsOf<OpType::kSoftplus>&) {
  return copy_input(in);
}

// softsign: x/(1 + |x|) (row 89).
const OpLimits limits_softsign = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_softsign(const InferInput& in, const AttrsOf<OpType::kSoftsign>&) {
  return copy_input(in);
}

// tanh (row 91).
const OpLimits limits_tanh = activation_limits(kFloat, kFloat);
Result<OutputDescs> infer_tanh(const InferInput& in, const AttrsOf<OpType::kTanh>&) {
  return copy_input(in);
}

}  // namespace cppnn
