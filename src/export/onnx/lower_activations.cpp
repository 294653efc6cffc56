// ONNX lowering of the activations (see lower.h; webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59, 60,
// 68, 79, 85, 87-89, 91). Each is one ONNX node of the same name where opset 17 has one; double
// options are cast to the input type first (§3.6) like the reference kernels. clamp is a Clip
// with explicit bounds; gelu (no ONNX op before opset 20) is emitted in the erf form ONNX
// Runtime's Gelu fusion recognises; integer relu and prelu use Max / Where.
#include <cmath>
#include <limits>
#include <numbers>

#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_elementwise_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/activations_params.h"

namespace cppnn::onnx_export {
namespace {

// A double option cast to the input type (float32 or float16), as an ONNX float attribute.
float option_as(double value, DT type) {
  return static_cast<float>(MLNumber(value).cast_to_double(type));
}

// A unary op of the same name with optional float attributes.
void unary(Emitter& e, const Operation& op, std::string_view onnx_op,
           std::vector<Attr> attrs = {}) {
  e.node_to(onnx_op, {in(e, op, 0)}, {out(e, op)}, std::move(attrs));
}

}  // namespace

// clamp (row 5, erratum §6.1): ONNX Clip with both bounds cast to the input type (absent or NaN
// float bounds are -Inf/+Inf: ONNX Runtime's own defaults are the finite float limits, which would
// clip infinite inputs); no bounds at all is an Identity.
void lower_clamp(Emitter& e, const Operation& op, const AttrsOf<OpType::kClamp>& attrs) {
  const DT t = e.type(op.inputs[0]);
  const ClampBounds bounds = clamp_bounds(attrs.options);
  const double inf = std::numeric_limits<double>::infinity();
  if (is_float_type(t) && bounds.min.cast_to_double(t) == -inf &&
      bounds.max.cast_to_double(t) == inf) {
    unary(e, op, "Identity");
    return;
  }
  e.node_to("Clip", {in(e, op, 0), e.const_scalar(t, bounds.min), e.const_scalar(t, bounds.max)},
            {out(e, op)});
}

// elu (row 46): ONNX Elu with alpha cast to the input type.
void lower_elu(Emitter& e, const Operation& op, const AttrsOf<OpType::kElu>& attrs) {
  unary(e, op, "Elu", {{"alpha", option_as(attrs.options.alpha, e.type(op.inputs[0]))}});
}

// gelu (row 51): 0.5 * x * (1 + erf(x / sqrt(2))) as Div, Erf, Add, Mul, Mul (the pattern ONNX
// Runtime fuses into one Gelu kernel). float16 computes in float32 so that the constants are
// exact (ONNX Runtime's CPU kernels compute float16 in float32 anyway).
void lower_gelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kGelu>&) {
  const DT t = e.type(op.inputs[0]);
  const DT c = DT::kFloat32;
  std::string x = e.cast(in(e, op, 0), t, c);
  std::string d = e.node("Div", {x, e.const_scalar(c, std::numbers::sqrt2)});
  std::string erf = e.node("Erf", {d});
  std::string sum = e.node("Add", {erf, e.const_scalar(c, 1.0)});
  std::string prod = e.node("Mul", {x, sum});
  const std::string& y = out(e, op);
  if (t == c) {
    e.node_to("Mul", {prod, e.const_scalar(c, 0.5)}, {y});
  } else {
    cast_to(e, e.node("Mul", {prod, e.const_scalar(c, 0.5)}), t, y);
  }
}

// hardSigmoid (row 55): ONNX HardSigmoid, options cast to the input type.
void lower_hardSigmoid(Emitter& e, const Operation& op,
                       const AttrsOf<OpType::kHardSigmoid>& attrs) {
  const DT t = e.type(op.inputs[0]);
  unary(e, op, "HardSigmoid",
        {{"alpha", option_as(attrs.options.alpha, t)}, {"beta", option_as(attrs.options.beta, t)}});
}

// hardSwish (row 56): ONNX HardSwish (x * max(0, min(1, x/6 + 1/2))).
void lower_hardSwish(Emitter& e, const Operation& op, const AttrsOf<OpType::kHardSwish>&) {
  unary(e, op, "HardSwish");
}

// leakyRelu (row 59): ONNX LeakyRelu with alpha cast to the input type.
void lower_leakyRelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kLeakyRelu>& attrs) {
  unary(e, op, "LeakyRelu", {{"alpha", option_as(attrs.options.alpha, e.type(op.inputs[0]))}});
}

// linear (row 60): alpha * x + beta with the options cast to the input type; alpha = 1 drops the
// Mul (exact) and beta = 0 the Add (which only changes the sign of zero results); both gives an
// Identity.
void lower_linear(Emitter& e, const Operation& op, const AttrsOf<OpType::kLinear>& attrs) {
  const DT t = e.type(op.inputs[0]);
  const double alpha = MLNumber(attrs.options.alpha).cast_to_double(t);
  const double beta = MLNumber(attrs.options.beta).cast_to_double(t);
  const std::string& y = out(e, op);
  std::string x = in(e, op, 0);
  if (alpha != 1.0) {
    x = emit(e, "Mul", {x, e.const_scalar(t, alpha)}, beta == 0.0 ? y : "");
    if (beta == 0.0) return;
  }
  if (beta != 0.0) {
    e.node_to("Add", {x, e.const_scalar(t, beta)}, {y});
  } else {
    e.node_to("Identity", {x}, {y});
  }
}

// prelu (row 68): floats use ONNX PRelu (slope broadcast to the input; an input that broadcasts
// to the slope's shape is expanded first); integers select Where(x < 0, x * slope, x) (the
// product wraps).
void lower_prelu(Emitter& e, const Operation& op, const AttrsOf<OpType::kPrelu>&) {
  const DT t = e.type(op.inputs[0]);
  std::string x = in(e, op, 0);
  const std::string& slope = in(e, op, 1);
  if (is_float_type(t)) {
    if (e.desc(op.inputs[0]).shape != e.desc(op.outputs[0]).shape)
      x = e.node("Expand", {x, e.const_i64(e.dims(op.outputs[0]))});
    e.node_to("PRelu", {x, slope}, {out(e, op)});
    return;
  }
  std::string negative = e.node("Less", {x, e.const_scalar(t, 0)});
  where_any(e, negative, e.node("Mul", {x, slope}), x, t, out(e, op));
}

// relu (row 79): ONNX Relu for floats; Max(x, 0) for the integer types.
void lower_relu(Emitter& e, const Operation& op, const AttrsOf<OpType::kRelu>&) {
  const DT t = e.type(op.inputs[0]);
  if (is_float_type(t)) {
    unary(e, op, "Relu");
  } else {
    e.node_to("Max", {in(e, op, 0), e.const_scalar(t, 0)}, {out(e, op)});
  }
}

void lower_sigmoid(Emitter& e, const Operation& op, const AttrsOf<OpType::kSigmoid>&) {
  unary(e, op, "Sigmoid");
}

// softmax (row 87): ONNX Softmax (opset 13+: along the one axis).
void lower_softmax(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftmax>& attrs) {
  unary(e, op, "Softmax", {{"axis", int64_t{attrs.params.axis}}});
}

void lower_softplus(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftplus>&) {
  unary(e, op, "Softplus");
}

void lower_softsign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSoftsign>&) {
  unary(e, op, "Softsign");
}

void lower_tanh(Emitter& e, const Operation& op, const AttrsOf<OpType::kTanh>&) {
  unary(e, op, "Tanh");
}

}  // namespace cppnn::onnx_export
