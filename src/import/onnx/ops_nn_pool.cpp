// ONNX pooling operators (ops_nn.def): MaxPool, AveragePool and LpPool (p = 2) as WebNN
// maxPool2d / averagePool2d / l2Pool2d over 1-D ([N, C, 1, L]) or 2-D windows, and the global
// pools as reductions over every spatial axis. ceil_mode becomes extra end padding (WebNN pools
// ignore padded positions), with PyTorch's rule that the last window must start inside the input
// or its begin padding; count_include_pad becomes an explicit zero pad. 3-D pools are two 2-D
// pools (ops_nn_pool3d.cpp); MaxPool's Indices output is ops_nn_pool_indices.cpp.
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_pool3d.h"
#include "src/import/onnx/ops_nn_pool_indices.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// ONNX's ceil_mode output sizes of p over `in` (the last window must start inside the input or
// its begin padding, as in ORT and PyTorch).
std::vector<int64_t> ceil_mode_sizes(const SpatialParams& p, const std::vector<uint32_t>& in) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t s = p.strides[i];
    const int64_t span = static_cast<int64_t>(in[i]) + p.pad_begin[i] + p.pad_end[i] -
                         effective_kernel(p.kernel[i], p.dilations[i]);
    int64_t o = span < 0 ? 0 : (span + s - 1) / s + 1;
    if (o > 1 && (o - 1) * s >= static_cast<int64_t>(in[i]) + p.pad_begin[i]) --o;
    out.push_back(o);
  }
  return out;
}

// Extends p's end padding so that a floor-rounded WebNN pool over `in` gives `out` (padded
// positions never count in WebNN pools).
void extend_to(SpatialParams& p, const std::vector<uint32_t>& in, const std::vector<int64_t>& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (out[i] <= 0) continue;
    const int64_t need = (out[i] - 1) * p.strides[i] +
                         effective_kernel(p.kernel[i], p.dilations[i]) -
                         (static_cast<int64_t>(in[i]) + p.pad_begin[i]);
    p.pad_end[i] = static_cast<uint32_t>(std::max<int64_t>(need, p.pad_end[i]));
  }
}

void pool(NodeContext& c, PoolKind kind) {
  const size_t rank = c.input_rank(0);
  if (rank < 3) c.invalid("input rank " + std::to_string(rank) + " is below 3");
  if (rank > 5) c.unsupported(std::to_string(rank - 2) + "-D pooling (WebNN pools are 2-D)");
  if (kind != PoolKind::kMax) require_float(c, 0, "averagePool2d / l2Pool2d");
  const size_t n = rank - 2;
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t> in(xs.begin() + 2, xs.end());
  if (!c.has_attr("kernel_shape")) c.invalid("kernel_shape is required");
  SpatialParams p = spatial_params(c, in, {});
  MLOperand x = n == 1 ? reshaped_input(c, 0, insert_one(xs, 2)) : c.input(0);
  const bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  const std::vector<int64_t> ceil_out = ceil_mode ? ceil_mode_sizes(p, in) : std::vector<int64_t>{};
  std::vector<uint32_t> pooled_in = in;
  bool padded = false;
  for (size_t i = 0; i < n; ++i) padded = padded || p.pad_begin[i] || p.pad_end[i];
  if (kind == PoolKind::kAverage && c.attr_int("count_include_pad", 0) != 0 && padded) {
    // Padded zeros count: pad explicitly, then pool without padding.
    std::vector<uint32_t> b = {0, 0}, e = {0, 0};
    if (n == 1) b.push_back(0), e.push_back(0);
    b.insert(b.end(), p.pad_begin.begin(), p.pad_begin.end());
    e.insert(e.end(), p.pad_end.begin(), p.pad_end.end());
    x = c.builder().pad(x, b, e, c.opts<MLPadOptions>());
    for (size_t i = 0; i < n; ++i) pooled_in[i] = in[i] + p.pad_begin[i] + p.pad_end[i];
    p.pad_begin.assign(n, 0);
    p.pad_end.assign(n, 0);
  }
  if (ceil_mode) extend_to(p, pooled_in, ceil_out);
  if (n == 3) {
    const MLOperand y = pool3d(c, kind, x, p);
    c.set_output(0, y);
    if (c.wants_output(1)) c.set_output(1, maxpool_indices(c, p, y));
    return;
  }
  MLPool2dOptions o = c.opts<MLPool2dOptions>();
  o.windowDimensions = two_d(p.kernel);
  o.padding = webnn_padding(p);
  o.strides = two_d(p.strides);
  o.dilations = two_d(p.dilations);
  MLOperand y = kind == PoolKind::kMax       ? c.builder().maxPool2d(x, o)
                : kind == PoolKind::kAverage ? c.builder().averagePool2d(x, o)
                                             : c.builder().l2Pool2d(x, o);
  if (n == 1) y = reshape_to(c, y, {y.shape()[0], y.shape()[1], y.shape()[3]});
  c.set_output(0, y);
  if (c.wants_output(1)) c.set_output(1, maxpool_indices(c, p, y));
}

