// CoreML lowering of the activations (see lower.h; webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59,
// 60, 68, 79, 85, 87-89, 91). Each is the MIL activation of the same meaning where iOS17 has one
// (float32/float16; double options cast to the input type first, §3.6, and passed as constants of
// that type). clamp is one `clip` (or comparisons and selects where clip cannot say it), prelu and
// hardSwish are written with elementwise ops and selects like the reference kernels (slope
// broadcast both ways; -Inf, the ends of hardSwish's ramp and NaN handled exactly), integer relu
// is a `maximum` and softsign's input is first clipped to the finite range so that ±Inf give ±1.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/activations_params.h"

namespace cppnn::coreml_export {
namespace {

using DT = MLOperandDataType;

bool is_float(mil::DataType t) {
  return t == mil::FLOAT32 || t == mil::FLOAT16;
}

// A double option cast to the input's element type, as a scalar constant of that type.
std::string option_const(Emitter& e, mil::DataType type, double value) {
  return e.const_scalar(type, MLNumber(value));
}

// A MIL activation `mil_op` of the op's input with extra constant parameters, writing the output.
void activation(Emitter& e, const Operation& op, std::string_view mil_op,
                std::vector<Param> extra = {}) {
  std::vector<Param> params{{"x", in(e, op, 0)}};
  for (Param& p : extra) params.push_back(std::move(p));
  e.op_to(mil_op, std::move(params), op.outputs[0]);
}

// The type of a comparison of a variable of type `t` (the same shape, bool).
MilType bool_like(const MilType& t) {
  return MilType{mil::BOOL, t.shape};
}

// One side of the reference clamp: select(x < bound, bound, x) for the lower bound,
// select(bound < x, bound, x) for the upper one (NaN and -0 kept), written to variable `y`, or
// to a fresh variable when `y` is empty; returns the variable.
std::string clamp_side(Emitter& e, const std::string& x, const std::string& bound, bool upper,
                       const std::string& y) {
  const MilType t = e.type_of(x);
  const std::string outside = upper ? e.op("less", {{"x", bound}, {"y", x}}, bool_like(t))
                                    : e.op("less", {{"x", x}, {"y", bound}}, bool_like(t));
  const std::string name = y.empty() ? e.fresh() : y;
  e.op_to("select", {{"cond", outside}, {"a", bound}, {"b", x}}, {{name, t}});
  return name;
}

// The value no element passes as clamp's lower (`upper` false) or upper bound in a type: ±Inf for
// floats, the int32 limits for int32.
double unbounded(mil::DataType t, bool upper) {
  if (is_float(t))
    return upper ? std::numeric_limits<double>::infinity()
                 : -std::numeric_limits<double>::infinity();
  return upper ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
}

}  // namespace

bool lowers_activations(const Graph&, const Operation&) {
  return true;
}

// clamp (row 5, erratum §6.1): absent and NaN bounds are -Inf/+Inf; both bounds cast to the input
// type. Float bounds with lo < hi are one MIL clip (values below alpha become alpha, above beta
// become beta: NaN and -0 kept); int32 and a float range of one value (clip needs alpha < beta)
// compare and select like the reference kernel, leaving out a bound no element passes; no bound
// at all is an identity.
void lower_clamp(Emitter& e, const Operation& op, const AttrsOf<OpType::kClamp>& attrs) {
  const DT webnn_type = e.type(op.inputs[0]);
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  const ClampBounds bounds = clamp_bounds(attrs.options);
  const double lo = bounds.min.cast_to_double(webnn_type);
  const double hi = bounds.max.cast_to_double(webnn_type);
  const bool has_lo = lo != unbounded(t, false), has_hi = hi != unbounded(t, true);
  const std::string& x = in(e, op, 0);
  if (!has_lo && !has_hi) {
    e.op_to("identity", {{"x", x}}, op.outputs[0]);
    return;
  }
  if (is_float(t) && lo < hi) {
    activation(e, op, "clip",
               {{"alpha", e.const_scalar(t, bounds.min)}, {"beta", e.const_scalar(t, bounds.max)}});
    return;
  }
  const std::string& y = e.value(op.outputs[0]);
  std::string v = x;
  if (has_lo) v = clamp_side(e, v, e.const_scalar(t, bounds.min), false, has_hi ? "" : y);
  if (has_hi) clamp_side(e, v, e.const_scalar(t, bounds.max), true, y);
}

// elu (row 46): MIL elu (x for x > 0, else alpha * (exp(x) - 1)).
void lower_elu(Emitter& e, const Operation& op, const AttrsOf<OpType::kElu>& attrs) {
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  activation(e, op, "elu", {{"alpha", option_const(e, t, attrs.options.alpha)}});
}

// gelu (row 51): MIL gelu in its EXACT mode, 0.5 * x * (1 + erf(x / sqrt(2))).
void lower_gelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kGelu>&) {
  activation(e, op, "gelu", {{"mode", e.const_string("EXACT")}});
}

