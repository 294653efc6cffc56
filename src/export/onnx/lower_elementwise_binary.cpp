// ONNX lowering of the elementwise binary ops (see lower.h): arithmetic, comparisons and logical
// ops (webnn-spec.md §2 rows 10-22, 24-26). Float and the common integer cases are one ONNX node;
// comparisons and logical ops add the bool <-> uint8 casts; integer division guards the cases
// ONNX Runtime would trap on (x / 0, INT_MIN / -1); pow on small integer types computes in int64.
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_elementwise_util.h"
#include "src/export/onnx/lower_util.h"

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

}  // namespace cppnn::onnx_export
