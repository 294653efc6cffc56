// TFLite lowerings of the elementwise binary ops (lower.h; webnn-spec.md §2 rows 10-22, 24-26),
// with TFLite's (numpy's) broadcasting, which is WebNN's bidirectional broadcasting (up to rank 8).
//
// - float32/float16 (computed in float32): ADD, SUB, MUL, DIV, POW; within XNNPACK's 6
//   dimensions (coalesced) so that infinities survive (the builtin kernels clamp to +-FLT_MAX).
//   max/min: MAXIMUM/MINIMUM, then NaN from either side selected in (TFLite's and XNNPACK's
//   MAXIMUM/MINIMUM keep one side's NaN only, which side depending on the broadcast), skipped for
//   a constant side without NaN.
// - Integers wrap like the reference (two's complement): add/sub/mul/pow run in int32 for
//   int8/uint8 (widened) and uint32 (its bits), int64 for int64 and uint64 (its bits), and keep
//   the low bits. div truncates toward zero (#909) with x / 0 = 0 and MIN / -1 = MIN (the
//   reference's choices): DIV for int32 (int8/uint8 widened), an exact division built on
//   FLOOR_MOD for int64 and uint32 (int64_div), uint64 from it (uint64_div). pow:
//   square-and-multiply over the exponent's bits (int_pow; TFLite's POW refuses negative int32
//   exponents and does not wrap). max/min: MAXIMUM/MINIMUM (uint32 in int64, uint64 shifted by
//   -2^63).
// - Comparisons: the TFLite comparison of the same meaning (8-bit data in int32, uint32 in int64,
//   uint64 shifted by -2^63), BOOL cast to WebNN's uint8 0/1 (NaN compares false, notEqual true).
// - logicalAnd/Or/Xor: uint8 made BOOL by CAST (nonzero is true), LOGICAL_AND / LOGICAL_OR /
//   NOT_EQUAL, cast to uint8.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_elementwise_util.h"

