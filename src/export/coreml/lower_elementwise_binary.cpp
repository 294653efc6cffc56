// CoreML lowering of the elementwise binary ops (see lower.h; webnn-spec.md §2 rows 10-22,
// 24-26): arithmetic, comparisons and logical ops, with bidirectional broadcasting (MIL's own).
//
// - float32/float16: add, sub, mul, real_div and pow are one MIL op each; max and min are written
//   as the reference kernel computes them (x > y ? x : y, NaN when either side is NaN): MIL's
//   maximum/minimum say "x > y ? x : y", which keeps y's NaN but not x's.
// - int32: add, sub and mul are MIL's: MIL leaves int32 overflow unspecified, where the reference
//   wraps (two's complement); writing the wrap out would cost a dozen ops per add and far more
//   per mul, so a result that overflows int32 is the one case left to MIL. Every other int32
//   lowering keeps all its intermediate values within int32: div truncates toward zero (#909)
//   with x / 0 = 0 and INT_MIN / -1 = INT_MIN (int_div); pow is square-and-multiply (MIL's pow
//   has no integer meaning for negative exponents; int_pow); max/min are MIL maximum/minimum.
// - int8/uint8 (the target sends them here only where target.cpp lists the op as carrying 8-bit
//   data): computed in int32 (exact) and wrapped back to the 8-bit type like the reference's
//   wrapping 8-bit arithmetic.
// - Comparisons: the MIL comparison of the same meaning (8-bit inputs widened to int32), its bool
//   cast to WebNN's uint8 0/1 (NaN compares false, notEqual true).
// - logicalAnd/Or/Xor: uint8 inputs made bool by != 0, MIL logical_*, cast to uint8.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_elementwise_util.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

// The output's variable name (the destination of the op's last MIL op).
const std::string& out_name(const Emitter& e, const Operation& op) {
  return e.value(op.outputs[0]);
}

// int32 x / y truncated toward zero (row 13, #909), into `dest`, with no int32 overflow in any
// intermediate value (MIL leaves int32 overflow unspecified). MIL floor_div rounds toward -Inf,
// which is truncation where the quotient is not negative; where x and y have opposite signs
// (x != 0) the numerator first moves by y - sign(y) (|y| - 1 toward y's side: it cannot overflow
// there), so that its floor quotient is the truncated one. floor_div never sees y = 0 (result 0,
// the reference's choice) or y = -1 (result -x, INT_MIN for INT_MIN as the reference's wrap,
// written out): both divide by 1 and are selected afterwards.
std::string int_div(Emitter& e, const std::string& x, const std::string& y,
                    const std::string& dest) {
  const mil::DataType i = mil::INT32;
  const std::string zero = scalar_of(e, i, 0), one = scalar_of(e, i, 1), two = scalar_of(e, i, 2);
  const std::string minus_one = scalar_of(e, i, -1);
  const std::string y_zero = compare(e, "equal", y, zero);
  const std::string y_minus_one = compare(e, "equal", y, minus_one);
  const std::string divisor = select_of(e, arith(e, "logical_or", y_zero, y_minus_one), one, y);
  const std::string sign =
      arith(e, "sub", arith(e, "mul", e.cast(compare(e, "greater", divisor, zero), i), two), one);
  const std::string toward = arith(e, "sub", divisor, sign);
  const std::string opposite = arith(
      e, "logical_and", compare(e, "not_equal", x, zero),
      arith(e, "logical_xor", compare(e, "less", x, zero), compare(e, "less", divisor, zero)));
  const std::string numerator = arith(e, "add", x, arith(e, "mul", e.cast(opposite, i), toward));
  const std::string q = arith(e, "floor_div", numerator, divisor);
  const std::string negated = negate_int32(e, x);
  return select_of(e, y_zero, zero, select_of(e, y_minus_one, negated, q), dest);
}

// How many exponent bits int_pow runs over: 31 (every int32 bit) for a runtime int32 exponent, 8
// for 8-bit data, else the bits of the largest value of the constant exponent; `negative` tells
// whether any exponent may be negative.
int exponent_bits(const Emitter& e, OperandId id, bool& negative) {
  negative = true;
  const mil::DataType t = e.mil_type(id).type;
  if (is_8bit_type(t)) {
    negative = t == mil::INT8;
    return 8;
  }
  if (e.graph().operand(id).kind != OperandKind::kConstant) return 31;
  const std::span<const std::byte> bytes = e.graph().constant(id).bytes();
  int32_t largest = 0;
  negative = false;
  for (size_t k = 0; k + sizeof(int32_t) <= bytes.size(); k += sizeof(int32_t)) {
    int32_t v = 0;
    std::memcpy(&v, bytes.data() + k, sizeof v);
    largest = std::max(largest, v);
    negative = negative || v < 0;
  }
  int bits = 0;
  while (bits < 31 && (int64_t{1} << bits) <= largest) ++bits;
  return bits;
}

