// TFLite lowerings of the activations (lower.h; webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59, 60,
// 68, 79, 85, 87-89, 91). Each is TFLite's builtin of the same meaning where one exists (the
// forms XNNPACK delegates: LOGISTIC, TANH, RELU/RELU6/RELU_N1_TO_1, ELU, GELU, HARD_SWISH,
// LEAKY_RELU, PRELU, SOFTMAX), else a few elementwise builtins. Floats compute in float32
// (float16 too, emitter.h); double options are first cast to the input type (§3.6), as the
// reference kernels do.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "cppnn/number.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_activations_util.h"
#include "src/export/tflite/lower_compute_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/ops/activations_params.h"

namespace cppnn::tflite_export {

using namespace act;

namespace {

using DT = MLOperandDataType;
using Op = tfl::BuiltinOperator;

// The double option `v` as the input type `t` holds it (§3.6), as a float32 scalar constant.
TensorIndex option_scalar(Emitter& e, DT t, double v) {
  return f32_scalar(e, MLNumber(v).cast_to_double(t));
}

// The op's input 0 and its WebNN type.
TensorIndex input(Emitter& e, const Operation& op) {
  return e.value(op.inputs[0]);
}
DT input_type(Emitter& e, const Operation& op) {
  return data_type_of(e.graph(), op.inputs[0]);
}

// Adds the option-less unary builtin `code` writing the op's output. The input is read before
// the output is created, here and in every activation lowering: convert.cpp lowers an activation
// fused into the op before it in place (input and output the same operand, rebound).
void unary_to_output(Emitter& e, const Operation& op, Op code) {
  const TensorIndex x = input(e, op);
  e.op(code, {x}, {e.output(op.outputs[0])});
}

}  // namespace

bool lowers_activations(const Graph& graph, const Operation& op) {
  switch (op.type) {
    case OpType::kClamp:
    case OpType::kRelu:
    case OpType::kPrelu:
      // Every type these accept (clamp: all; relu/prelu: floats and signed integers).
      return data_type_of(graph, op.inputs[0]) != DT::kInt4 &&
             data_type_of(graph, op.inputs[0]) != DT::kUint4;
    default:
      return is_float(data_type_of(graph, op.inputs[0]));
  }
}

// clamp (row 5, erratum §6.1): absent and NaN bounds are ±Inf, both cast to the input type.
// Floats: RELU, RELU6 or RELU_N1_TO_1 for the bounds [0, +Inf), [0, 6] and [-1, 1], else
// MAXIMUM then MINIMUM with the bounds present (the bound first: TFLite's builtin kernels return
// the second operand when the first is NaN, so NaN is kept as the reference keeps it; XNNPACK
// keeps it either way); integers: MAXIMUM/MINIMUM in the type (uint32 and
// uint64 through their signed view, lower_activations_util.h); no bound at all is the input.
void lower_clamp(Emitter& e, const Operation& op, const AttrsOf<OpType::kClamp>& attrs) {
  const DT t = input_type(e, op);
  const ClampBounds bounds = clamp_bounds(attrs.options);
  const TensorIndex x = input(e, op);
  if (is_float(t)) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double lo = bounds.min.cast_to_double(t), hi = bounds.max.cast_to_double(t);
    if (lo == 0 && hi == kInf) return unary_to_output(e, op, Op::RELU);
    if (lo == 0 && hi == 6) return unary_to_output(e, op, Op::RELU6);
    if (lo == -1 && hi == 1) return unary_to_output(e, op, Op::RELU_N1_TO_1);
    TensorIndex y = x;
    if (lo != -kInf) y = binary(e, Op::MAXIMUM, f32_scalar(e, lo), y);
    if (hi != kInf) y = binary(e, Op::MINIMUM, f32_scalar(e, hi), y);
    e.bind(op.outputs[0], y);
    return;
  }
  e.bind(op.outputs[0], clamp_integer(e, x, t, bounds));
}

