// Decompositions of the elementwise_unary ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). Everything but tan is
// exact, as the reference kernels are: the results keep -0, NaN and Inf where they do, and integer
// abs/neg wrap (abs(INT_MIN) = INT_MIN).
#include <limits>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using enum OpType;

// isNaN(x) = logicalNot(equal(x, x)): NaN is the one value unequal to itself (row 27).
std::vector<MLOperand> decompose_isNaN(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  return {b.logicalNot(b.equal(c.input(0), c.input(0)))};
}

// isInfinite(x) = equal(abs(x), +Inf) (row 28; NaN gives 0).
std::vector<MLOperand> decompose_isInfinite(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {b.equal(b.abs(x), scalar_like(b, x, std::numeric_limits<double>::infinity()))};
}

// abs(x) = max(x, 0 - x) (row 29): 0 - x (not neg) makes abs(±0) = +0, max propagates NaN, and the
// integer subtraction wraps like the reference (abs(INT_MIN) = INT_MIN).
std::vector<MLOperand> decompose_abs(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {b.max(x, b.sub(scalar_like(b, x, 0), x))};
}

// neg(x) = x * -1 (row 37): exact, flips the sign of zeros, wraps for integers (neg(INT_MIN) =
// INT_MIN).
std::vector<MLOperand> decompose_neg(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {b.mul(x, scalar_like(b, x, -1))};
}

// ceil(x) = -floor(-x) (row 30): exact, with ceil(-0.5) = -0 and ceil(-0) = -0.
std::vector<MLOperand> decompose_ceil(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  return {b.neg(b.floor(b.neg(c.input(0))))};
}

// reciprocal(x) = 1 / x (row 38): one rounding, 1/±0 = ±Inf.
std::vector<MLOperand> decompose_reciprocal(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  return {b.div(scalar_like(b, x, 1), x)};
}

// roundEven(x) (row 39), exactly: below 2^(mantissa bits) the magnitude rounds half to even in
// (|x| + 2^m) - 2^m, since the add rounds to the type's nearest even integer; the sign comes back
// from 1/x (negative for -0 too, so roundEven(-0.4) = -0); larger magnitudes, Inf and NaN are
// their own rounding.
std::vector<MLOperand> decompose_roundEven(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  const double m = x.dataType() == MLOperandDataType::kFloat16 ? 1024.0 : 8388608.0;
  const MLOperand big = scalar_like(b, x, m);
  const MLOperand magnitude = b.abs(x);
  const MLOperand rounded = b.sub(b.add(magnitude, big), big);
  const MLOperand negative = b.lesser(b.div(scalar_like(b, x, 1), x), scalar_like(b, x, 0));
  const MLOperand with_sign = b.where(negative, b.neg(rounded), rounded);
  return {b.where(b.lesser(magnitude, big), with_sign, x)};
}

// sign(x) = x > 0 ? 1 : (x < 0 ? -1 : x) (row 41): ±0 and NaN are kept, integers give -1/0/1.
std::vector<MLOperand> decompose_sign(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand& x = c.input(0);
  const MLOperand zero = scalar_like(b, x, 0);
  const MLOperand negative = b.where(b.lesser(x, zero), scalar_like(b, x, -1), x);
  return {b.where(b.lesser(zero, x), scalar_like(b, x, 1), negative)};
}

// tan(x) = sin(x) / cos(x) (row 43), in float32 for float16: three float16 roundings would be
// far beyond the absolute tolerance (1/512) for results near 100.
std::vector<MLOperand> decompose_tan(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand w = widen(b, c.input(0));
  return {narrow(b, b.div(b.sin(w), b.cos(w)), c.input(0).dataType())};
}

}  // namespace

void register_elementwise_unary(DecompositionTable& t) {
  t.add(kIsNaN, decompose_isNaN, {{kEqual}, {kLogicalNot, dt::kU8}});
  t.add(kIsInfinite, decompose_isInfinite, {{kEqual}, {kAbs}});
  t.add(kAbs, decompose_abs, {{kMax}, {kSub}});
  t.add(kNeg, decompose_neg, {{kMul}});
  t.add(kCeil, decompose_ceil, {{kNeg}, {kFloor}});
  t.add(kReciprocal, decompose_reciprocal, {{kDiv}});
  t.add(kRoundEven, decompose_roundEven,
        {{kAbs}, {kAdd}, {kSub}, {kDiv}, {kLesser}, {kNeg}, {kWhere, dt::kU8}});
  t.add(kSign, decompose_sign, {{kLesser}, {kWhere, dt::kU8}});
  t.add(kTan, decompose_tan, {{kSin}, {kCos}, {kDiv}, {kCast}});
}

}  // namespace cppnn::passes
