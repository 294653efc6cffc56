// CoreML lowering of the elementwise unary ops and cast (see lower.h; webnn-spec.md §2 rows 4,
// 23, 27-43; the cast table of §3.6).
//
// - ceil, cos, erf, exp, floor, sin, sqrt: the MIL op of the same name (float32/float16).
// - log: MIL log with epsilon 0 (its default 1e-45 would turn log(0) into a finite number);
//   reciprocal: real_div(1, x) (MIL inverse adds its epsilon, and even an epsilon of 0 would
//   turn -0 into +0 and 1/-0 into +Inf); tan: float16 computed in float32 (a float16 tan loses
//   the absolute tolerance near its poles, as the shared decomposition notes).
// - roundEven: exact arithmetic (lower_elementwise_util.h round_half_even); MIL's round leaves
//   the direction of halves to the backend.
// - abs: MIL abs for floats (abs(-0) = +0, NaN kept); neg: x · -1 for floats (exact, flips the
//   sign of zeros); for int32 both write out the reference's wrap of INT_MIN to itself (MIL
//   leaves int32 overflow unspecified, so no op may overflow); sign: selects keeping ±0 and NaN
//   as the reference (MIL sign does not say what it does with them). 8-bit data (only where
//   target.cpp lets it through) is computed in int32 and wrapped back.
// - logicalNot, isNaN (x != x), isInfinite (|x| == Inf): MIL comparisons cast to uint8 0/1.
// - identity: MIL identity (a reshape to its own shape for 8-bit data).
// - cast: every pair of float32, float16, int32, int8 and uint8 (the target's types), written so
//   that only MIL casts whose result is defined remain: float -> integer truncates toward zero,
//   saturates and maps NaN to 0 (§3.6, the reference) by clip, floor/ceil and selects before a
//   cast of in-range integral values; an integer -> 8-bit cast keeps the low 8 bits (computed in
//   int32 by wrap_to_8bit); int32 -> float16 goes through float32 (exact below 2^24, and larger
//   values overflow float16 anyway, so the result is rounded once); the rest are exact or
//   rounded-once MIL casts.
#include <limits>
#include <string>
#include <string_view>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_elementwise_util.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

// The output's variable name (the destination of the op's last MIL op).
const std::string& out_name(const Emitter& e, const Operation& op) {
  return e.value(op.outputs[0]);
}

// A unary MIL op writing the output.
void unary(Emitter& e, const Operation& op, std::string_view mil_op) {
  unary_op(e, mil_op, in(e, op, 0), out_name(e, op));
}

// Lowers an op on numbers with `compute(x, dest)` in the input's type (float32, float16 or
// int32); 8-bit data is computed in int32 and brought back by its low 8 bits (`wrap`) or by a
// plain cast (results within the type's range: sign).
template <class Compute>
void numeric(Emitter& e, const Operation& op, bool wrap, Compute compute) {
  const std::string& dest = out_name(e, op);
  const mil::DataType t = out_type(e, op).type;
  if (!is_8bit_type(t)) {
    compute(in(e, op, 0), dest);
    return;
  }
  const std::string v = compute(e.cast(in(e, op, 0), mil::INT32), std::string());
  if (wrap)
    wrap_to_8bit(e, v, t, dest);
  else
    cast_into(e, v, t, dest);
}

