// ONNX lowering of the elementwise ops (see lower.h): binary arithmetic, comparisons, logical ops,
// unary math, cast, clamp and where (webnn-spec.md §2 rows 4, 5, 10-43, 94). Float and the
// common integer cases are one ONNX node; comparisons and logical ops add the bool <-> uint8
// casts; integer division guards the cases ONNX Runtime would trap on (x / 0, INT_MIN / -1);
// float -> integer cast saturates and maps NaN to 0 (§3.6), which ONNX's Cast leaves undefined.
#include <cmath>
#include <limits>

#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_elementwise_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/activations_params.h"

namespace cppnn::onnx_export {
namespace {

// A binary op that ONNX Runtime computes for every WebNN type with WebNN's semantics (add, sub,
// mul wrap on integers; max/min): one node.
void binary(Emitter& e, const Operation& op, std::string_view onnx_op) {
  e.node_to(onnx_op, {in(e, op, 0), in(e, op, 1)}, {out(e, op)});
}

// A comparison (ONNX bool output) cast to WebNN's uint8 0/1. `negate` adds a Not (notEqual).
void comparison(Emitter& e, const Operation& op, std::string_view onnx_op, bool negate = false) {
  std::string b = e.node(onnx_op, {in(e, op, 0), in(e, op, 1)});
  if (negate) b = e.node("Not", {b});
  bool_to_u8(e, b, out(e, op));
}

// A binary logical op on uint8 operands (nonzero is true), producing uint8 0/1.
void logical(Emitter& e, const Operation& op, std::string_view onnx_op) {
  std::string a = u8_to_bool(e, in(e, op, 0));
  std::string b = u8_to_bool(e, in(e, op, 1));
  bool_to_u8(e, e.node(onnx_op, {a, b}), out(e, op));
}

// A unary op of the same name for every type the op allows.
void unary(Emitter& e, const Operation& op, std::string_view onnx_op) {
  e.node_to(onnx_op, {in(e, op, 0)}, {out(e, op)});
}

// The bounds a float -> integer cast clips to before ONNX's Cast: the integer type's range
// limited to the values the float type holds exactly, and whether the type's maximum itself is
// among them (else inputs >= 2^N, N the value bits, saturate after the Cast).
struct CastClip {
  double lo = 0, hi = 0;
  bool exact_max = true;
  double overflow = 0;  // 2^N: inputs at or above it saturate to the maximum
};
CastClip cast_clip(int mantissa_bits, DT to) {
  const int value_bits = static_cast<int>(data_type_bits(to)) - (is_signed_int_type(to) ? 1 : 0);
  CastClip c;
  c.overflow = std::ldexp(1.0, value_bits);
  c.lo = is_signed_int_type(to) ? -c.overflow : 0.0;
  if (value_bits <= mantissa_bits) {
    c.hi = c.overflow - 1;  // 2^N - 1 is exact
  } else {
    c.hi = c.overflow - std::ldexp(1.0, value_bits - mantissa_bits);  // largest float < 2^N
    c.exact_max = false;
  }
  return c;
}

// The largest value of an integer type, as an MLNumber.
MLNumber int_max(DT t) {
  switch (t) {
    case DT::kInt8:
      return MLNumber(127);
    case DT::kUint8:
      return MLNumber(255);
    case DT::kInt32:
      return MLNumber(static_cast<long long>(std::numeric_limits<int32_t>::max()));
    case DT::kUint32:
      return MLNumber(static_cast<unsigned long long>(std::numeric_limits<uint32_t>::max()));
    case DT::kInt64:
      return MLNumber(static_cast<long long>(std::numeric_limits<int64_t>::max()));
    default:
      return MLNumber(std::numeric_limits<unsigned long long>::max());
  }
}

// cast float32/float16 -> integer (§3.6): NaN -> 0, truncation toward zero, saturation. ONNX
// Cast is undefined out of range, so the input is first made NaN-free (Where) and clipped to the
// largest in-range values of the float type; where the type's maximum is not representable
// (float32 -> int32/uint32/int64/uint64) inputs >= 2^N are set to the maximum after the Cast.
// float16 -> 32/64-bit integers computes from float32 (exact) so that ±Inf saturate too.
void cast_float_to_int(Emitter& e, const Operation& op, DT from, DT to) {
  std::string x = in(e, op, 0);
  if (from == DT::kFloat16 && data_type_bits(to) > 8) {
    x = e.cast(x, from, DT::kFloat32);
    from = DT::kFloat32;
  }
  std::string nan = e.node("IsNaN", {x});
  std::string clean = e.node("Where", {nan, e.const_scalar(from, 0.0), x});
  const CastClip c = cast_clip(from == DT::kFloat16 ? 11 : 24, to);
  std::string clipped =
      e.node("Clip", {clean, e.const_scalar(from, c.lo), e.const_scalar(from, c.hi)});
  if (c.exact_max) {
    cast_to(e, clipped, to, out(e, op));
    return;
  }
  std::string y = cast_to(e, clipped, to, "");
  std::string big = e.node("GreaterOrEqual", {clean, e.const_scalar(from, c.overflow)});
  where_any(e, big, e.const_scalar(to, int_max(to)), y, to, out(e, op));
}

}  // namespace

// add/sub/mul/max/min (rows 10-15): ONNX Runtime's CPU kernels cover all eight types (integers
// wrap; max/min propagate NaN).
void lower_add(Emitter& e, const Operation& op, const AttrsOf<OpType::kAdd>&) {
  binary(e, op, "Add");
}

void lower_sub(Emitter& e, const Operation& op, const AttrsOf<OpType::kSub>&) {
  binary(e, op, "Sub");
}

void lower_mul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMul>&) {
  binary(e, op, "Mul");
}

