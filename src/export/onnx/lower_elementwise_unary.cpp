// ONNX lowering of the elementwise unary ops (see lower.h): logicalNot, isNaN/isInfinite, unary
// math and cast (webnn-spec.md §2 rows 4, 23, 27-43). Each is one ONNX node of the same meaning,
// with the bool <-> uint8 casts for logicalNot and the tests; float -> integer cast saturates and
// maps NaN to 0 (§3.6), which ONNX's Cast leaves undefined.
#include <cmath>
#include <limits>

#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_elementwise_util.h"
#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {
namespace {

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

// logicalNot (row 23): 1 where the uint8 input is 0.
void lower_logicalNot(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalNot>&) {
  std::string z = e.node("Equal", {in(e, op, 0), e.const_scalar(DT::kUint8, 0)});
  bool_to_u8(e, z, out(e, op));
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

}  // namespace cppnn::onnx_export