// Float32/float16 x cast to integer type `to` (int32, int8, uint8), into `dest`: NaN -> 0,
// truncation toward zero, saturation (§3.6 as the reference). x is clipped to the range of `to`
// that the float type holds (for int32 up to 2^31 - 128, the largest float32 below 2^31; float16
// is widened first so that ±Inf reach the int32 limits), truncated (ceil below 0, floor above),
// NaN replaced by 0, then cast; for int32, x >= 2^31 becomes INT32_MAX after the cast.
std::string float_to_int(Emitter& e, std::string x, mil::DataType to, const std::string& dest) {
  if (to == mil::INT32) x = e.cast(x, mil::FLOAT32);
  const MilType t = e.type_of(x);
  double lo = 0, hi = 255;
  if (to == mil::INT32) {
    lo = -2147483648.0;
    hi = 2147483520.0;
  } else if (to == mil::INT8) {
    lo = -128;
    hi = 127;
  }
  const std::string zero = scalar_of(e, t.type, 0);
  const std::string clipped =
      e.op("clip",
           {{"x", x}, {"alpha", scalar_of(e, t.type, lo)}, {"beta", scalar_of(e, t.type, hi)}}, t);
  const std::string truncated =
      select_of(e, compare(e, "less", clipped, zero), unary_op(e, "ceil", clipped),
                unary_op(e, "floor", clipped));
  const std::string finite = select_of(e, compare(e, "equal", x, x), truncated, zero);
  if (to != mil::INT32) return cast_into(e, finite, to, dest);
  const std::string big = compare(e, "greater_equal", x, scalar_of(e, t.type, 2147483648.0));
  return select_of(e, big, scalar_of(e, mil::INT32, 2147483647), e.cast(finite, mil::INT32), dest);
}

}  // namespace

bool lowers_elementwise_unary(const Graph&, const Operation&) {
  return true;
}

// cast (row 4, table §3.6; see the file comment): a same-type cast is an identity.
void lower_cast(Emitter& e, const Operation& op, const AttrsOf<OpType::kCast>&) {
  const std::string& x = in(e, op, 0);
  const std::string& dest = out_name(e, op);
  const mil::DataType from = e.type_of(x).type, to = out_type(e, op).type;
  if (from == to) {
    copy_into(e, x, dest);
  } else if (is_float_type(from) && !is_float_type(to)) {
    float_to_int(e, x, to, dest);
  } else if (from == mil::INT32 && to == mil::FLOAT16) {
    cast_into(e, e.cast(x, mil::FLOAT32), to, dest);
  } else if (!is_float_type(from) && is_8bit_type(to)) {
    wrap_to_8bit(e, e.cast(x, mil::INT32), to, dest);
  } else {
    cast_into(e, x, to, dest);  // float <-> float, 8-bit -> int32 or float, int32 -> float32
  }
}

// logicalNot (row 23): 1 where the uint8 input is 0.
void lower_logicalNot(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalNot>&) {
  const std::string zero =
      compare(e, "equal", e.cast(in(e, op, 0), mil::INT32), scalar_of(e, mil::INT32, 0));
  uint8_of(e, zero, out_name(e, op));
}

// isNaN (row 27): x != x, the one value unequal to itself.
void lower_isNaN(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsNaN>&) {
  const std::string& x = in(e, op, 0);
  uint8_of(e, compare(e, "not_equal", x, x), out_name(e, op));
}

// isInfinite (row 28): |x| == +Inf (NaN gives 0).
void lower_isInfinite(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsInfinite>&) {
  const std::string& x = in(e, op, 0);
  const std::string inf = scalar_of(e, e.type_of(x).type, std::numeric_limits<double>::infinity());
  uint8_of(e, compare(e, "equal", unary_op(e, "abs", x), inf), out_name(e, op));
}

// abs (row 29): MIL abs for floats (clears the sign, NaN stays NaN); abs_int32 for integers.
void lower_abs(Emitter& e, const Operation& op, const AttrsOf<OpType::kAbs>&) {
  numeric(e, op, true, [&](const std::string& x, const std::string& d) {
    if (is_float_type(e.type_of(x).type)) return unary_op(e, "abs", x, d);
    return abs_int32(e, x, d);
  });
}

// ceil (row 30): MIL ceil (exact; ceil(-0.5) = -0).
void lower_ceil(Emitter& e, const Operation& op, const AttrsOf<OpType::kCeil>&) {
  unary(e, op, "ceil");
}