// div (row 13): floats divide; integers truncate toward zero (#909) with x / 0 = 0 and
// INT_MIN / -1 = INT_MIN (wrapping), cases ONNX Runtime's integer Div would trap on: the divisor
// is replaced by 1 there and the result fixed afterwards.
void lower_div(Emitter& e, const Operation& op, const AttrsOf<OpType::kDiv>&) {
  const DT t = e.type(op.outputs[0]);
  const std::string &a = in(e, op, 0), &b = in(e, op, 1);
  if (is_float_type(t)) {
    binary(e, op, "Div");
    return;
  }
  const std::string zero = e.const_scalar(t, 0);
  std::string is_zero = e.node("Equal", {b, zero});
  std::string bad = is_zero, is_minus_one;
  if (is_signed_int_type(t)) {
    is_minus_one = e.node("Equal", {b, e.const_scalar(t, -1)});
    bad = e.node("Or", {is_zero, is_minus_one});
  }
  std::string divisor = where_any(e, bad, e.const_scalar(t, 1), b, t, "");
  std::string q = e.node("Div", {a, divisor});
  if (!is_minus_one.empty()) q = where_any(e, is_minus_one, e.node("Neg", {a}), q, t, "");
  where_any(e, is_zero, zero, q, t, out(e, op));
}

void lower_max(Emitter& e, const Operation& op, const AttrsOf<OpType::kMax>&) {
  binary(e, op, "Max");
}

void lower_min(Emitter& e, const Operation& op, const AttrsOf<OpType::kMin>&) {
  binary(e, op, "Min");
}

// pow (row 16): ONNX Pow for float32/float16/int32/int64; the other integer types compute in
// int64 and wrap back to their type.
void lower_pow(Emitter& e, const Operation& op, const AttrsOf<OpType::kPow>&) {
  const DT t = e.type(op.outputs[0]);
  if (is_float_type(t) || t == DT::kInt32 || t == DT::kInt64) {
    binary(e, op, "Pow");
    return;
  }
  std::string r =
      e.node("Pow", {e.cast(in(e, op, 0), t, DT::kInt64), e.cast(in(e, op, 1), t, DT::kInt64)});
  cast_to(e, r, t, out(e, op));
}

// Comparisons (rows 17-22): ONNX's bool result cast to uint8; NaN compares false (notEqual true).
void lower_equal(Emitter& e, const Operation& op, const AttrsOf<OpType::kEqual>&) {
  comparison(e, op, "Equal");
}

void lower_notEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kNotEqual>&) {
  comparison(e, op, "Equal", /*negate=*/true);
}

void lower_greater(Emitter& e, const Operation& op, const AttrsOf<OpType::kGreater>&) {
  comparison(e, op, "Greater");
}

void lower_greaterOrEqual(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGreaterOrEqual>&) {
  comparison(e, op, "GreaterOrEqual");
}

void lower_lesser(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesser>&) {
  comparison(e, op, "Less");
}

void lower_lesserOrEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesserOrEqual>&) {
  comparison(e, op, "LessOrEqual");
}

// logicalNot (row 23): 1 where the uint8 input is 0.
void lower_logicalNot(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalNot>&) {
  std::string z = e.node("Equal", {in(e, op, 0), e.const_scalar(DT::kUint8, 0)});
  bool_to_u8(e, z, out(e, op));
}

// logicalAnd/Or/Xor (rows 24-26) on uint8 truth values (nonzero is true).
void lower_logicalAnd(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalAnd>&) {
  logical(e, op, "And");
}