namespace cppnn::tflite_export {
namespace {

using namespace ew;  // NOLINT(google-build-using-namespace): this family's own helpers

// Input `i`'s tensor and the WebNN type of input 0.
TensorIndex in(const Emitter& e, const Operation& op, size_t i) {
  return e.value(op.inputs[i]);
}
DT type_of(const Emitter& e, const Operation& op) {
  return data_type_of(e.graph(), op.inputs[0]);
}

// Whether tensor `x` may hold the integer `v`: a constant only where one of its elements is `v`,
// any other tensor may.
bool may_hold(const Emitter& e, TensorIndex x, int64_t v) {
  if (!e.is_constant(x)) return true;
  const std::vector<int64_t> values = int_values(e, x);
  return std::find(values.begin(), values.end(), v) != values.end();
}

// add, sub, mul: the float builtin, or the integer builtin in wrap_type_of (low bits kept).
void wrapping(Emitter& e, const Operation& op, Op code) {
  const DT t = type_of(e, op);
  if (is_float(t)) {
    bind_output(e, op, coalesced(e, code, in(e, op, 0), in(e, op, 1)));
    return;
  }
  const TT w = wrap_type_of(t);
  const TensorIndex r =
      bin(e, code, int_convert(e, in(e, op, 0), w), int_convert(e, in(e, op, 1), w));
  bind_output(e, op, int_convert(e, r, compute_type_of(t)));
}

// int32 x / y truncated toward zero by DIV, with x / 0 = 0 and (when `min_fix`) INT_MIN / -1 =
// INT_MIN (DIV errs on 0 and gives INT_MAX there): zero divisors are replaced by 1 and their
// results by 0, results of -1 divisors by NEG (wrapping). Each fix is left out for a constant
// divisor without that value.
TensorIndex int32_div(Emitter& e, TensorIndex x, TensorIndex y, bool min_fix) {
  const bool zero = may_hold(e, y, 0), minus_one = min_fix && may_hold(e, y, -1);
  TensorIndex divisor = y, zero_mask = kOmitted;
  if (zero) {
    zero_mask = bin(e, Op::EQUAL, y, int_scalar(e, TT::INT32, 0));
    divisor = select(e, zero_mask, int_scalar(e, TT::INT32, 1), y);
  }
  TensorIndex q = bin(e, Op::DIV, x, divisor);
  if (minus_one)
    q = select(e, bin(e, Op::EQUAL, y, int_scalar(e, TT::INT32, -1)), un(e, Op::NEG, x), q);
  if (zero) q = select(e, zero_mask, int_scalar(e, TT::INT32, 0), q);
  return q;
}

// int64 x / y truncated toward zero, exactly (TFLite has no int64 DIV or FLOOR_DIV): the
// truncated remainder r (from FLOOR_MOD, moved by one divisor where x and y differ in sign)
// makes n = x - r an exact multiple of y with |n| <= |x|; n / y is then estimated in float32
// (CAST, DIV, ROUND) and corrected `corrections` times by the float32 quotient of the exact
// residue n - q * y (int64, wrapping, whose true value is small): each step leaves at most
// 2^-22 of the previous error, so 2 corrections reach the exact quotient for |q| < 2^63 and 1
// for |q| < 2^33. x / 0 = 0, and for `is_signed` x / -1 = -x (NEG, wrapping: MIN / -1 = MIN):
// 0 and -1 divisors are replaced by 1 before FLOOR_MOD (x % 0 errs, MIN % -1 traps), unless the
// caller knows the divisor is `positive_divisor`.
TensorIndex int64_div(Emitter& e, TensorIndex x, TensorIndex y, bool is_signed, int corrections,
                      bool positive_divisor = false) {
  const TensorIndex zero64 = int_scalar(e, TT::INT64, 0), one64 = int_scalar(e, TT::INT64, 1);
  const bool zero = !positive_divisor && may_hold(e, y, 0);
  const bool minus_one = !positive_divisor && is_signed && may_hold(e, y, -1);
  TensorIndex zero_mask = kOmitted, minus_one_mask = kOmitted, replace = kOmitted;
  if (zero) replace = zero_mask = bin(e, Op::EQUAL, y, zero64);
  if (minus_one) {
    minus_one_mask = bin(e, Op::EQUAL, y, int_scalar(e, TT::INT64, -1));
    replace = zero ? bin(e, Op::LOGICAL_OR, zero_mask, minus_one_mask) : minus_one_mask;
  }
  const TensorIndex d = replace == kOmitted ? y : select(e, replace, one64, y);
  TensorIndex r = bin(e, Op::FLOOR_MOD, x, d);
  if (is_signed) {
    const TensorIndex differ =
        bin(e, Op::NOT_EQUAL, bin(e, Op::LESS, x, zero64), bin(e, Op::LESS, d, zero64));
    const TensorIndex adjust = bin(e, Op::LOGICAL_AND, bin(e, Op::NOT_EQUAL, r, zero64), differ);
    r = select(e, adjust, bin(e, Op::SUB, r, d), r);
  }
  const TensorIndex n = bin(e, Op::SUB, x, r);
  const TensorIndex fd = e.cast(d, TT::FLOAT32);
  auto estimate = [&](TensorIndex v) {
    const TensorIndex f = bin(e, Op::DIV, e.cast(v, TT::FLOAT32), fd);
    return e.cast(un(e, Op::ROUND, f), TT::INT64);
  };
  TensorIndex q = estimate(n);
  for (int k = 0; k < corrections; ++k)
    q = bin(e, Op::ADD, q, estimate(bin(e, Op::SUB, n, bin(e, Op::MUL, q, d))));
  if (minus_one) q = select(e, minus_one_mask, un(e, Op::NEG, x), q);
  if (zero) q = select(e, zero_mask, zero64, q);
  return q;
}

// uint64 x / y (in their int64 bits; x / 0 = 0) from int64_div on non-negative values. A divisor
// from 2^63 on gives x >= y (compared with the top bits flipped). A smaller divisor d divides the
// low 63 bits of x, x' (q1, remainder r1); where x has its top bit, x = 2^63 + x', and with 2^63 =
// Q0 · d + R0 (from INT64_MAX = Q0' · d + R0', one more) the quotient is Q0 + q1 plus 1 where
// R0 + r1 >= d (compared as R0 >= d - r1, within int64).
TensorIndex uint64_div(Emitter& e, TensorIndex x, TensorIndex y) {
  const TensorIndex zero = int_scalar(e, TT::INT64, 0), one = int_scalar(e, TT::INT64, 1);
  const TensorIndex min = int_scalar(e, TT::INT64, INT64_MIN);
  const TensorIndex zero_mask = bin(e, Op::EQUAL, y, zero);
  const TensorIndex big = bin(e, Op::LESS, y, zero);
  const TensorIndex q_big = e.cast(
      bin(e, Op::GREATER_EQUAL, bin(e, Op::ADD, x, min), bin(e, Op::ADD, y, min)), TT::INT64);
  const TensorIndex d = select(e, bin(e, Op::LOGICAL_OR, zero_mask, big), one, y);
  const TensorIndex top = bin(e, Op::LESS, x, zero);
  const TensorIndex low = select(e, top, bin(e, Op::ADD, x, min), x);
  const TensorIndex q1 = int64_div(e, low, d, false, 2, true);
  const TensorIndex r1 = bin(e, Op::SUB, low, bin(e, Op::MUL, q1, d));
  const TensorIndex q0p = int64_div(e, int_scalar(e, TT::INT64, INT64_MAX), d, false, 2, true);
  const TensorIndex r0p1 =
      bin(e, Op::SUB, bin(e, Op::SUB, int_scalar(e, TT::INT64, INT64_MAX), bin(e, Op::MUL, q0p, d)),
          int_scalar(e, TT::INT64, -1));  // R0' + 1, in [1, d]
  const TensorIndex carry = bin(e, Op::EQUAL, r0p1, d);
  const TensorIndex q0 = bin(e, Op::ADD, q0p, e.cast(carry, TT::INT64));
  const TensorIndex r0 = select(e, carry, zero, r0p1);
  const TensorIndex extra =
      e.cast(bin(e, Op::GREATER_EQUAL, r0, bin(e, Op::SUB, d, r1)), TT::INT64);
  const TensorIndex q_top = bin(e, Op::ADD, bin(e, Op::ADD, q0, q1), extra);
  const TensorIndex q_small = select(e, top, q_top, q1);
  return select(e, zero_mask, zero, select(e, big, q_big, q_small));
}

// BOOL constant of `shape`: element i is pred(i).
template <class Pred>
TensorIndex bool_constant(Emitter& e, const std::vector<int32_t>& shape, size_t n, Pred pred) {
  std::vector<std::byte> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = std::byte{pred(i) ? uint8_t{1} : uint8_t{0}};
  return e.constant(TT::BOOL, shape, std::move(bytes));
}

// The number of exponent bits int_pow runs over for a non-constant exponent of WebNN type `t`
// (its non-negative range; for uint64 the bits below its top bit, which is taken apart).
int exponent_bits(DT t) {
  switch (t) {
    case DT::kInt8:
      return 7;
    case DT::kUint8:
      return 8;
    case DT::kInt32:
      return 31;
    case DT::kUint32:
      return 32;
    case DT::kInt64:
      return 63;
    default:
      return 63;  // uint64
  }
}

// The BOOL masks "bit k of the exponent is set" for k = 0.., for a non-constant exponent `y` of
// WebNN type `t` (in int32 for 8-bit and int32 data, int64 otherwise): negative signed exponents
// count as 0; for bits below the top, FLOOR_MOD(e, 2^(k+1)) >= 2^k; the top bit is e >= 2^k;
// uint64's bit 63 is its sign bit in int64, cleared before the others.
std::vector<TensorIndex> exponent_masks(Emitter& e, TensorIndex y, DT t) {
  const bool wide = t == DT::kUint32 || t == DT::kInt64 || t == DT::kUint64;
  const TT et = wide ? TT::INT64 : TT::INT32;
  TensorIndex v = int_convert(e, y, et);
  const TensorIndex zero = int_scalar(e, et, 0);
  TensorIndex top = kOmitted;
  if (t == DT::kInt8 || t == DT::kInt32 || t == DT::kInt64) v = bin(e, Op::MAXIMUM, v, zero);
  if (t == DT::kUint64) {
    top = bin(e, Op::LESS, v, zero);
    v = select(e, top, bin(e, Op::ADD, v, int_scalar(e, et, INT64_MIN)), v);
  }
  const int bits = exponent_bits(t);
  std::vector<TensorIndex> masks;
  for (int k = 0; k < bits; ++k) {
    const TensorIndex bit = int_scalar(e, et, int64_t{1} << k);
    const TensorIndex low =
        k + 1 < bits ? bin(e, Op::FLOOR_MOD, v, int_scalar(e, et, int64_t{1} << (k + 1))) : v;
    masks.push_back(bin(e, Op::GREATER_EQUAL, low, bit));
  }
  if (top != kOmitted) masks.push_back(top);
  return masks;
}

// int x^y of WebNN type `t` as the reference: square-and-multiply in wrap_type_of(t) (the low
// bits of every product are exact under wrapping), then for signed types the negative exponents:
// 1 for x = 1, (-1)^y for x = -1, else 0 (1 / x^|y| truncated; 0 for x = 0 too). A constant
// exponent gives its bit masks (and its signs) as constants, and a uniform non-negative one a
// plain chain of MULs.
TensorIndex int_pow(Emitter& e, TensorIndex a, TensorIndex b, DT t) {
  const TT w = wrap_type_of(t);
  const bool is_signed = t == DT::kInt8 || t == DT::kInt32 || t == DT::kInt64;
  const TensorIndex x = int_convert(e, a, w);
  const std::vector<int32_t> out = broadcast_shape(e.shape_of(a), e.shape_of(b));
  const TensorIndex one = int_scalar(e, w, 1);
  std::vector<TensorIndex> masks;  // per bit; kOmitted: set everywhere
  std::vector<bool> used;          // per bit: whether any element has it
  TensorIndex negative = kOmitted, odd = kOmitted;
  if (e.is_constant(b)) {
    std::vector<int64_t> v = int_values(e, b);
    bool any_negative = false;
    uint64_t all = 0, uniform = v.empty() ? 0 : static_cast<uint64_t>(v[0]);
    bool same = true;
    for (int64_t& s : v) {
      if (is_signed && s < 0) {
        any_negative = true;
        s = 0;
      }
      all |= static_cast<uint64_t>(s);
      same = same && static_cast<uint64_t>(s) == uniform;
    }
    same = same && !any_negative;
    for (int k = 0; k < 64 && (all >> k) != 0; ++k) {
      const uint64_t bit = uint64_t{1} << k;
      used.push_back((all & bit) != 0);
      masks.push_back(same ? kOmitted : bool_constant(e, e.shape_of(b), v.size(), [&](size_t i) {
        return (static_cast<uint64_t>(v[i]) & bit) != 0;
      }));
    }
    if (any_negative) {
      const std::vector<int64_t> raw = int_values(e, b);
      negative = bool_constant(e, e.shape_of(b), raw.size(), [&](size_t i) { return raw[i] < 0; });
      odd = bool_constant(e, e.shape_of(b), raw.size(), [&](size_t i) { return raw[i] % 2 != 0; });
    }
  } else {
    masks = exponent_masks(e, b, t);
    used.assign(masks.size(), true);
    if (is_signed) {
      const TT et = t == DT::kInt64 ? TT::INT64 : TT::INT32;
      const TensorIndex y = int_convert(e, b, et);
      negative = bin(e, Op::LESS, y, int_scalar(e, et, 0));
      odd = bin(e, Op::EQUAL, bin(e, Op::FLOOR_MOD, y, int_scalar(e, et, 2)), int_scalar(e, et, 1));
    }
  }
  TensorIndex result = kOmitted, base = x;
  for (size_t k = 0; k < masks.size(); ++k) {
    if (used[k]) {
      const TensorIndex factor = masks[k] == kOmitted ? base : select(e, masks[k], base, one);
      result = result == kOmitted ? factor : bin(e, Op::MUL, result, factor);
    }
    if (k + 1 < masks.size()) base = bin(e, Op::MUL, base, base);
  }
  if (result == kOmitted)  // x^0 = 1, written by operators (x · 0 + 1) rather than a constant
    result = bin(e, Op::ADD, bin(e, Op::MUL, x, int_scalar(e, w, 0)), one);
  if (e.shape_of(result) != out)  // a uniform chain narrower than the exponent's broadcast
    result = bin(e, Op::MUL, result, e.scalar(w, 1, out));
  if (negative != kOmitted) {
    const TensorIndex minus_one = int_scalar(e, w, -1), zero = int_scalar(e, w, 0);
    const TensorIndex sign = select(e, odd, minus_one, one);
    const TensorIndex below = select(e, bin(e, Op::EQUAL, x, minus_one), sign,
                                     select(e, bin(e, Op::EQUAL, x, one), one, zero));
    result = select(e, negative, below, result);
  }
  return int_convert(e, result, compute_type_of(t));
}

// max (MAXIMUM) or min (MINIMUM): floats with NaN from either side selected in; integers in
// their order-keeping type (8-bit, int32 and int64 natively).
void extreme(Emitter& e, const Operation& op, Op code) {
  const DT t = type_of(e, op);
  const TensorIndex a = in(e, op, 0), b = in(e, op, 1);
  if (is_float(t)) {
    TensorIndex m = coalesced(e, code, a, b);
    for (TensorIndex v : {b, a})
      if (!nan_free_constant(e, v)) m = select(e, is_nan(e, v), v, m);
    bind_output(e, op, m);
    return;
  }
  if (t == DT::kInt8 || t == DT::kUint8 || t == DT::kInt32 || t == DT::kInt64) {
    bind_output(e, op, bin(e, code, a, b));
    return;
  }
  bind_output(e, op, from_ordered(e, bin(e, code, ordered(e, a, t), ordered(e, b, t)), t));
}

// A comparison: the TFLite comparison (integers in their order-keeping type; equality needs no
// uint64 shift), its BOOL as uint8 0/1.
void comparison(Emitter& e, const Operation& op, Op code) {
  const DT t = type_of(e, op);
  TensorIndex a = in(e, op, 0), b = in(e, op, 1);
  if (!is_float(t)) {
    if ((code == Op::EQUAL || code == Op::NOT_EQUAL) && t == DT::kUint64) {
      a = int_convert(e, a, TT::INT64);
      b = int_convert(e, b, TT::INT64);
    } else {
      a = ordered(e, a, t);
      b = ordered(e, b, t);
    }
  }
  bind_output(e, op, uint8_of(e, bin(e, code, a, b)));
}

// A logical op on uint8 truth values: both made BOOL, `code`, cast to uint8.
void logical(Emitter& e, const Operation& op, Op code) {
  const TensorIndex a = truth(e, in(e, op, 0)), b = truth(e, in(e, op, 1));
  bind_output(e, op, uint8_of(e, bin(e, code, a, b)));
}

}  // namespace

// Every op of this family for every type its limits allow.
bool lowers_elementwise_binary(const Graph& graph, const Operation& op) {
  const DT t = data_type_of(graph, op.inputs[0]);
  return t != DT::kInt4 && t != DT::kUint4;
}

// add, sub, mul (rows 10-12).
void lower_add(Emitter& e, const Operation& op, const AttrsOf<OpType::kAdd>&) {
  wrapping(e, op, Op::ADD);
}

void lower_sub(Emitter& e, const Operation& op, const AttrsOf<OpType::kSub>&) {
  wrapping(e, op, Op::SUB);
}

void lower_mul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMul>&) {
  wrapping(e, op, Op::MUL);
}