// elu (row 46): TFLite's ELU is x > 0 ? x : expm1(x) (alpha 1); another alpha scales its
// non-positive results with LEAKY_RELU (e > 0 exactly where x > 0).
void lower_elu(Emitter& e, const Operation& op, const AttrsOf<OpType::kElu>& attrs) {
  const double alpha = MLNumber(attrs.options.alpha).cast_to_double(input_type(e, op));
  const TensorIndex elu = unary(e, Op::ELU, input(e, op));
  e.bind(op.outputs[0], alpha == 1 ? elu : leaky_relu(e, elu, alpha));
}

// gelu (row 51): TFLite's GELU with approximate = false, 0.5 · x · (1 + erf(x / √2)).
void lower_gelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kGelu>&) {
  const TensorIndex x = input(e, op);
  e.op(Op::GELU, {x}, {e.output(op.outputs[0])}, tfl::BuiltinOptions::GeluOptions,
       tfl::CreateGeluOptions(e.fbb(), false).Union());
}

// hardSigmoid (row 55): max(0, min(1, alpha · x + beta)): MUL, ADD (the reference's order, each
// rounded in float32), then MAXIMUM 0 and MINIMUM 1 (bounds first, NaN kept as in clamp).
void lower_hardSigmoid(Emitter& e, const Operation& op,
                       const AttrsOf<OpType::kHardSigmoid>& attrs) {
  const DT t = input_type(e, op);
  TensorIndex y = binary(e, Op::MUL, input(e, op), option_scalar(e, t, attrs.options.alpha));
  y = binary(e, Op::ADD, y, option_scalar(e, t, attrs.options.beta));
  y = binary(e, Op::MAXIMUM, f32_scalar(e, 0), y);
  e.bind(op.outputs[0], binary(e, Op::MINIMUM, f32_scalar(e, 1), y));
}

// hardSwish (row 56): TFLite's HARD_SWISH, x · relu6(x + 3) / 6.
void lower_hardSwish(Emitter& e, const Operation& op, const AttrsOf<OpType::kHardSwish>&) {
  const TensorIndex x = input(e, op);
  e.op(Op::HARD_SWISH, {x}, {e.output(op.outputs[0])}, tfl::BuiltinOptions::HardSwishOptions,
       tfl::CreateHardSwishOptions(e.fbb()).Union());
}

// leakyRelu (row 59): TFLite's LEAKY_RELU (x > 0 ? x : alpha · x, one rounded product) with
// alpha cast to the input type.
void lower_leakyRelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kLeakyRelu>& attrs) {
  const double alpha = MLNumber(attrs.options.alpha).cast_to_double(input_type(e, op));
  e.bind(op.outputs[0], leaky_relu(e, input(e, op), alpha));
}

// linear (row 60): alpha · x + beta as MUL then ADD (options cast to the input type; the
// product skipped for alpha 1, where it is x itself).
void lower_linear(Emitter& e, const Operation& op, const AttrsOf<OpType::kLinear>& attrs) {
  const DT t = input_type(e, op);
  const double alpha = MLNumber(attrs.options.alpha).cast_to_double(t);
  TensorIndex y = input(e, op);
  if (alpha != 1) y = binary(e, Op::MUL, y, f32_scalar(e, alpha));
  e.bind(op.outputs[0], binary(e, Op::ADD, y, option_scalar(e, t, attrs.options.beta)));
}

// prelu (row 68): floats are TFLite's PRELU (x >= 0 ? x : x · slope) when the output has the
// input's shape (the builtin broadcasts the slope only), else SELECT_V2(x < 0, x · slope, x),
// which broadcasts both ways; signed integers select likewise with the product computed in the
// wide type and wrapped back (lower_activations_util.h).
void lower_prelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kPrelu>&) {
  const TensorIndex x = input(e, op), slope = e.value(op.inputs[1]);  // read before output()
  if (!is_float(input_type(e, op))) {
    e.bind(op.outputs[0], prelu_integer(e, x, slope, input_type(e, op)));
  } else if (e.shape_of(x) == shape_of(e.graph(), op.outputs[0])) {
    e.op(Op::PRELU, {x, slope}, {e.output(op.outputs[0])});
  } else {
    const TensorIndex negative = binary(e, Op::LESS, x, f32_scalar(e, 0));
    e.bind(op.outputs[0], select(e, negative, binary(e, Op::MUL, x, slope), x));
  }
}

