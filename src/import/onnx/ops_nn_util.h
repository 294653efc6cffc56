// Helpers shared by the nn family's ONNX operator handlers (ops_nn_*.cpp): spatial attributes of
// Conv, ConvTranspose and the pools (kernel, strides, dilations, pads with auto_pad), and small
// operand utilities (reshape, float checks, the pre-opset-13 2-D coercion of Softmax & co).
#pragma once

#include <cstdint>
#include <vector>

#include "src/import/onnx/node_context.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {

// Per spatial axis: kernel size, stride, dilation and begin/end padding (ONNX order per axis).
struct SpatialParams {
  std::vector<uint32_t> kernel, strides, dilations, pad_begin, pad_end;
};

// Reads kernel_shape (or `kernel` when absent), strides, dilations, pads and auto_pad of a Conv
// or pool node over `in` (the spatial input dims). auto_pad SAME_UPPER / SAME_LOWER give
// out = ceil(in / stride) with the extra pad at the end / beginning; VALID gives no padding;
// NOTSET reads pads as [x1_begin, x2_begin, ..., x1_end, x2_end].
SpatialParams spatial_params(const NodeContext& c, const std::vector<uint32_t>& in,
                             const std::vector<uint32_t>& kernel);
// The dilated kernel extent (k − 1)·d + 1.
int64_t effective_kernel(uint32_t k, uint32_t d);
// WebNN padding [beginH, endH, beginW, endW] of 2-D params (1-D params as W with H unpadded).
std::vector<uint32_t> webnn_padding(const SpatialParams& p);
// 2-D WebNN lists of a 1-D or 2-D attribute (1-D: [1, v]).
std::vector<uint32_t> two_d(const std::vector<uint32_t>& v, uint32_t fill = 1);

// Input i reshaped to `shape` (a host reshape for known values).
MLOperand reshaped_input(NodeContext& c, size_t i, const std::vector<uint32_t>& shape);
// `x` reshaped to `shape` unless it has it already.
MLOperand reshape_to(NodeContext& c, const MLOperand& x, const std::vector<uint32_t>& shape);
// NotSupportedError unless input i is float32 or float16 (WebNN's float-only ops).
void require_float(const NodeContext& c, size_t i, const char* op);
// Shape with 1 inserted at `axis` (the WebNN axis convention for 1-D spatial inputs).
std::vector<uint32_t> insert_one(std::vector<uint32_t> shape, size_t axis);
// Product of shape[from, to).
uint64_t dims_product(const NodeContext& c, const std::vector<uint32_t>& shape, size_t from,
                      size_t to);

// float32 arithmetic on the node's builder, every operation labelled with the node (the
// decompositions of GridSample and RoiAlign).
struct Float32Arith {
  NodeContext& c;
  MLGraphBuilder& b;
  MLOperatorOptions o;

  explicit Float32Arith(NodeContext& ctx)
      : c(ctx), b(ctx.builder()), o(ctx.opts<MLOperatorOptions>()) {}
  MLOperand k(double v) { return c.scalar(MLOperandDataType::kFloat32, v); }
  MLOperand add(const MLOperand& x, const MLOperand& y) { return b.add(x, y, o); }
  MLOperand sub(const MLOperand& x, const MLOperand& y) { return b.sub(x, y, o); }
  MLOperand mul(const MLOperand& x, const MLOperand& y) { return b.mul(x, y, o); }
  MLOperand div(const MLOperand& x, const MLOperand& y) { return b.div(x, y, o); }
  MLOperand floor(const MLOperand& x) { return b.floor(x, o); }
  MLOperand where(const MLOperand& m, const MLOperand& x, const MLOperand& y) {
    return b.where(m, x, y, o);
  }
  MLOperand lt(const MLOperand& x, const MLOperand& y) { return b.lesser(x, y, o); }
  MLOperand gt(const MLOperand& x, const MLOperand& y) { return b.greater(x, y, o); }
  MLOperand ge(const MLOperand& x, const MLOperand& y) { return b.greaterOrEqual(x, y, o); }
  MLOperand le(const MLOperand& x, const MLOperand& y) { return b.lesserOrEqual(x, y, o); }
  MLOperand both(const MLOperand& x, const MLOperand& y) { return b.logicalAnd(x, y, o); }
  MLOperand either(const MLOperand& x, const MLOperand& y) { return b.logicalOr(x, y, o); }
  // [0 .. n) + offset as a float32 constant with `shape` (n along one axis).
  MLOperand iota(uint32_t n, double offset, std::vector<uint32_t> shape);
};

}  // namespace cppnn::onnx_import