// div (row 13): DIV for floats (one rounding, x/±0 = ±Inf or NaN); integers truncate with x / 0 =
// 0 (int32_div for int32 and 8-bit data in int32, int64_div for int64 and uint32 in int64,
// uint64_div).
void lower_div(Emitter& e, const Operation& op, const AttrsOf<OpType::kDiv>&) {
  const DT t = type_of(e, op);
  const TensorIndex a = in(e, op, 0), b = in(e, op, 1);
  switch (t) {
    case DT::kFloat32:
    case DT::kFloat16:
      bind_output(e, op, coalesced(e, Op::DIV, a, b));
      return;
    case DT::kInt32:
      bind_output(e, op, int32_div(e, a, b, true));
      return;
    case DT::kInt8:
    case DT::kUint8: {
      const TensorIndex q =
          int32_div(e, int_convert(e, a, TT::INT32), int_convert(e, b, TT::INT32), false);
      bind_output(e, op, e.cast(q, compute_type_of(t)));  // int8 -128 / -1 = 128 wraps to -128
      return;
    }
    case DT::kUint32: {
      const TensorIndex q =
          int64_div(e, int_convert(e, a, TT::INT64), int_convert(e, b, TT::INT64), false, 1);
      bind_output(e, op, e.cast(q, TT::UINT32));
      return;
    }
    case DT::kInt64:
      bind_output(e, op, int64_div(e, a, b, true, 2));
      return;
    case DT::kUint64: {
      const TensorIndex q =
          uint64_div(e, int_convert(e, a, TT::INT64), int_convert(e, b, TT::INT64));
      bind_output(e, op, int_convert(e, q, TT::UINT64));
      return;
    }
    default:
      throw NotSupportedError("tflite: div of this data type is not lowered");
  }
}