// x mod 256 in [0, 255] (int32).
std::string mod_256(Emitter& e, const std::string& x) {
  const std::string k = scalar_of(e, mil::INT32, 256);
  return arith(e, "sub", x, arith(e, "mul", arith(e, "floor_div", x, k), k));
}

// int32 x^y (row 16) as the reference, into `dest`. y >= 0: square-and-multiply over y's bits
// (floor_div by 2 peels them), each factor and square selected to 1 where it is not needed, so
// that no intermediate value exceeds |x^y| (an int32 overflow only where the result itself
// overflows, which the reference wraps and MIL leaves unspecified). y < 0: 1 for x = 1, (-1)^y
// for x = -1, else 0 (1 / x^|y| truncated; 0 for x = 0 too). `exponent` is y's operand; for
// 8-bit data (`eight_bit`, values widened to int32) every product is kept mod 256, which is all
// the 8-bit result keeps.
std::string int_pow(Emitter& e, const std::string& x, const std::string& y, OperandId exponent,
                    bool eight_bit, const std::string& dest) {
  const mil::DataType i = mil::INT32;
  bool negative = true;
  const int bits = exponent_bits(e, exponent, negative);
  const std::vector<int64_t> full = broadcast_shapes(e.type_of(x).shape, e.type_of(y).shape);
  const std::string zero = scalar_of(e, i, 0), one = scalar_of(e, i, 1), two = scalar_of(e, i, 2);
  auto reduce = [&](const std::string& v) { return eight_bit ? mod_256(e, v) : v; };
  std::string result = full_of(e, i, full, 1);
  std::string base = reduce(x);
  if (e.type_of(base).shape != full) base = arith(e, "add", base, full_of(e, i, full, 0));
  std::string rest = negative ? arith(e, "maximum", y, zero) : y;
  for (int k = 0; k < bits; ++k) {
    const std::string half = arith(e, "floor_div", rest, two);
    const std::string odd = compare(e, "not_equal", arith(e, "mul", half, two), rest);
    const bool last = k + 1 == bits && !negative && !eight_bit;
    result =
        reduce(arith(e, "mul", result, select_of(e, odd, base, one), last ? dest : std::string()));
    if (k + 1 < bits) {
      const std::string needed = select_of(e, compare(e, "greater", half, zero), base, one);
      base = reduce(arith(e, "mul", needed, needed));
      rest = half;
    }
  }
  if (!negative) return result == dest ? result : into_dest(e, result, dest);
  const std::string y_odd =
      compare(e, "not_equal", arith(e, "mul", arith(e, "floor_div", y, two), two), y);
  const std::string minus_one_power = arith(e, "sub", one, arith(e, "mul", e.cast(y_odd, i), two));
  const std::string x_is_one = e.cast(compare(e, "equal", x, one), i);
  const std::string below_one =
      select_of(e, compare(e, "equal", x, scalar_of(e, i, -1)), minus_one_power, x_is_one);
  return select_of(e, compare(e, "less", y, zero), below_one, result, dest);
}

// Float max (greater) or min (less) as the reference: x cmp y ? x : y, NaN where x or y is NaN.
std::string float_extreme(Emitter& e, std::string_view cmp, const std::string& x,
                          const std::string& y, const std::string& dest) {
  const std::string pick = select_of(e, compare(e, cmp, x, y), x, y);  // y's NaN kept
  return select_of(e, compare(e, "not_equal", x, x), x, pick, dest);
}

// Lowers an arithmetic op with `compute(x, y, dest)`, which computes in the inputs' type (float32,
// float16 or int32). 8-bit data is computed in int32 and brought back to the output's type by
// the low 8 bits (`wrap`) or by a plain cast (results within the type's range: max, min).
template <class Compute>
void arithmetic(Emitter& e, const Operation& op, bool wrap, Compute compute) {
  const std::string& dest = out_name(e, op);
  const mil::DataType t = out_type(e, op).type;
  if (!is_8bit_type(t)) {
    compute(in(e, op, 0), in(e, op, 1), dest);
    return;
  }
  const std::string v =
      compute(e.cast(in(e, op, 0), mil::INT32), e.cast(in(e, op, 1), mil::INT32), std::string());
  if (wrap)
    wrap_to_8bit(e, v, t, dest);
  else
    cast_into(e, v, t, dest);
}

