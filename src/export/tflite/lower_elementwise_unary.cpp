// TFLite lowerings of the elementwise unary ops and cast (lower.h; webnn-spec.md §2 rows 4, 23,
// 27-43; the cast table of §3.6 with the reference's choices for what it leaves open).
//
// - abs, ceil, cos, floor, log, sign, sin, sqrt: the builtin of the same name (float32, float16
//   computed in float32; ABS and SIGN for int32 too). roundEven: ROUND (halves to even). exp: EXP,
//   with NaN selected back in (XNNPACK's exp turns NaN into 0). neg: MUL by -1 for floats
//   (exact, neg(0) = -0, which XNNPACK's NEG loses), NEG for integers (wrapping). reciprocal:
//   DIV(1, x). tan: SIN / COS in float32. The float arithmetic is kept within XNNPACK's 6
//   dimensions (the builtin MUL/DIV clamp infinities to +-FLT_MAX).
// - erf has no builtin: erf(z) = 2 · gelu(√2 z) / (√2 z) - 1 with TFLite's exact GELU (absolute
//   error about 4e-7; WPT's tolerance is 1/1024), z clamped to ±10 (erf is ±1 there in float32)
//   and |z| < 1e-4 as 2z/√π (XNNPACK flushes subnormals, and 2·Φ - 1 cancels).
// - 8-bit and int64 forms: abs of int8 in int32 (ABS takes int8 only quantized) wrapped back,
//   abs of int64 as max(x, -x) (wrapping NEG), sign of int8/int64 as min(max(x, -1), 1).
// - logicalNot: CAST to BOOL (x != 0), LOGICAL_NOT, CAST to uint8. isNaN: x != x. isInfinite:
//   |x| == +Inf. identity: the input's tensor itself.
// - cast: integer -> integer keeps the low bits (CAST; uint64 through BITCAST to int64); float ->
//   integer truncates, saturates and maps NaN to 0 (CAST after NaN is replaced by 0; float ->
//   uint64 in int64 around 2^63, float_to_uint64); integer -> float rounds once (CAST; uint64 by
//   uint64_to_float); a cast to float16 rounds to float16 (CAST to FLOAT16 and back: float16 data
//   is carried in float32) and float16 -> float32 is exact.
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_elementwise_util.h"

