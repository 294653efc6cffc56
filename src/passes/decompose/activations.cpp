// Decompositions of the activations ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). clamp, relu,
// leakyRelu and prelu are exact (comparisons, where, one rounded product); the others compute
// float16 in float32 (widen/narrow), where a chain of float16 roundings would exceed the WPT
// tolerances. double options are cast to the input type first, as the reference kernels do.
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include "src/ops/activations_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using enum OpType;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A scalar of w's data type holding the double option `v` cast to `type` (the op's input type),
// so float16 options keep their float16 value when the op computes in float32 (§3.6).
MLOperand option_scalar(MLGraphBuilder& b, const MLOperand& w, double v, MLOperandDataType type) {
  return scalar_like(b, w, MLNumber(v).cast_to_double(type));
}

// x < lo ? lo : (hi < x ? hi : x), the reference's clamp (NaN and -0 are kept); an absent bound
// is skipped.
MLOperand clamp_to(MLGraphBuilder& b, MLOperand x, const std::optional<MLOperand>& lo,
                   const std::optional<MLOperand>& hi) {
  if (lo) x = b.where(b.lesser(x, *lo), *lo, x);
  if (hi) x = b.where(b.lesser(*hi, x), *hi, x);
  return x;
}

// exp(x) - 1 without cancellation near 0 (Kahan): u = exp(x); (u - 1) * x / log(u), which is exact
// for u == 1 replaced by x and for u - 1 == -1 (u below half an ulp of 1, also exp(-Inf) = 0).
MLOperand expm1(MLGraphBuilder& b, const MLOperand& x) {
  const MLOperand one = scalar_like(b, x, 1);
  const MLOperand u = b.exp(x);
  const MLOperand um1 = b.sub(u, one);
  const MLOperand kahan = b.mul(um1, b.div(x, b.log(u)));
  const MLOperand near_zero = b.where(b.equal(u, one), x, kahan);
  return b.where(b.equal(um1, scalar_like(b, x, -1)), um1, near_zero);
}

// log(1 + v) for v >= 0 without losing v's small digits (Goldberg): u = 1 + v;
// log(u) * v / (u - 1), and v itself where u rounds to 1.
MLOperand log1p(MLGraphBuilder& b, const MLOperand& v) {
  const MLOperand one = scalar_like(b, v, 1);
  const MLOperand u = b.add(one, v);
  const MLOperand goldberg = b.mul(b.log(u), b.div(v, b.sub(u, one)));
  return b.where(b.equal(u, one), v, goldberg);
}

// One bound of clamp as a constant of `type` (cast like the reference: integer bounds saturate),
// or none when it is the double `unbounded` (-Inf for minValue, +Inf for maxValue; also what
// absent and NaN bounds become), which no value passes.
std::optional<MLOperand> clamp_bound(MLGraphBuilder& b, MLOperandDataType type, const MLNumber& v,
                                     double unbounded) {
  if (v.kind() == MLNumber::Kind::kDouble && v.as_double() == unbounded) return std::nullopt;
  return scalar(b, type, v);
}

// clamp(x) (row 5, erratum §6.1): absent and NaN bounds are ±Inf and left out, and x < lo /
// hi < x select exactly like the reference kernel.
std::vector<MLOperand> decompose_clamp(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  const ClampBounds bounds = clamp_bounds(c.attrs<kClamp>().options);
  return {clamp_to(b, x, clamp_bound(b, x.dataType(), bounds.min, -kInf),
                   clamp_bound(b, x.dataType(), bounds.max, kInf))};
}

// elu(x) = x > 0 ? x : alpha * expm1(x) (row 46), in float32 for float16.
std::vector<MLOperand> decompose_elu(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperandDataType type = c.input(0).dataType();
  const MLOperand w = widen(b, c.input(0));
  const MLOperand alpha = option_scalar(b, w, c.attrs<kElu>().options.alpha, type);
  const MLOperand negative = b.mul(alpha, expm1(b, w));
  return {narrow(b, b.where(b.lesser(scalar_like(b, w, 0), w), w, negative), type)};
}

// gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2))) (row 51), in float32 for float16. As in the
// backends that compute this formula in float32, 1 + erf cancels for x < -2.5 (float32 results
// there are tens of ULP or more from the reference's erfc form, though within about 1e-7
// absolutely).
std::vector<MLOperand> decompose_gelu(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  const MLOperand erf = b.erf(b.mul(w, scalar_like(b, w, 1 / std::numbers::sqrt2)));
  const MLOperand half_x = b.mul(w, scalar_like(b, w, 0.5));
  return {narrow(b, b.mul(half_x, b.add(scalar_like(b, w, 1), erf)), c.input(0).dataType())};
}

// hardSigmoid(x) = clamp(alpha * x + beta, 0, 1) (row 55), in float32 for float16 (where the
// product of two float16 values is exact).
std::vector<MLOperand> decompose_hardSigmoid(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperandDataType type = c.input(0).dataType();
  const auto& o = c.attrs<kHardSigmoid>().options;
  const MLOperand w = widen(b, c.input(0));
  const MLOperand v =
      b.add(b.mul(w, option_scalar(b, w, o.alpha, type)), option_scalar(b, w, o.beta, type));
  const MLOperand zero = scalar_like(b, w, 0), one = scalar_like(b, w, 1);
  return {narrow(b, clamp_to(b, v, zero, one), type)};
}

// hardSwish(x) = x * max(0, min(6, x + 3)) / 6 (row 56), in float32 for float16: 0 for x <= -3
// (also -Inf, where the formula would give NaN) and x itself for x >= 3, like the reference.
std::vector<MLOperand> decompose_hardSwish(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  const MLOperand three = scalar_like(b, w, 3);
  const MLOperand inner = b.div(b.mul(w, b.add(w, three)), scalar_like(b, w, 6));
  const MLOperand upper = b.where(b.lesserOrEqual(three, w), w, inner);
  const MLOperand result =
      b.where(b.lesserOrEqual(w, scalar_like(b, w, -3)), scalar_like(b, w, 0), upper);
  return {narrow(b, result, c.input(0).dataType())};
}

// x < 0 ? x * slope : x, the negative branch of leakyRelu and prelu: one rounded product, -0 and
// NaN kept, integer products wrapping; the result broadcasts x with slope.
MLOperand scale_negative(MLGraphBuilder& b, const MLOperand& x, const MLOperand& slope) {
  return b.where(b.lesser(x, scalar_like(b, x, 0)), b.mul(x, slope), x);
}

// leakyRelu(x) = x >= 0 ? x : alpha * x (row 59), exact in the input type.
std::vector<MLOperand> decompose_leakyRelu(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {scale_negative(b, x, scalar_like(b, x, c.attrs<kLeakyRelu>().options.alpha))};
}

// linear(x) = alpha * x + beta (row 60), in float32 for float16 (the product is then exact).
std::vector<MLOperand> decompose_linear(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperandDataType type = c.input(0).dataType();
  const auto& o = c.attrs<kLinear>().options;
  const MLOperand w = widen(b, c.input(0));
  const MLOperand v =
      b.add(b.mul(w, option_scalar(b, w, o.alpha, type)), option_scalar(b, w, o.beta, type));
  return {narrow(b, v, type)};
}

// prelu(x, slope) = x >= 0 ? x : slope * x, input and slope broadcast (row 68).
std::vector<MLOperand> decompose_prelu(DecomposeContext& c) {
  return {scale_negative(c.builder(), c.input(0), c.input(1))};
}

// relu(x) = max(x, 0) (row 79): +0 for -0, NaN kept.
std::vector<MLOperand> decompose_relu(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {b.max(x, scalar_like(b, x, 0))};
}