// A MIL binary op of the same meaning for every type (add, sub, mul).
void plain(Emitter& e, const Operation& op, std::string_view mil_op) {
  arithmetic(e, op, true, [&](const std::string& x, const std::string& y, const std::string& d) {
    return arith(e, mil_op, x, y, d);
  });
}

// A comparison: the MIL comparison (8-bit inputs widened to int32) as uint8 0/1.
void comparison(Emitter& e, const Operation& op, std::string_view mil_op) {
  const std::string x = widen_8bit(e, in(e, op, 0)), y = widen_8bit(e, in(e, op, 1));
  uint8_of(e, compare(e, mil_op, x, y), out_name(e, op));
}

// A logical op on uint8 truth values (nonzero is true), as uint8 0/1.
void logical(Emitter& e, const Operation& op, std::string_view mil_op) {
  const std::string x = truth_of(e, in(e, op, 0)), y = truth_of(e, in(e, op, 1));
  uint8_of(e, arith(e, mil_op, x, y), out_name(e, op));
}

}  // namespace

bool lowers_elementwise_binary(const Graph&, const Operation&) {
  return true;
}

// add, sub, mul (rows 10-12): MIL add/sub/mul (an int32 result past int32 is MIL's, see the file
// comment).
void lower_add(Emitter& e, const Operation& op, const AttrsOf<OpType::kAdd>&) {
  plain(e, op, "add");
}

void lower_sub(Emitter& e, const Operation& op, const AttrsOf<OpType::kSub>&) {
  plain(e, op, "sub");
}

void lower_mul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMul>&) {
  plain(e, op, "mul");
}

// div (row 13): MIL real_div for floats (one rounding, x/±0 = ±Inf or NaN); integers truncate
// (int_div).
void lower_div(Emitter& e, const Operation& op, const AttrsOf<OpType::kDiv>&) {
  arithmetic(e, op, true, [&](const std::string& x, const std::string& y, const std::string& d) {
    if (is_float_type(e.type_of(x).type)) return arith(e, "real_div", x, y, d);
    return int_div(e, x, y, d);
  });
}

// max/min (rows 14-15): float_extreme for floats (NaN from either side), MIL maximum/minimum for
// integers.
void lower_max(Emitter& e, const Operation& op, const AttrsOf<OpType::kMax>&) {
  arithmetic(e, op, false, [&](const std::string& x, const std::string& y, const std::string& d) {
    if (is_float_type(e.type_of(x).type)) return float_extreme(e, "greater", x, y, d);
    return arith(e, "maximum", x, y, d);
  });
}

void lower_min(Emitter& e, const Operation& op, const AttrsOf<OpType::kMin>&) {
  arithmetic(e, op, false, [&](const std::string& x, const std::string& y, const std::string& d) {
    if (is_float_type(e.type_of(x).type)) return float_extreme(e, "less", x, y, d);
    return arith(e, "minimum", x, y, d);
  });
}

// pow (row 16): MIL pow for floats (x^y as numpy's power: negative bases with integral
// exponents included); integers by int_pow.
void lower_pow(Emitter& e, const Operation& op, const AttrsOf<OpType::kPow>&) {
  arithmetic(e, op, true, [&](const std::string& x, const std::string& y, const std::string& d) {
    if (is_float_type(e.type_of(x).type)) return arith(e, "pow", x, y, d);
    return int_pow(e, x, y, op.inputs[1], is_8bit_type(out_type(e, op).type), d);
  });
}

// Comparisons (rows 17-22).
void lower_equal(Emitter& e, const Operation& op, const AttrsOf<OpType::kEqual>&) {
  comparison(e, op, "equal");
}

void lower_notEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kNotEqual>&) {
  comparison(e, op, "not_equal");
}

void lower_greater(Emitter& e, const Operation& op, const AttrsOf<OpType::kGreater>&) {
  comparison(e, op, "greater");
}

void lower_greaterOrEqual(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGreaterOrEqual>&) {
  comparison(e, op, "greater_equal");
}

void lower_lesser(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesser>&) {
  comparison(e, op, "less");
}

void lower_lesserOrEqual(Emitter& e, const Operation& op, const AttrsOf<OpType::kLesserOrEqual>&) {
  comparison(e, op, "less_equal");
}

// logicalAnd/Or/Xor (rows 24-26).
void lower_logicalAnd(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalAnd>&) {
  logical(e, op, "logical_and");
}

void lower_logicalOr(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalOr>&) {
  logical(e, op, "logical_or");
}

void lower_logicalXor(Emitter& e, const Operation& op, const AttrsOf<OpType::kLogicalXor>&) {
  logical(e, op, "logical_xor");
}

}  // namespace cppnn::coreml_export