void lower_logicalOr(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalOr>&) {
  logical(e, op, "Or");
}

void lower_logicalXor(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalXor>&) {
  logical(e, op, "Xor");
}

// isNaN / isInfinite (rows 27-28): ONNX IsNaN / IsInf (both signs) cast to uint8.
void lower_isNaN(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsNaN>&) {
  bool_to_u8(e, e.node("IsNaN", {in(e, op, 0)}), out(e, op));
}

// (IsInf takes float16 only from opset 20: float16 is cast to float32, exactly.)
void lower_isInfinite(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsInfinite>&) {
  std::string x = e.cast(in(e, op, 0), e.type(op.inputs[0]), DT::kFloat32);
  bool_to_u8(e, e.node("IsInf", {x}), out(e, op));
}

// Unary math (rows 29-43): one ONNX node of the same meaning each.
void lower_abs(Emitter& e, const Operation& op, const AttrsOf<OpType::kAbs>&) {
  unary(e, op, "Abs");
}

void lower_ceil(Emitter& e, const Operation& op, const AttrsOf<OpType::kCeil>&) {
  unary(e, op, "Ceil");
}

void lower_cos(Emitter& e, const Operation& op, const AttrsOf<OpType::kCos>&) {
  unary(e, op, "Cos");
}

void lower_erf(Emitter& e, const Operation& op, const AttrsOf<OpType::kErf>&) {
  unary(e, op, "Erf");
}

void lower_exp(Emitter& e, const Operation& op, const AttrsOf<OpType::kExp>&) {
  unary(e, op, "Exp");
}

void lower_floor(Emitter& e, const Operation& op, const AttrsOf<OpType::kFloor>&) {
  unary(e, op, "Floor");
}

void lower_identity(Emitter& e, const Operation& op, const AttrsOf<OpType::kIdentity>&) {
  unary(e, op, "Identity");
}

void lower_log(Emitter& e, const Operation& op, const AttrsOf<OpType::kLog>&) {
  unary(e, op, "Log");
}

void lower_neg(Emitter& e, const Operation& op, const AttrsOf<OpType::kNeg>&) {
  unary(e, op, "Neg");
}

void lower_reciprocal(Emitter& e, const Operation& op, const AttrsOf<OpType::kReciprocal>&) {
  unary(e, op, "Reciprocal");
}

// roundEven (row 39): ONNX Round rounds halves to even.
void lower_roundEven(Emitter& e, const Operation& op, const AttrsOf<OpType::kRoundEven>&) {
  unary(e, op, "Round");
}

void lower_sin(Emitter& e, const Operation& op, const AttrsOf<OpType::kSin>&) {
  unary(e, op, "Sin");
}

// sign (row 41): ONNX Sign (float32 keeps NaN). ONNX Runtime's float16 Sign maps NaN to 0, so
// float16 computes in float32. (The sign of a zero input is not kept: ORT gives +0.)
void lower_sign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSign>&) {
  const DT t = e.type(op.outputs[0]);
  if (t != DT::kFloat16) {
    unary(e, op, "Sign");
    return;
  }
  std::string s = e.node("Sign", {e.cast(in(e, op, 0), t, DT::kFloat32)});
  cast_to(e, s, t, out(e, op));
}

void lower_sqrt(Emitter& e, const Operation& op, const AttrsOf<OpType::kSqrt>&) {
  unary(e, op, "Sqrt");
}

void lower_tan(Emitter& e, const Operation& op, const AttrsOf<OpType::kTan>&) {
  unary(e, op, "Tan");
}

// cast (row 4, §3.6): one Cast, except float -> integer (saturating, NaN -> 0, see
// cast_float_to_int). Integer -> integer keeps the low bits like ONNX's Cast.
void lower_cast(Emitter& e, const Operation& op, const AttrsOf<OpType::kCast>&) {
  const DT from = e.type(op.inputs[0]), to = e.type(op.outputs[0]);
  if (from == to) {
    unary(e, op, "Identity");
  } else if (is_float_type(from) && !is_float_type(to)) {
    cast_float_to_int(e, op, from, to);
  } else {
    cast_to(e, in(e, op, 0), to, out(e, op));
  }
}

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

// where (row 94): the uint8 condition as bool; ONNX Runtime's missing Where types select
// through a wider integer type.
void lower_where(Emitter& e, const Operation& op, const AttrsOf<OpType::kWhere>&) {
  std::string cond = u8_to_bool(e, in(e, op, 0));
  where_any(e, cond, in(e, op, 1), in(e, op, 2), e.type(op.outputs[0]), out(e, op));
}

}  // namespace cppnn::onnx_export