// Reduction of every spatial axis, keeping them as 1. A float rank-4 input is a pool whose
// window is the whole input (averagePool2d/maxPool2d without windowDimensions), the same values
// as the reduction, which backends run as a global pool in their own layout (ONNX Runtime's
// GlobalAveragePool stays in its blocked NCHWc layout where ReduceMean would reorder).
void global_pool(NodeContext& c, bool max) {
  const size_t rank = c.input_rank(0);
  if (rank < 2) c.invalid("input rank " + std::to_string(rank) + " is below 2");
  if (!max) require_float(c, 0, "reduceMean");
  if (rank == 4 && is_float_type(c.input_type(0))) {
    MLPool2dOptions p = c.opts<MLPool2dOptions>();
    MLOperand x = c.input(0);
    return c.set_output(0, max ? c.builder().maxPool2d(x, p) : c.builder().averagePool2d(x, p));
  }
  MLReduceOptions o = c.opts<MLReduceOptions>();
  std::vector<uint32_t> axes;
  for (size_t i = 2; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  o.axes = axes;
  o.keepDimensions = true;
  MLOperand x = c.input(0);
  c.set_output(0, max ? c.builder().reduceMax(x, o) : c.builder().reduceMean(x, o));
}

}  // namespace

// storage_order only matters for the Indices output (ops_nn_pool_indices.cpp).
void import_MaxPool(NodeContext& c) {
  pool(c, PoolKind::kMax);
}

void import_AveragePool(NodeContext& c) {
  pool(c, PoolKind::kAverage);
}

// LpPool's p: an int, or a float before opset 2.
static bool p_is_two(const NodeContext& c) {
  const auto* a = c.attr("p");
  if (!a) return true;
  return a->type() == onnx::AttributeProto::FLOAT ? a->f() == 2.0f : a->i() == 2;
}

void import_LpPool(NodeContext& c) {
  if (!p_is_two(c)) c.unsupported("p other than 2 (WebNN has l2Pool2d only)");
  pool(c, PoolKind::kL2);
}

void import_GlobalAveragePool(NodeContext& c) {
  global_pool(c, false);
}

void import_GlobalMaxPool(NodeContext& c) {
  global_pool(c, true);
}

void import_GlobalLpPool(NodeContext& c) {
  if (!p_is_two(c)) c.unsupported("p other than 2 (WebNN has reduceL2 only)");
  const size_t rank = c.input_rank(0);
  require_float(c, 0, "reduceL2");
  MLReduceOptions o = c.opts<MLReduceOptions>();
  std::vector<uint32_t> axes;
  for (size_t i = 2; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  o.axes = axes;
  o.keepDimensions = true;
  c.set_output(0, c.builder().reduceL2(c.input(0), o));
}

}  // namespace cppnn::onnx_import