// hardSigmoid (row 55): MIL sigmoid_hard, min(max(alpha * x + beta, 0), 1).
void lower_hardSigmoid(Emitter& e, const Operation& op,
                       const AttrsOf<OpType::kHardSigmoid>& attrs) {
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  activation(e, op, "sigmoid_hard",
             {{"alpha", option_const(e, t, attrs.options.alpha)},
              {"beta", option_const(e, t, attrs.options.beta)}});
}

// hardSwish (row 56; MIL has no such op): x * (x + 3) / 6, x itself for x >= 3 and 0 for x <= -3
// (also -Inf, where the product would be NaN), as the reference kernel; NaN stays NaN.
void lower_hardSwish(Emitter& e, const Operation& op, const AttrsOf<OpType::kHardSwish>&) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  const std::string three = e.const_scalar(t.type, 3);
  const std::string shifted = e.op("add", {{"x", x}, {"y", three}}, t);
  const std::string product = e.op("mul", {{"x", x}, {"y", shifted}}, t);
  const std::string ramp = e.op("real_div", {{"x", product}, {"y", e.const_scalar(t.type, 6)}}, t);
  const std::string high = e.op("greater_equal", {{"x", x}, {"y", three}}, bool_like(t));
  const std::string upper = e.op("select", {{"cond", high}, {"a", x}, {"b", ramp}}, t);
  const std::string low =
      e.op("less_equal", {{"x", x}, {"y", e.const_scalar(t.type, -3)}}, bool_like(t));
  e.op_to("select", {{"cond", low}, {"a", e.const_scalar(t.type, 0)}, {"b", upper}}, op.outputs[0]);
}

// leakyRelu (row 59): MIL leaky_relu (x for x >= 0, else alpha * x).
void lower_leakyRelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kLeakyRelu>& attrs) {
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  activation(e, op, "leaky_relu", {{"alpha", option_const(e, t, attrs.options.alpha)}});
}

// linear (row 60): MIL linear_activation, alpha * x + beta.
void lower_linear(Emitter& e, const Operation& op, const AttrsOf<OpType::kLinear>& attrs) {
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  activation(e, op, "linear_activation",
             {{"alpha", option_const(e, t, attrs.options.alpha)},
              {"beta", option_const(e, t, attrs.options.beta)}});
}

// prelu (row 68): select(x < 0, x * slope, x) with input and slope broadcast both ways (MIL's
// prelu takes one constant alpha per channel only); -0 and NaN kept, int32 products wrapping, as
// the reference kernel.
void lower_prelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kPrelu>&) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  MilType out = out_type(e, op);
  const std::string negative =
      e.op("less", {{"x", x}, {"y", e.const_scalar(t.type, 0)}}, bool_like(t));
  const std::string scaled = e.op("mul", {{"x", x}, {"y", in(e, op, 1)}}, std::move(out));
  e.op_to("select", {{"cond", negative}, {"a", scaled}, {"b", x}}, op.outputs[0]);
}

// relu (row 79): MIL relu for floats; maximum(x, 0) for int32 (relu takes floats only).
void lower_relu(Emitter& e, const Operation& op, const AttrsOf<OpType::kRelu>&) {
  const mil::DataType t = e.mil_type(op.inputs[0]).type;
  if (is_float(t)) {
    activation(e, op, "relu");
  } else {
    e.op_to("maximum", {{"x", in(e, op, 0)}, {"y", e.const_scalar(t, 0)}}, op.outputs[0]);
  }
}

// sigmoid (row 85): MIL sigmoid.
void lower_sigmoid(Emitter& e, const Operation& op, const AttrsOf<OpType::kSigmoid>&) {
  activation(e, op, "sigmoid");
}

// softmax (row 87): MIL softmax along `axis` (max-subtracted, like the spec).
void lower_softmax(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftmax>& attrs) {
  activation(e, op, "softmax", {{"axis", e.const_int(static_cast<int32_t>(attrs.params.axis))}});
}

// softplus (row 88): MIL softplus, ln(1 + exp(x)).
void lower_softplus(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftplus>&) {
  activation(e, op, "softplus");
}

// softsign (row 89): MIL softsign, x / (1 + |x|), of x clipped to the type's finite range so that
// ±Inf give ±1 like the reference (max / (1 + max) rounds to 1; clip keeps NaN).
void lower_softsign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftsign>&) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  const double big = t.type == mil::FLOAT16 ? 65504.0 : std::numeric_limits<float>::max();
  const std::string finite = e.op(
      "clip",
      {{"x", x}, {"alpha", e.const_scalar(t.type, -big)}, {"beta", e.const_scalar(t.type, big)}},
      t);
  e.op_to("softsign", {{"x", finite}}, op.outputs[0]);
}

// tanh (row 91): MIL tanh.
void lower_tanh(Emitter& e, const Operation& op, const AttrsOf<OpType::kTanh>&) {
  activation(e, op, "tanh");
}

}  // namespace cppnn::coreml_export
