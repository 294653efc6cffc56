// ONNX elementwise binary, variadic, comparison and logical operators (ops_elementwise.def).
// Broadcasting from opset 7 on is numpy's multidirectional one, which WebNN's binary ops share;
// the legacy `broadcast`/`axis` form of earlier opsets is aligned first (binary_rhs). Unary math
// is in ops_elementwise_unary.cpp, Clip/Where/BitShift in ops_elementwise_misc.cpp.
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_elementwise_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using BinaryFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLOperand&,
                                               const MLOperatorOptions&);

// One WebNN binary op on inputs 0 and 1 (same data type, as ONNX requires).
void binary(NodeContext& c, BinaryFn fn) {
  MLOperand a = c.input(0);
  MLOperand b = binary_rhs(c, a.shape().size());
  c.set_output(0, (c.builder().*fn)(a, b, c.opts<MLOperatorOptions>()));
}

// A variadic ONNX op (Max, Min, Sum, Mean) as a chain of WebNN binary ops over its inputs.
MLOperand fold(NodeContext& c, BinaryFn fn, size_t* count = nullptr) {
  std::optional<MLOperand> acc;
  size_t n = 0;
  for (size_t i = 0; i < c.input_count(); ++i) {
    if (!c.has_input(i)) continue;
    ++n;
    MLOperand x = c.input(i);
    acc = acc ? (c.builder().*fn)(*acc, x, c.opts<MLOperatorOptions>()) : x;
  }
  if (!acc) c.invalid("no inputs");
  if (count) *count = n;
  return *acc;
}

// trunc(q) (toward zero) of a float operand.
MLOperand trunc_of(Ops& f, const MLOperand& q) {
  return f.where(f.less(q, 0), f.b().ceil(q, f.o), f.b().floor(q, f.o));
}

}  // namespace

void import_Add(NodeContext& c) {
  binary(c, &MLGraphBuilder::add);
}
void import_Sub(NodeContext& c) {
  binary(c, &MLGraphBuilder::sub);
}
void import_Mul(NodeContext& c) {
  binary(c, &MLGraphBuilder::mul);
}
// WebNN integer div truncates toward zero, as ONNX Div does (webnn-spec.md row 13).
void import_Div(NodeContext& c) {
  binary(c, &MLGraphBuilder::div);
}

// ONNX Pow: from opset 12 the exponent may have another type; the result has the base's type.
void import_Pow(NodeContext& c) {
  Ops f(c);
  MLOperand a = c.input(0);
  MLOperand b = binary_rhs(c, a.shape().size());
  const MLOperandDataType ta = a.dataType(), tb = b.dataType();
  const auto f32 = MLOperandDataType::kFloat32;
  if (ta == tb) return c.set_output(0, f.b().pow(a, b, f.o));
  if ((ta == MLOperandDataType::kFloat16 && tb == f32) ||
      (!is_float_type(ta) && is_float_type(tb))) {
    // float16 base with a float32 exponent, or an integer base with a float exponent: computed
    // in float32 and cast back (ONNX Runtime truncates the double result to the integer type,
    // as WebNN's cast does; integer bases beyond 2^24 lose precision).
    MLOperand r = f.b().pow(cast_to(c, a, f32), cast_to(c, b, f32), f.o);
    return c.set_output(0, cast_to(c, r, ta));
  }
  // An integer exponent of a float base or of another integer width: exact below 2^24.
  c.set_output(0, f.b().pow(a, cast_to(c, b, ta), f.o));
}

// ONNX Mod: fmod=1 is C's fmod (the result has the dividend's sign), fmod=0 the integer modulus
// whose result has the divisor's sign. Built from WebNN's truncating div: r = a - trunc(a/b)*b.
void import_Mod(NodeContext& c) {
  Ops f(c);
  MLOperand a = c.input(0), b = c.input(1);
  const bool fmod = c.attr_int("fmod", 0) != 0;
  const MLOperandDataType t = a.dataType();
  if (is_float_type(t)) {
    // In float32 (float16 widened): the quotient's rounding makes this approximate near
    // multiples of b.
    MLOperand a32 = cast_to(c, a, MLOperandDataType::kFloat32);
    MLOperand b32 = cast_to(c, b, MLOperandDataType::kFloat32);
    MLOperand q = f.div(a32, b32);
    MLOperand n = fmod ? trunc_of(f, q) : f.b().floor(q, f.o);
    return c.set_output(0, cast_to(c, f.sub(a32, f.mul(n, b32)), t));
  }
  MLOperand r = f.sub(a, f.mul(f.div(a, b), b));  // the truncated remainder: a's sign
  if (!fmod && !is_unsigned_type(t)) {
    MLOperand zero = f.k(r, 0);
    MLOperand signs_differ =
        f.b().logicalXor(f.b().lesser(r, zero, f.o), f.b().lesser(b, zero, f.o), f.o);
    MLOperand fix = f.b().logicalAnd(f.b().notEqual(r, zero, f.o), signs_differ, f.o);
    r = f.where(fix, f.add(r, b), r);
  }
  c.set_output(0, r);
}

void import_Max(NodeContext& c) {
  c.set_output(0, fold(c, &MLGraphBuilder::max));
}
void import_Min(NodeContext& c) {
  c.set_output(0, fold(c, &MLGraphBuilder::min));
}
void import_Sum(NodeContext& c) {
  c.set_output(0, fold(c, &MLGraphBuilder::add));
}

// ONNX Mean (float types only): the sum divided by the input count.
void import_Mean(NodeContext& c) {
  size_t n = 0;
  MLOperand sum = fold(c, &MLGraphBuilder::add, &n);
  if (n == 1) return c.set_output(0, sum);
  Ops f(c);
  c.set_output(0, f.div(sum, f.k(sum, static_cast<double>(n))));
}

// Comparisons: WebNN returns uint8 0/1, ONNX's BOOL.
void import_Equal(NodeContext& c) {
  binary(c, &MLGraphBuilder::equal);
}
void import_Greater(NodeContext& c) {
  binary(c, &MLGraphBuilder::greater);
}
void import_Less(NodeContext& c) {
  binary(c, &MLGraphBuilder::lesser);
}
void import_GreaterOrEqual(NodeContext& c) {
  binary(c, &MLGraphBuilder::greaterOrEqual);
}
void import_LessOrEqual(NodeContext& c) {
  binary(c, &MLGraphBuilder::lesserOrEqual);
}

// Logical ops on ONNX BOOL (WebNN uint8 0/1).
void import_And(NodeContext& c) {
  binary(c, &MLGraphBuilder::logicalAnd);
}
void import_Or(NodeContext& c) {
  binary(c, &MLGraphBuilder::logicalOr);
}
void import_Xor(NodeContext& c) {
  binary(c, &MLGraphBuilder::logicalXor);
}
void import_Not(NodeContext& c) {
  c.set_output(0, c.builder().logicalNot(c.input(0), c.opts<MLOperatorOptions>()));
}

}  // namespace cppnn::onnx_import