namespace cppnn::tflite_export {
namespace {

using namespace ew;  // NOLINT(google-build-using-namespace): this family's own helpers

TensorIndex in(const Emitter& e, const Operation& op) {
  return e.value(op.inputs[0]);
}
DT type_of(const Emitter& e, const Operation& op) {
  return data_type_of(e.graph(), op.inputs[0]);
}

// `fn(x)` on float `x` flattened to one dimension where x has more than XNNPACK's 6 (so that the
// float arithmetic stays delegated), the result reshaped back.
template <class Fn>
TensorIndex flat(Emitter& e, TensorIndex x, Fn fn) {
  const std::vector<int32_t> shape = e.shape_of(x);
  if (shape.size() <= kXnnpackMaxRank) return fn(x);
  int32_t n = 1;
  for (int32_t d : shape) n *= d;
  return reshaped(e, fn(reshaped(e, x, {n})), shape);
}

// The builtin unary `code` of the input into the output.
void unary(Emitter& e, const Operation& op, Op code) {
  bind_output(e, op, un(e, code, in(e, op)));
}

// Float `x` with NaN replaced by 0.
TensorIndex nan_to_zero(Emitter& e, TensorIndex x) {
  return select(e, is_nan(e, x), f32_scalar(e, 0), x);
}

// Float32 `x` rounded to float16 and carried in float32 (CAST there and back; exact for the
// values float16 holds, ±Inf past 65504).
TensorIndex round_to_float16(Emitter& e, TensorIndex x) {
  return e.cast(e.cast(x, TT::FLOAT16), TT::FLOAT32);
}

// Float32 `x` -> uint64 (§3.6 as the reference: truncated, NaN and negatives 0, saturated at
// 2^64 - 1), in int64: values from 2^63 on are cast as x - 2^63 and moved back by adding -2^63
// (wrapping), the others cast after max(x, 0); CAST truncates and saturates.
TensorIndex float_to_uint64(Emitter& e, TensorIndex x) {
  const TensorIndex clean = nan_to_zero(e, x);
  const TensorIndex two63 = f32_scalar(e, 9223372036854775808.0);
  const TensorIndex high = bin(e, Op::GREATER_EQUAL, clean, two63);
  const TensorIndex v =
      select(e, high, bin(e, Op::SUB, clean, two63), bin(e, Op::MAXIMUM, clean, f32_scalar(e, 0)));
  const TensorIndex c = e.cast(v, TT::INT64);
  const TensorIndex moved =
      select(e, high, bin(e, Op::ADD, c, int_scalar(e, TT::INT64, INT64_MIN)), c);
  return bitcast(e, moved, TT::UINT64);
}

// uint64 `x` -> float32 rounded once to nearest even. Below 2^63 (non-negative as int64) CAST
// does it. From 2^63 on, float32's spacing is 2^40: the value without its low 40 bits, k · 2^40,
// converts exactly (as int64 it is k · 2^40 - 2^64, with at most 24 significant bits, and + 2^64
// is exact again); it moves up by 2^40 where the low 40 bits pass 2^39, or equal it with k odd.
TensorIndex uint64_to_float(Emitter& e, TensorIndex x) {
  const TensorIndex i = bitcast(e, x, TT::INT64);
  const TensorIndex direct = e.cast(i, TT::FLOAT32);
  const TensorIndex half = int_scalar(e, TT::INT64, int64_t{1} << 39);
  const TensorIndex rest = bin(e, Op::FLOOR_MOD, i, int_scalar(e, TT::INT64, int64_t{1} << 40));
  const TensorIndex base = bin(e, Op::ADD, e.cast(bin(e, Op::SUB, i, rest), TT::FLOAT32),
                               f32_scalar(e, 18446744073709551616.0));
  const TensorIndex odd = bin(e, Op::GREATER_EQUAL,
                              bin(e, Op::FLOOR_MOD, i, int_scalar(e, TT::INT64, int64_t{1} << 41)),
                              int_scalar(e, TT::INT64, int64_t{1} << 40));
  const TensorIndex up = bin(e, Op::LOGICAL_OR, bin(e, Op::GREATER, rest, half),
                             bin(e, Op::LOGICAL_AND, bin(e, Op::EQUAL, rest, half), odd));
  const TensorIndex big =
      select(e, up, bin(e, Op::ADD, base, f32_scalar(e, 1099511627776.0)), base);
  return select(e, bin(e, Op::LESS, i, int_scalar(e, TT::INT64, 0)), big, direct);
}

// `x` of WebNN type `from` as float32: itself for floats, CAST for integers (uint64_to_float).
TensorIndex to_float32(Emitter& e, TensorIndex x, DT from) {
  if (is_float(from)) return x;
  if (from == DT::kUint64) return uint64_to_float(e, x);
  return e.cast(x, TT::FLOAT32);
}

}  // namespace

// Every op of this family for every type its limits allow.
bool lowers_elementwise_unary(const Graph& graph, const Operation& op) {
  const DT t = data_type_of(graph, op.inputs[0]);
  if (t == DT::kInt4 || t == DT::kUint4) return false;
  switch (op.type) {
    case OpType::kCast:
    case OpType::kIdentity:
      return true;
    case OpType::kLogicalNot:
      return t == DT::kUint8;
    case OpType::kAbs:
    case OpType::kNeg:
    case OpType::kSign:
      return is_float(t) || t == DT::kInt8 || t == DT::kInt32 || t == DT::kInt64;
    default:
      return is_float(t);
  }
}

// cast (row 4, table §3.6; see the file comment).
void lower_cast(Emitter& e, const Operation& op, const AttrsOf<OpType::kCast>&) {
  const DT from = type_of(e, op), to = e.graph().descriptor(op.outputs[0]).dataType;
  const TensorIndex x = in(e, op);
  if (from == to || (from == DT::kFloat16 && to == DT::kFloat32)) {
    bind_output(e, op, x);
  } else if (to == DT::kFloat16) {
    bind_output(e, op, round_to_float16(e, to_float32(e, x, from)));
  } else if (to == DT::kFloat32) {
    bind_output(e, op, to_float32(e, x, from));
  } else if (is_float(from)) {
    bind_output(
        e, op,
        to == DT::kUint64 ? float_to_uint64(e, x) : e.cast(nan_to_zero(e, x), compute_type_of(to)));
  } else {
    bind_output(e, op, int_convert(e, x, compute_type_of(to)));
  }
}

// logicalNot (row 23): 1 where the uint8 input is 0.
void lower_logicalNot(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalNot>&) {
  bind_output(e, op, uint8_of(e, un(e, Op::LOGICAL_NOT, truth(e, in(e, op)))));
}

// isNaN (row 27): x != x.
void lower_isNaN(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsNaN>&) {
  bind_output(e, op, uint8_of(e, is_nan(e, in(e, op))));
}

// isInfinite (row 28): |x| == +Inf (NaN gives 0).
void lower_isInfinite(Emitter& e, const Operation& op, const AttrsOf<OpType::kIsInfinite>&) {
  const TensorIndex inf = f32_scalar(e, std::numeric_limits<double>::infinity());
  bind_output(e, op, uint8_of(e, bin(e, Op::EQUAL, un(e, Op::ABS, in(e, op)), inf)));
}

// abs (row 29): ABS for floats (clears the sign, NaN kept) and int32 (ABS(INT_MIN) = INT_MIN, the
// reference's wrap); int8 in int32 wrapped back; int64 as max(x, NEG(x)).
void lower_abs(Emitter& e, const Operation& op, const AttrsOf<OpType::kAbs>&) {
  const DT t = type_of(e, op);
  const TensorIndex x = in(e, op);
  if (t == DT::kInt8)
    bind_output(e, op, e.cast(un(e, Op::ABS, e.cast(x, TT::INT32)), TT::INT8));
  else if (t == DT::kInt64)
    bind_output(e, op, bin(e, Op::MAXIMUM, x, un(e, Op::NEG, x)));
  else
    unary(e, op, Op::ABS);
}

// ceil (row 30): CEIL (exact; ceil(-0.5) = -0).
void lower_ceil(Emitter& e, const Operation& op, const AttrsOf<OpType::kCeil>&) {
  unary(e, op, Op::CEIL);
}

// cos (row 31).
void lower_cos(Emitter& e, const Operation& op, const AttrsOf<OpType::kCos>&) {
  unary(e, op, Op::COS);
}

// erf (row 32): through GELU (see the file comment).
void lower_erf(Emitter& e, const Operation& op, const AttrsOf<OpType::kErf>&) {
  const TensorIndex x = in(e, op);
  const TensorIndex z =
      bin(e, Op::MINIMUM, bin(e, Op::MAXIMUM, x, f32_scalar(e, -10)), f32_scalar(e, 10));
  const TensorIndex w = bin(e, Op::MUL, z, f32_scalar(e, std::numbers::sqrt2));
  const TensorIndex phi = bin(e, Op::DIV, un(e, Op::GELU, w), w);
  const TensorIndex erf = bin(e, Op::SUB, bin(e, Op::ADD, phi, phi), f32_scalar(e, 1));
  const TensorIndex small = bin(e, Op::MUL, x, f32_scalar(e, 2 * std::numbers::inv_sqrtpi));
  const TensorIndex large = bin(e, Op::GREATER_EQUAL, un(e, Op::ABS, x), f32_scalar(e, 1e-4));
  bind_output(e, op, select(e, large, erf, small));  // NaN fails the test: x · 2/√π is NaN
}

// exp (row 33): EXP, NaN kept.
void lower_exp(Emitter& e, const Operation& op, const AttrsOf<OpType::kExp>&) {
  const TensorIndex x = in(e, op);
  bind_output(e, op, select(e, is_nan(e, x), x, un(e, Op::EXP, x)));
}

// floor (row 34): FLOOR (exact).
void lower_floor(Emitter& e, const Operation& op, const AttrsOf<OpType::kFloor>&) {
  unary(e, op, Op::FLOOR);
}

// identity (row 35): the input's tensor.
void lower_identity(Emitter& e, const Operation& op, const AttrsOf<OpType::kIdentity>&) {
  bind_output(e, op, in(e, op));
}

// log (row 36): LOG (log(0) = -Inf, log(x < 0) = NaN).
void lower_log(Emitter& e, const Operation& op, const AttrsOf<OpType::kLog>&) {
  unary(e, op, Op::LOG);
}

// neg (row 37): x · -1 for floats; NEG for int8/int32/int64 (NEG(MIN) = MIN, wrapping).
void lower_neg(Emitter& e, const Operation& op, const AttrsOf<OpType::kNeg>&) {
  const TensorIndex x = in(e, op);
  if (!is_float(type_of(e, op))) {
    unary(e, op, Op::NEG);
    return;
  }
  bind_output(e, op,
              flat(e, x, [&](TensorIndex v) { return bin(e, Op::MUL, v, f32_scalar(e, -1)); }));
}

// reciprocal (row 38): DIV(1, x), rounded once (1/±0 = ±Inf).
void lower_reciprocal(Emitter& e, const Operation& op, const AttrsOf<OpType::kReciprocal>&) {
  bind_output(e, op, flat(e, in(e, op), [&](TensorIndex v) {
                return bin(e, Op::DIV, f32_scalar(e, 1), v);
              }));
}

// roundEven (row 39): ROUND, which rounds halves to even.
void lower_roundEven(Emitter& e, const Operation& op, const AttrsOf<OpType::kRoundEven>&) {
  unary(e, op, Op::ROUND);
}

// sin (row 40).
void lower_sin(Emitter& e, const Operation& op, const AttrsOf<OpType::kSin>&) {
  unary(e, op, Op::SIN);
}

// sign (row 41): SIGN for floats (±Inf -> ±1, NaN kept; -0 gives +0) and int32; int8 and int64
// as min(max(x, -1), 1).
void lower_sign(Emitter& e, const Operation& op, const AttrsOf<OpType::kSign>&) {
  const DT t = type_of(e, op);
  if (is_float(t) || t == DT::kInt32) {
    unary(e, op, Op::SIGN);
    return;
  }
  const TT ct = compute_type_of(t);
  const TensorIndex x = in(e, op);
  bind_output(
      e, op,
      bin(e, Op::MINIMUM, bin(e, Op::MAXIMUM, x, int_scalar(e, ct, -1)), int_scalar(e, ct, 1)));
}

// sqrt (row 42): SQRT (sqrt(-0) = -0, negative inputs give NaN).
void lower_sqrt(Emitter& e, const Operation& op, const AttrsOf<OpType::kSqrt>&) {
  unary(e, op, Op::SQRT);
}

// tan (row 43): SIN / COS.
void lower_tan(Emitter& e, const Operation& op, const AttrsOf<OpType::kTan>&) {
  bind_output(e, op, flat(e, in(e, op), [&](TensorIndex v) {
                return bin(e, Op::DIV, un(e, Op::SIN, v), un(e, Op::COS, v));
              }));
}

}  // namespace cppnn::tflite_export
