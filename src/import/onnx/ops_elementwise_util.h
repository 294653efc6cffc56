// Helpers shared by the elementwise and activation handlers (ops_elementwise*.cpp,
// ops_activations.cpp): data type classes, float-only inputs, legacy (opset < 7) broadcasting and
// small arithmetic shorthands that record WebNN ops with the node's label.
#pragma once

#include <string>
#include <vector>

#include "src/import/onnx/node_context.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {

// uint8, uint32 or uint64 (no negative values).
bool is_unsigned_type(MLOperandDataType t);

// Input i, which WebNN op `webnn_op` (float32/float16 only) takes: NotSupportedError naming the
// type otherwise.
MLOperand float_input(NodeContext& c, size_t i, const char* webnn_op);

// Input 1 of a binary node, reshaped for the legacy `broadcast`/`axis` attributes (opsets before
// 7: with `axis`, b's dimensions line up with a's from `axis` on); unchanged from opset 7 on,
// where broadcasting is numpy's multidirectional one, which WebNN binary ops share.
MLOperand binary_rhs(NodeContext& c, size_t a_rank);

// Shorthands recording one WebNN op on c.builder() with the node's label.
struct Ops {
  NodeContext& c;
  MLOperatorOptions o;
  explicit Ops(NodeContext& ctx) : c(ctx), o(ctx.opts<MLOperatorOptions>()) {}
  MLGraphBuilder& b() { return c.builder(); }
  // A scalar of x's data type.
  MLOperand k(const MLOperand& like, double v) { return c.scalar(like.dataType(), v); }
  MLOperand add(const MLOperand& x, const MLOperand& y) { return b().add(x, y, o); }
  MLOperand sub(const MLOperand& x, const MLOperand& y) { return b().sub(x, y, o); }
  MLOperand mul(const MLOperand& x, const MLOperand& y) { return b().mul(x, y, o); }
  MLOperand div(const MLOperand& x, const MLOperand& y) { return b().div(x, y, o); }
  MLOperand add(const MLOperand& x, double v) { return add(x, k(x, v)); }
  MLOperand sub(const MLOperand& x, double v) { return sub(x, k(x, v)); }
  MLOperand mul(const MLOperand& x, double v) { return mul(x, k(x, v)); }
  MLOperand where(const MLOperand& cond, const MLOperand& x, const MLOperand& y) {
    return b().where(cond, x, y, o);
  }
  MLOperand less(const MLOperand& x, double v) { return b().lesser(x, k(x, v), o); }
  MLOperand greater(const MLOperand& x, double v) { return b().greater(x, k(x, v), o); }
  MLOperand exp(const MLOperand& x) { return b().exp(x, o); }
  MLOperand log(const MLOperand& x) { return b().log(x, o); }
  MLOperand sqrt(const MLOperand& x) { return b().sqrt(x, o); }
  MLOperand abs(const MLOperand& x) { return b().abs(x, o); }
  MLOperand neg(const MLOperand& x) { return b().neg(x, o); }
  MLOperand tanh(const MLOperand& x) { return b().tanh(x, o); }
  // The polynomial sum_i coeffs[i] * z^i (Horner).
  MLOperand poly(const MLOperand& z, const std::vector<double>& coeffs);
};

// "float16", "int64", ... for messages.
std::string type_name(MLOperandDataType t);

}  // namespace cppnn::onnx_import