// relu (row 79): RELU for floats; MAXIMUM(x, 0) for the signed integer types.
void lower_relu(Emitter& e, const Operation& op, const AttrsOf<OpType::kRelu>&) {
  const DT t = input_type(e, op);
  if (is_float(t)) return unary_to_output(e, op, Op::RELU);
  const TensorIndex x = input(e, op);
  e.bind(op.outputs[0], binary(e, Op::MAXIMUM, x, e.scalar(e.type_of(x), 0)));
}

// sigmoid (row 85): TFLite's LOGISTIC.
void lower_sigmoid(Emitter& e, const Operation& op, const AttrsOf<OpType::kSigmoid>&) {
  unary_to_output(e, op, Op::LOGISTIC);
}

// softmax (row 87): TFLite's SOFTMAX (beta 1, max-subtracted) works on the last axis: another
// axis is made last by a reshape when only 1s follow it, else by a transpose swapping it with the
// last axis (its own inverse) around the SOFTMAX.
void lower_softmax(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftmax>& attrs) {
  const TensorIndex x = input(e, op);
  const std::vector<int32_t> shape = e.shape_of(x);
  const auto axis = static_cast<size_t>(attrs.params.axis);
  bool trailing_ones = true;
  for (size_t d = axis + 1; d < shape.size(); ++d) trailing_ones = trailing_ones && shape[d] == 1;
  if (trailing_ones) {
    const std::vector<int32_t> folded(shape.begin(), shape.begin() + static_cast<long>(axis) + 1);
    e.bind(op.outputs[0], reshaped(e, softmax_last_axis(e, reshaped(e, x, folded)), shape));
    return;
  }
  std::vector<int32_t> perm(shape.size());
  for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int32_t>(d);
  std::swap(perm[axis], perm.back());
  e.bind(op.outputs[0], e.transpose(softmax_last_axis(e, e.transpose(x, perm)), perm));
}

// softplus (row 88): ln(1 + exp(x)) as max(x, 0) + log1p(exp(−|x|)) (no overflow, like the
// reference). TFLite has no LOG1P (log(1 + v) alone loses every digit of small results):
// log1p(v) = log(u) + (v − (u − 1)) / u with u = 1 + v, the second term restoring the rounding
// error of u (exact: u − 1 and v − (u − 1) are), and v itself where u rounds to 1. Within 4 ULP of
// float64 in float32 arithmetic; everything but LOG is an XNNPACK operator.
void lower_softplus(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftplus>&) {
  const TensorIndex x = input(e, op);
  const TensorIndex v = unary(e, Op::EXP, unary(e, Op::NEG, unary(e, Op::ABS, x)));
  const TensorIndex u = binary(e, Op::ADD, v, f32_scalar(e, 1));
  const TensorIndex lost = binary(e, Op::SUB, v, binary(e, Op::SUB, u, f32_scalar(e, 1)));
  const TensorIndex log1p = binary(e, Op::ADD, unary(e, Op::LOG, u), binary(e, Op::DIV, lost, u));
  e.bind(op.outputs[0], binary(e, Op::ADD, unary(e, Op::RELU, x), log1p));
}

// softsign (row 89): x / (1 + |x|) as ABS, ADD, DIV, with x first clamped to the finite float32
// range (MAXIMUM/MINIMUM, bounds first to keep NaN) so that ±Inf give ±1 like the reference
// (FLT_MAX / (1 + FLT_MAX) = 1).
void lower_softsign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftsign>&) {
  const double big = std::numeric_limits<float>::max();
  TensorIndex x = binary(e, Op::MAXIMUM, f32_scalar(e, -big), input(e, op));
  x = binary(e, Op::MINIMUM, f32_scalar(e, big), x);
  const TensorIndex denominator = binary(e, Op::ADD, unary(e, Op::ABS, x), f32_scalar(e, 1));
  e.bind(op.outputs[0], binary(e, Op::DIV, x, denominator));
}

// tanh (row 91): TFLite's TANH.
void lower_tanh(Emitter& e, const Operation& op, const AttrsOf<OpType::kTanh>&) {
  unary_to_output(e, op, Op::TANH);
}

}  // namespace cppnn::tflite_export