// cos, erf, exp (rows 31-33).
void lower_cos(Emitter& e, const Operation& op, const AttrsOf<OpType::kCos>&) {
  unary(e, op, "cos");
}

void lower_erf(Emitter& e, const Operation& op, const AttrsOf<OpType::kErf>&) {
  unary(e, op, "erf");
}

void lower_exp(Emitter& e, const Operation& op, const AttrsOf<OpType::kExp>&) {
  unary(e, op, "exp");
}

// floor (row 34): MIL floor (exact).
void lower_floor(Emitter& e, const Operation& op, const AttrsOf<OpType::kFloor>&) {
  unary(e, op, "floor");
}

// identity (row 35): a copy for every type.
void lower_identity(Emitter& e, const Operation& op, const AttrsOf<OpType::kIdentity>&) {
  copy_into(e, in(e, op, 0), out_name(e, op));
}

// log (row 36): MIL log with epsilon 0 (log(0) = -Inf, log(x < 0) = NaN).
void lower_log(Emitter& e, const Operation& op, const AttrsOf<OpType::kLog>&) {
  const std::string& x = in(e, op, 0);
  e.op_to("log", {{"x", x}, {"epsilon", scalar_of(e, e.type_of(x).type, 0)}}, op.outputs[0]);
}

// neg (row 37): x · -1 for floats (exact; neg(0) = -0); negate_int32 for integers.
void lower_neg(Emitter& e, const Operation& op, const AttrsOf<OpType::kNeg>&) {
  numeric(e, op, true, [&](const std::string& x, const std::string& d) {
    if (is_float_type(e.type_of(x).type))
      return arith(e, "mul", x, scalar_of(e, e.type_of(x).type, -1), d);
    return negate_int32(e, x, d);
  });
}

// reciprocal (row 38): real_div(1, x), rounded once (1/±0 = ±Inf).
void lower_reciprocal(Emitter& e, const Operation& op, const AttrsOf<OpType::kReciprocal>&) {
  const std::string& x = in(e, op, 0);
  e.op_to("real_div", {{"x", scalar_of(e, e.type_of(x).type, 1)}, {"y", x}}, op.outputs[0]);
}

// roundEven (row 39): round_half_even.
void lower_roundEven(Emitter& e, const Operation& op, const AttrsOf<OpType::kRoundEven>&) {
  round_half_even(e, in(e, op, 0), out_name(e, op));
}

// sin (row 40).
void lower_sin(Emitter& e, const Operation& op, const AttrsOf<OpType::kSin>&) {
  unary(e, op, "sin");
}

// sign (row 41): x > 0 ? 1 : (x < 0 ? -1 : x), keeping ±0 and NaN; integers give -1/0/1.
void lower_sign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSign>&) {
  numeric(e, op, false, [&](const std::string& x, const std::string& d) {
    const mil::DataType t = e.type_of(x).type;
    const std::string zero = scalar_of(e, t, 0);
    const std::string negative = select_of(e, compare(e, "less", x, zero), scalar_of(e, t, -1), x);
    return select_of(e, compare(e, "greater", x, zero), scalar_of(e, t, 1), negative, d);
  });
}

// sqrt (row 42): MIL sqrt (sqrt(-0) = -0, negative inputs give NaN).
void lower_sqrt(Emitter& e, const Operation& op, const AttrsOf<OpType::kSqrt>&) {
  unary(e, op, "sqrt");
}

// tan (row 43): MIL tan, in float32 for float16.
void lower_tan(Emitter& e, const Operation& op, const AttrsOf<OpType::kTan>&) {
  const std::string& x = in(e, op, 0);
  if (e.type_of(x).type == mil::FLOAT32) {
    unary(e, op, "tan");
    return;
  }
  cast_into(e, unary_op(e, "tan", e.cast(x, mil::FLOAT32)), mil::FLOAT16, out_name(e, op));
}

}  // namespace cppnn::coreml_export
