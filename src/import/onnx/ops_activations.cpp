// ONNX activation operators (ops_activations.def): WebNN's activations where they match, and
// compositions of elementwise ops for the rest (Selu, Celu, ThresholdedRelu, Mish, Shrink, Gelu
// with approximate="tanh").
#include <cmath>
#include <numbers>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_elementwise_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using UnaryFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLOperatorOptions&);

void float_unary(NodeContext& c, UnaryFn fn, const char* webnn_op) {
  MLOperand x = float_input(c, 0, webnn_op);
  c.set_output(0, (c.builder().*fn)(x, c.opts<MLOperatorOptions>()));
}

MLOperand elu(NodeContext& c, const MLOperand& x, double alpha) {
  MLEluOptions o = c.opts<MLEluOptions>();
  o.alpha = alpha;
  return c.builder().elu(x, o);
}

// The PRelu slope, aligned on the channel axis for opsets before 7, whose slope of shape [C]
// applies to axis 1 of an input [N, C, ...].
MLOperand prelu_slope(NodeContext& c, std::vector<uint32_t> x_shape) {
  MLOperand slope = c.input(1);
  const std::vector<uint32_t> s = slope.shape();
  if (c.opset() >= 7 || s.size() != 1 || x_shape.size() < 3 || s[0] == 1 || s[0] != x_shape[1])
    return slope;
  std::vector<uint32_t> aligned(x_shape.size() - 1, 1u);
  aligned[0] = s[0];
  return c.builder().reshape(slope, aligned, c.opts<MLOperatorOptions>());
}

}  // namespace

// Relu: WebNN relu takes float and signed integer types; unsigned values pass unchanged.
void import_Relu(NodeContext& c) {
  MLOperand x = c.input(0);
  if (is_unsigned_type(x.dataType())) return c.set_output(0, x);
  c.set_output(0, c.builder().relu(x, c.opts<MLOperatorOptions>()));
}

void import_LeakyRelu(NodeContext& c) {
  MLOperand x = float_input(c, 0, "leakyRelu");
  MLLeakyReluOptions o = c.opts<MLLeakyReluOptions>();
  o.alpha = c.attr_float("alpha", 0.01f);
  c.set_output(0, c.builder().leakyRelu(x, o));
}

void import_Elu(NodeContext& c) {
  c.set_output(0, elu(c, float_input(c, 0, "elu"), c.attr_float("alpha", 1.0f)));
}

// Selu: gamma * elu(x, alpha).
void import_Selu(NodeContext& c) {
  MLOperand x = float_input(c, 0, "elu");
  Ops f(c);
  const double alpha = c.attr_float("alpha", 1.67326319217681884765625f);
  const double gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  c.set_output(0, f.mul(elu(c, x, alpha), gamma));
}

// Celu: max(0, x) + min(0, alpha (exp(x / alpha) - 1)) = alpha elu(x / alpha).
void import_Celu(NodeContext& c) {
  MLOperand x = float_input(c, 0, "elu");
  const double alpha = c.attr_float("alpha", 1.0f);
  if (alpha == 0) c.invalid("alpha must not be 0");
  Ops f(c);
  if (alpha == 1) return c.set_output(0, elu(c, x, 1.0));
  c.set_output(0, f.mul(elu(c, f.div(x, f.k(x, alpha)), 1.0), alpha));
}

void import_Sigmoid(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::sigmoid, "sigmoid");
}
void import_Tanh(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::tanh, "tanh");
}
void import_Softplus(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::softplus, "softplus");
}
void import_Softsign(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::softsign, "softsign");
}
// ONNX HardSwish is x max(0, min(1, x/6 + 1/2)), WebNN's x max(0, min(6, x + 3)) / 6.
void import_HardSwish(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::hardSwish, "hardSwish");
}

void import_HardSigmoid(NodeContext& c) {
  MLOperand x = float_input(c, 0, "hardSigmoid");
  MLHardSigmoidOptions o = c.opts<MLHardSigmoidOptions>();
  o.alpha = c.attr_float("alpha", 0.2f);
  o.beta = c.attr_float("beta", 0.5f);
  c.set_output(0, c.builder().hardSigmoid(x, o));
}

// PRelu: slope broadcast to X (unidirectionally; WebNN's prelu broadcasts both ways, which agrees
// on valid models). Unsigned inputs are never negative.
void import_PRelu(NodeContext& c) {
  MLOperand x = c.input(0);
  if (is_unsigned_type(x.dataType())) return c.set_output(0, x);
  MLOperand slope = prelu_slope(c, x.shape());
  c.set_output(0, c.builder().prelu(x, slope, c.opts<MLOperatorOptions>()));
}

// ThresholdedRelu: x where x > alpha, else 0.
void import_ThresholdedRelu(NodeContext& c) {
  MLOperand x = float_input(c, 0, "thresholdedRelu decomposition");
  Ops f(c);
  const double alpha = c.attr_float("alpha", 1.0f);
  c.set_output(0, f.where(f.greater(x, alpha), x, f.k(x, 0)));
}

// Gelu (opset 20): approximate="none" is WebNN gelu; "tanh" is
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void import_Gelu(NodeContext& c) {
  MLOperand x = float_input(c, 0, "gelu");
  const std::string approximate = c.attr_string("approximate", "none");
  Ops f(c);
  if (approximate == "none") return c.set_output(0, f.b().gelu(x, f.o));
  if (approximate != "tanh") c.invalid("approximate must be 'none' or 'tanh'");
  MLOperand inner =
      f.mul(f.add(x, f.mul(f.mul(f.mul(x, x), x), 0.044715)), std::sqrt(2.0 / std::numbers::pi));
  c.set_output(0, f.mul(f.mul(x, 0.5), f.add(f.tanh(inner), 1.0)));
}

// Mish: x tanh(softplus(x)).
void import_Mish(NodeContext& c) {
  MLOperand x = float_input(c, 0, "softplus");
  Ops f(c);
  c.set_output(0, f.mul(x, f.tanh(f.b().softplus(x, f.o))));
}

// Shrink: x + bias where x < -lambd, x - bias where x > lambd, else 0 (all numeric types; for
// integers the thresholds compare exactly as ceil(-lambd) and floor(lambd), and bias must be a
// whole number).
void import_Shrink(NodeContext& c) {
  MLOperand x = c.input(0);
  const double lambd = c.attr_float("lambd", 0.5f);
  const double bias = c.attr_float("bias", 0.0f);
  const bool is_float = is_float_type(x.dataType());
  if (!is_float && bias != std::floor(bias)) c.unsupported("a fractional bias on an integer input");
  Ops f(c);
  const double low = is_float ? -lambd : std::ceil(-lambd);
  const double high = is_float ? lambd : std::floor(lambd);
  MLOperand zero = f.k(x, 0);
  MLOperand above = f.where(f.greater(x, high), f.sub(x, bias), zero);
  c.set_output(0, f.where(f.less(x, low), f.add(x, bias), above));
}

}  // namespace cppnn::onnx_import
