// ONNX unary math operators (ops_elementwise.def): direct WebNN ops where one exists, and
// decompositions for the inverse and hyperbolic trigonometric functions WebNN lacks. The
// decompositions run in float32 (float16 inputs are widened and the result narrowed back) and
// are accurate to a few float32 ulps, except where noted.
#include <cmath>
#include <numbers>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_elementwise_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using UnaryFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLOperatorOptions&);

// One float-only WebNN unary op on input 0.
void float_unary(NodeContext& c, UnaryFn fn, const char* webnn_op) {
  MLOperand x = float_input(c, 0, webnn_op);
  c.set_output(0, (c.builder().*fn)(x, c.opts<MLOperatorOptions>()));
}

// Output = body(input 0 in float32), cast back to the input's float type.
template <class Body>
void in_float32(NodeContext& c, const char* what, Body body) {
  MLOperand x = float_input(c, 0, what);
  Ops f(c);
  MLOperand r = body(f, cast_to(c, x, MLOperandDataType::kFloat32));
  c.set_output(0, cast_to(c, r, x.dataType()));
}

// atan(x) by Cephes' atanf: reduction to |t| <= tan(pi/8) (t = -1/|x| above tan(3pi/8),
// (|x|-1)/(|x|+1) above tan(pi/8)) and a degree-9 odd polynomial; relative error ~2e-7.
MLOperand atan_of(Ops& f, const MLOperand& x) {
  MLOperand ax = f.abs(x);
  MLOperand big = f.greater(ax, 2.414213562373095);
  MLOperand mid = f.greater(ax, 0.4142135623730950);
  MLOperand t_big = f.neg(f.b().reciprocal(ax, f.o));
  MLOperand t_mid = f.div(f.sub(ax, 1.0), f.add(ax, 1.0));
  MLOperand t = f.where(big, t_big, f.where(mid, t_mid, ax));
  MLOperand base = f.where(big, f.k(x, std::numbers::pi / 2),
                           f.where(mid, f.k(x, std::numbers::pi / 4), f.k(x, 0)));
  MLOperand z = f.mul(t, t);
  MLOperand p =
      f.poly(z, {-3.33329491539e-1, 1.99777106478e-1, -1.38776856032e-1, 8.05374449538e-2});
  MLOperand r = f.add(base, f.add(t, f.mul(f.mul(p, z), t)));
  return f.mul(r, f.b().sign(x, f.o));
}

// where(|x| < limit, small(x), large(x)): series near zero, where the closed forms cancel.
MLOperand near_zero(Ops& f, const MLOperand& x, double limit, const MLOperand& small,
                    const MLOperand& large) {
  return f.where(f.less(f.abs(x), limit), small, large);
}

}  // namespace

void import_Ceil(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::ceil, "ceil");
}
void import_Floor(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::floor, "floor");
}
// ONNX Round rounds halves to even, as WebNN roundEven does.
void import_Round(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::roundEven, "roundEven");
}
void import_Sqrt(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::sqrt, "sqrt");
}
void import_Exp(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::exp, "exp");
}
void import_Log(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::log, "log");
}
void import_Sin(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::sin, "sin");
}
void import_Cos(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::cos, "cos");
}
void import_Tan(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::tan, "tan");
}
void import_Reciprocal(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::reciprocal, "reciprocal");
}
void import_Erf(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::erf, "erf");
}
void import_IsNaN(NodeContext& c) {
  float_unary(c, &MLGraphBuilder::isNaN, "isNaN");
}

// ONNX IsInf: detect_positive / detect_negative select which infinities count.
void import_IsInf(NodeContext& c) {
  MLOperand x = float_input(c, 0, "isInfinite");
  const bool pos = c.attr_int("detect_positive", 1) != 0;
  const bool neg = c.attr_int("detect_negative", 1) != 0;
  Ops f(c);
  if (pos && neg) return c.set_output(0, f.b().isInfinite(x, f.o));
  if (!pos && !neg) return c.set_output(0, f.b().greater(x, x, f.o));  // false everywhere
  c.set_output(0, f.b().equal(x, f.k(x, pos ? INFINITY : -INFINITY), f.o));
}

// Abs: WebNN abs takes float and signed integer types; unsigned values are their own abs.
void import_Abs(NodeContext& c) {
  MLOperand x = c.input(0);
  if (is_unsigned_type(x.dataType())) return c.set_output(0, x);
  c.set_output(0, c.builder().abs(x, c.opts<MLOperatorOptions>()));
}

