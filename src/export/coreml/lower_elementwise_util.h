// Helpers shared by the CoreML elementwise lowerings (lower_elementwise_binary.cpp,
// lower_elementwise_unary.cpp) and the quantization lowering (lower_quantization.cpp): MIL ops
// with broadcasting whose output types are worked out here (coremltools re-infers every one),
// WebNN's uint8 truth values to and from MIL bool, exact int32 -> 8-bit wrapping, int32 negation
// and abs without int32 overflow (which MIL leaves unspecified), and roundEven written with exact
// operations only (MIL's `round` leaves the direction of halves to the backend: webnn #817).
//
// Every helper emits into a fresh variable, or into `dest` when it is not empty: the name of the
// WebNN output the value is (its type is then the output's, which the caller guarantees).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/emitter.h"

namespace cppnn::coreml_export {

// Whether a MIL element type is float32 or float16.
inline bool is_float_type(mil::DataType t) {
  return t == mil::FLOAT32 || t == mil::FLOAT16;
}

// Whether a MIL element type is int8 or uint8 (WebNN's 8-bit types).
inline bool is_8bit_type(mil::DataType t) {
  return t == mil::INT8 || t == mil::UINT8;
}

// The bidirectional broadcast of two shapes (webnn-spec.md §3.4; the shapes were validated).
inline std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// MIL op `type(params)` with output type `t`, into `dest` or a fresh variable; returns its name.
inline std::string emit_into(Emitter& e, std::string_view type, std::vector<Param> params,
                             MilType t, const std::string& dest = {}) {
  if (dest.empty()) return e.op(type, std::move(params), std::move(t));
  e.op_to(type, std::move(params), {{dest, std::move(t)}});
  return dest;
}

// A scalar constant of element type `t`.
inline std::string scalar_of(Emitter& e, mil::DataType t, const MLNumber& v) {
  return e.const_scalar(t, v);
}

// Binary MIL op `x type y` (add, sub, mul, real_div, floor_div, pow, maximum, minimum, the
// logical ops) with broadcasting: x's element type, the broadcast shape.
inline std::string arith(Emitter& e, std::string_view type, const std::string& x,
                         const std::string& y, const std::string& dest = {}) {
  const MilType& tx = e.type_of(x);
  return emit_into(e, type, {{"x", x}, {"y", y}},
                   MilType{tx.type, broadcast_shapes(tx.shape, e.type_of(y).shape)}, dest);
}

// A MIL comparison (equal, not_equal, less, less_equal, greater, greater_equal): bool of the
// broadcast shape.
inline std::string compare(Emitter& e, std::string_view type, const std::string& x,
                           const std::string& y) {
  return e.op(type, {{"x", x}, {"y", y}},
              MilType{mil::BOOL, broadcast_shapes(e.type_of(x).shape, e.type_of(y).shape)});
}

// A unary MIL op keeping x's type and shape.
inline std::string unary_op(Emitter& e, std::string_view type, const std::string& x,
                            const std::string& dest = {}) {
  return emit_into(e, type, {{"x", x}}, e.type_of(x), dest);
}

// MIL select(cond, a, b). coremltools infers its shape from a and b only, so the callers keep
// cond's shape within theirs (checked).
inline std::string select_of(Emitter& e, const std::string& cond, const std::string& a,
                             const std::string& b, const std::string& dest = {}) {
  const MilType& ta = e.type_of(a);
  std::vector<int64_t> shape = broadcast_shapes(ta.shape, e.type_of(b).shape);
  if (broadcast_shapes(shape, e.type_of(cond).shape) != shape)
    throw OperationError("coreml: select condition wider than its values");
  return emit_into(e, "select", {{"cond", cond}, {"a", a}, {"b", b}},
                   MilType{ta.type, std::move(shape)}, dest);
}

// `x` cast to element type `to` into `dest` or a fresh variable (`x` itself when it has that
// type and no destination is asked for).
inline std::string cast_into(Emitter& e, const std::string& x, mil::DataType to,
                             const std::string& dest = {}) {
  if (dest.empty()) return e.cast(x, to);
  MilType t = e.type_of(x);
  t.type = to;
  return emit_into(e, "cast", {{"x", x}, {"dtype", e.const_string(mil_dtype_name(to))}},
                   std::move(t), dest);
}

// `x` (int8/uint8/int32/float) as int32 when it is 8-bit (exact), else `x` itself.
inline std::string widen_8bit(Emitter& e, const std::string& x) {
  return is_8bit_type(e.type_of(x).type) ? e.cast(x, mil::INT32) : x;
}

// WebNN truth value (uint8, nonzero is true) -> MIL bool: x != 0.
inline std::string truth_of(Emitter& e, const std::string& x) {
  return compare(e, "not_equal", e.cast(x, mil::INT32), scalar_of(e, mil::INT32, 0));
}

// MIL bool -> WebNN's uint8 0/1, into `dest`.
inline std::string uint8_of(Emitter& e, const std::string& b, const std::string& dest = {}) {
  return cast_into(e, b, mil::UINT8, dest);
}

// An int32 `x` reduced to 8-bit type `to` keeping its low 8 bits (two's complement wrap, the
// cast table of webnn-spec.md §3.6 and the reference's integer arithmetic): m = x - 256 ·
// floor_div(x, 256) is in [0, 255] without overflow, minus 256 from 128 on for int8; the final
// cast sees in-range values only (MIL does not say how its cast narrows).
inline std::string wrap_to_8bit(Emitter& e, const std::string& x, mil::DataType to,
                                const std::string& dest = {}) {
  const std::string k256 = scalar_of(e, mil::INT32, 256);
  const std::string m = arith(e, "sub", x, arith(e, "mul", arith(e, "floor_div", x, k256), k256));
  std::string v = m;
  if (to == mil::INT8) {
    const std::string high = compare(e, "greater_equal", m, scalar_of(e, mil::INT32, 128));
    v = select_of(e, high, arith(e, "sub", m, k256), m);
  }
  return cast_into(e, v, to, dest);
}

// int32 -x, with -INT_MIN = INT_MIN (the reference's two's complement wrap) written out so that
// no int32 operation overflows: select(x == INT_MIN, INT_MIN, max(x, INT_MIN + 1) · -1).
inline std::string negate_int32(Emitter& e, const std::string& x, const std::string& dest = {}) {
  const std::string int_min = scalar_of(e, mil::INT32, MLNumber(static_cast<long long>(INT32_MIN)));
  const std::string safe = arith(e, "maximum", x, scalar_of(e, mil::INT32, INT32_MIN + 1));
  return select_of(e, compare(e, "equal", x, int_min), int_min,
                   arith(e, "mul", safe, scalar_of(e, mil::INT32, -1)), dest);
}

// int32 |x|, with |INT_MIN| = INT_MIN (the reference's wrap) written out as in negate_int32.
inline std::string abs_int32(Emitter& e, const std::string& x, const std::string& dest = {}) {
  const std::string int_min = scalar_of(e, mil::INT32, MLNumber(static_cast<long long>(INT32_MIN)));
  const std::string safe = arith(e, "maximum", x, scalar_of(e, mil::INT32, INT32_MIN + 1));
  return select_of(e, compare(e, "equal", x, int_min), int_min, unary_op(e, "abs", safe), dest);
}

// roundEven of a float32/float16 `x` (webnn-spec.md §2 row 39) with exact operations only:
// f = floor(x) and d = x - f (exact, or for -0.5 < x < 0 rounded to no less than 0.5, where
// rounding up to f + 1 = 0 is right anyway); f + 1 where d > 0.5 or d == 0.5 and f is odd
// (floor(f / 2) · 2 != f), else f; a zero result takes x's sign (x · 0) so that
// roundEven(-0.4) = -0. Inf and NaN give f, themselves. 15 MIL ops.
inline std::string round_half_even(Emitter& e, const std::string& x, const std::string& dest = {}) {
  const mil::DataType t = e.type_of(x).type;
  const std::string half = scalar_of(e, t, 0.5), zero = scalar_of(e, t, 0);
  const std::string f = unary_op(e, "floor", x);
  const std::string d = arith(e, "sub", x, f);
  const std::string above = compare(e, "greater", d, half);
  const std::string tie = compare(e, "equal", d, half);
  const std::string f_half = unary_op(e, "floor", arith(e, "mul", f, half));
  const std::string odd = compare(e, "not_equal", arith(e, "mul", f_half, scalar_of(e, t, 2)), f);
  const std::string up = arith(e, "logical_or", above, arith(e, "logical_and", tie, odd));
  const std::string r = select_of(e, up, arith(e, "add", f, scalar_of(e, t, 1)), f);
  const std::string is_zero = compare(e, "equal", r, zero);
  return select_of(e, is_zero, arith(e, "mul", x, zero), r, dest);
}

// `v` written to `dest` by a MIL identity (for a result that no op of the lowering could write
// directly), or `v` itself when there is no destination.
inline std::string into_dest(Emitter& e, const std::string& v, const std::string& dest) {
  if (dest.empty()) return v;
  return emit_into(e, "identity", {{"x", v}}, e.type_of(v), dest);
}

// A value of `shape` and element type `t` filled with `v` (a MIL fill; a scalar const for
// rank 0), for results that must have the full broadcast shape from the start.
inline std::string full_of(Emitter& e, mil::DataType t, const std::vector<int64_t>& shape,
                           const MLNumber& v) {
  if (shape.empty()) return scalar_of(e, t, v);
  return e.op("fill", {{"shape", e.const_i32_of(shape)}, {"value", scalar_of(e, t, v)}},
              MilType{t, shape});
}

// `x` written unchanged to `dest` of the same type: MIL identity, or for 8-bit data (identity's
// documented type domain is fp16/fp32/int32/bool) a reshape to its own shape.
inline void copy_into(Emitter& e, const std::string& x, const std::string& dest) {
  const MilType& t = e.type_of(x);
  if (is_8bit_type(t.type))
    emit_into(e, "reshape", {{"x", x}, {"shape", e.const_i32_of(t.shape)}}, t, dest);
  else
    emit_into(e, "identity", {{"x", x}}, t, dest);
}

// `x` reshaped to `shape` (the same element count), or `x` itself when it has that shape.
inline std::string reshape_to(Emitter& e, const std::string& x, const std::vector<int64_t>& shape) {
  const MilType& t = e.type_of(x);
  if (t.shape == shape) return x;
  return e.op("reshape", {{"x", x}, {"shape", e.const_i32_of(shape)}}, MilType{t.type, shape});
}

}  // namespace cppnn::coreml_export