// sigmoid(x) = 1 / (1 + exp(-x)) (row 85), in float32 for float16, as e / (1 + e) with
// e = exp(x) for x < 0 so that exp never overflows (sigmoid(-100) is a float32 subnormal, not 0).
std::vector<MLOperand> decompose_sigmoid(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  const MLOperand one = scalar_like(b, w, 1);
  const MLOperand e = b.exp(b.neg(b.abs(w)));
  const MLOperand d = b.add(one, e);
  const MLOperand y = b.where(b.lesser(w, scalar_like(b, w, 0)), b.div(e, d), b.div(one, d));
  return {narrow(b, y, c.input(0).dataType())};
}

// softmax(x, axis) = exp(x - max) / sum(exp(x - max)) along axis (row 87, the spec's
// max-subtracted form), in float32 for float16; a NaN in a row makes the row NaN.
std::vector<MLOperand> decompose_softmax(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLReduceOptions along{.axes = {c.attrs<kSoftmax>().params.axis}, .keepDimensions = true};
  const MLOperand w = widen(b, c.input(0));
  const MLOperand e = b.exp(b.sub(w, b.reduceMax(w, along)));
  return {narrow(b, b.div(e, b.reduceSum(e, along)), c.input(0).dataType())};
}

// softplus(x) = ln(1 + exp(x)) (row 88) as max(x, 0) + log1p(exp(-|x|)) (no overflow, like the
// reference), in float32 for float16.
std::vector<MLOperand> decompose_softplus(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  const MLOperand tail = log1p(b, b.exp(b.neg(b.abs(w))));
  return {narrow(b, b.add(b.max(w, scalar_like(b, w, 0)), tail), c.input(0).dataType())};
}

// softsign(x) = x / (1 + |x|) (row 89), in float32 for float16; x is first clamped to the finite
// float32 range so that ±Inf give ±1 like the reference (FLT_MAX / (1 + FLT_MAX) = 1).
std::vector<MLOperand> decompose_softsign(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  const double big = std::numeric_limits<float>::max();
  const MLOperand lo = scalar_like(b, w, -big), hi = scalar_like(b, w, big);
  const MLOperand x = clamp_to(b, w, lo, hi);
  const MLOperand y = b.div(x, b.add(scalar_like(b, w, 1), b.abs(x)));
  return {narrow(b, y, c.input(0).dataType())};
}

}  // namespace

void register_activations(DecompositionTable& t) {
  const DecompositionUse where{kWhere, dt::kU8};
  t.add(kClamp, decompose_clamp, {{kLesser}, where});
  t.add(kElu, decompose_elu,
        {{kExp}, {kLog}, {kSub}, {kMul}, {kDiv}, {kEqual}, {kLesser}, where, {kCast}});
  t.add(kGelu, decompose_gelu, {{kMul}, {kErf}, {kAdd}, {kCast}});
  t.add(kHardSigmoid, decompose_hardSigmoid, {{kMul}, {kAdd}, {kLesser}, where, {kCast}});
  t.add(kHardSwish, decompose_hardSwish,
        {{kAdd}, {kMul}, {kDiv}, {kLesserOrEqual}, where, {kCast}});
  t.add(kLeakyRelu, decompose_leakyRelu, {{kLesser}, {kMul}, where});
  t.add(kLinear, decompose_linear, {{kMul}, {kAdd}, {kCast}});
  t.add(kPrelu, decompose_prelu, {{kLesser}, {kMul}, where});
  t.add(kRelu, decompose_relu, {{kMax}});
  t.add(kSigmoid, decompose_sigmoid,
        {{kAbs}, {kNeg}, {kExp}, {kAdd}, {kDiv}, {kLesser}, where, {kCast}});
  t.add(kSoftmax, decompose_softmax, {{kReduceMax}, {kSub}, {kExp}, {kReduceSum}, {kDiv}, {kCast}});
  t.add(kSoftplus, decompose_softplus,
        {{kAbs},
         {kNeg},
         {kExp},
         {kAdd},
         {kLog},
         {kSub},
         {kMul},
         {kDiv},
         {kEqual},
         {kMax},
         where,
         {kCast}});
  t.add(kSoftsign, decompose_softsign, {{kLesser}, where, {kAbs}, {kAdd}, {kDiv}, {kCast}});
}

}  // namespace cppnn::passes