void import_Neg(NodeContext& c) {
  MLOperand x = c.input(0);
  Ops f(c);
  if (is_unsigned_type(x.dataType())) return c.set_output(0, f.sub(f.k(x, 0), x));  // wraps
  c.set_output(0, f.neg(x));
}

// Sign: WebNN sign takes float and signed integer types; for unsigned ones it is min(x, 1).
void import_Sign(NodeContext& c) {
  MLOperand x = c.input(0);
  Ops f(c);
  if (is_unsigned_type(x.dataType())) return c.set_output(0, f.b().min(x, f.k(x, 1), f.o));
  c.set_output(0, f.b().sign(x, f.o));
}

void import_Atan(NodeContext& c) {
  in_float32(c, "atan decomposition", [](Ops& f, const MLOperand& x) { return atan_of(f, x); });
}

// asin(x) = 2 atan(x / (1 + sqrt((1-x)(1+x)))); NaN outside [-1, 1].
void import_Asin(NodeContext& c) {
  in_float32(c, "asin decomposition", [](Ops& f, const MLOperand& x) {
    MLOperand root = f.sqrt(f.mul(f.sub(f.k(x, 1), x), f.add(x, 1.0)));
    return f.mul(atan_of(f, f.div(x, f.add(root, 1.0))), 2.0);
  });
}

// acos(x) = 2 atan(sqrt((1-x)/(1+x))); pi at -1, NaN outside [-1, 1].
void import_Acos(NodeContext& c) {
  in_float32(c, "acos decomposition", [](Ops& f, const MLOperand& x) {
    MLOperand ratio = f.div(f.sub(f.k(x, 1), x), f.add(x, 1.0));
    return f.mul(atan_of(f, f.sqrt(ratio)), 2.0);
  });
}

// sinh(x) = (e^x - e^-x) / 2, and its Taylor series below |x| = 1.
void import_Sinh(NodeContext& c) {
  in_float32(c, "sinh decomposition", [](Ops& f, const MLOperand& x) {
    MLOperand z = f.mul(x, x);
    MLOperand series =
        f.mul(x, f.poly(z, {1.0, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800}));
    MLOperand closed = f.mul(f.sub(f.exp(x), f.exp(f.neg(x))), 0.5);
    return near_zero(f, x, 1.0, series, closed);
  });
}

// cosh(x) = (e^x + e^-x) / 2.
void import_Cosh(NodeContext& c) {
  in_float32(c, "cosh decomposition", [](Ops& f, const MLOperand& x) {
    return f.mul(f.add(f.exp(x), f.exp(f.neg(x))), 0.5);
  });
}

// asinh(x) = sign(x) ln(|x| + sqrt(x^2 + 1)), and its series below |x| = 1/8.
void import_Asinh(NodeContext& c) {
  in_float32(c, "asinh decomposition", [](Ops& f, const MLOperand& x) {
    MLOperand z = f.mul(x, x);
    MLOperand series = f.mul(x, f.poly(z, {1.0, -1.0 / 6, 3.0 / 40, -15.0 / 336, 105.0 / 3456}));
    MLOperand ax = f.abs(x);
    MLOperand closed = f.mul(f.log(f.add(ax, f.sqrt(f.add(z, 1.0)))), f.b().sign(x, f.o));
    return near_zero(f, x, 0.125, series, closed);
  });
}

// acosh(x) = ln(x + sqrt((x-1)(x+1))); NaN below 1.
void import_Acosh(NodeContext& c) {
  in_float32(c, "acosh decomposition", [](Ops& f, const MLOperand& x) {
    return f.log(f.add(x, f.sqrt(f.mul(f.sub(x, 1.0), f.add(x, 1.0)))));
  });
}

// atanh(x) = ln((1+x)/(1-x)) / 2, and its series below |x| = 1/8.
void import_Atanh(NodeContext& c) {
  in_float32(c, "atanh decomposition", [](Ops& f, const MLOperand& x) {
    MLOperand z = f.mul(x, x);
    MLOperand series = f.mul(x, f.poly(z, {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11}));
    MLOperand closed = f.mul(f.log(f.div(f.add(x, 1.0), f.sub(f.k(x, 1), x))), 0.5);
    return near_zero(f, x, 0.125, series, closed);
  });
}

}  // namespace cppnn::onnx_import