// max, min (rows 14-15).
void lower_max(Emitter& e, const Operation& op, const AttrsOf<OpType::kMax>&) {
  extreme(e, op, Op::MAXIMUM);
}

void lower_min(Emitter& e, const Operation& op, const AttrsOf<OpType::kMin>&) {
  extreme(e, op, Op::MINIMUM);
}

// Whether tensor `b` is a float32 constant whose every element is 2 (an empty one is not).
bool is_constant_two(const Emitter& e, TensorIndex b) {
  if (!e.is_constant(b) || e.type_of(b) != TT::FLOAT32) return false;
  const std::span<const std::byte> bytes = e.constant_bytes(b);
  if (bytes.empty()) return false;
  for (size_t i = 0; i < bytes.size(); i += sizeof(float)) {
    float v;
    std::memcpy(&v, bytes.data() + i, sizeof(float));
    if (v != 2.0f) return false;
  }
  return true;
}

// pow (row 16): POW for floats (std::pow: negative bases with integral exponents included), but
// MUL(x, x) for a constant exponent 2 that does not broadcast x (std::pow(x, 2) is the correctly
// rounded x·x, signed zeros, infinities and NaN alike; MUL runs in XNNPACK, POW does not, and
// splits the delegated partitions); int_pow for integers. Exponent 0.5 stays POW: SQRT differs
// at −0 (pow gives +0) and −∞ (pow gives +∞).
void lower_pow(Emitter& e, const Operation& op, const AttrsOf<OpType::kPow>&) {
  const DT t = type_of(e, op);
  if (is_float(t)) {
    const TensorIndex x = in(e, op, 0), b = in(e, op, 1);
    if (is_constant_two(e, b) && e.shape_of(x) == broadcast_shape(e.shape_of(x), e.shape_of(b))) {
      bind_output(e, op, coalesced(e, Op::MUL, x, x));
      return;
    }
    bind_output(e, op, bin(e, Op::POW, x, b));
    return;
  }
  bind_output(e, op, int_pow(e, in(e, op, 0), in(e, op, 1), t));
}

// Comparisons (rows 17-22).
void lower_equal(Emitter& e, const Operation& op, const AttrsOf<OpType::kEqual>&) {
  comparison(e, op, Op::EQUAL);
}

void lower_notEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kNotEqual>&) {
  comparison(e, op, Op::NOT_EQUAL);
}

void lower_greater(Emitter& e, const Operation& op, const AttrsOf<OpType::kGreater>&) {
  comparison(e, op, Op::GREATER);
}

void lower_greaterOrEqual(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGreaterOrEqual>&) {
  comparison(e, op, Op::GREATER_EQUAL);
}

void lower_lesser(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesser>&) {
  comparison(e, op, Op::LESS);
}

void lower_lesserOrEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesserOrEqual>&) {
  comparison(e, op, Op::LESS_EQUAL);
}

// logicalAnd/Or/Xor (rows 24-26); xor is NOT_EQUAL of the BOOLs.
void lower_logicalAnd(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalAnd>&) {
  logical(e, op, Op::LOGICAL_AND);
}

void lower_logicalOr(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalOr>&) {
  logical(e, op, Op::LOGICAL_OR);
}

void lower_logicalXor(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalXor>&) {
  logical(e, op, Op::NOT_EQUAL);
}

}  // namespace cppnn::tflite_export
