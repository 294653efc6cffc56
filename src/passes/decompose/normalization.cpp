// Decompositions of the normalization ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). Each computes
// (x - mean) / √(variance + ε) · scale + bias with elementwise ops and reduceSum, float16 in
// float32 (the reference kernels compute in double and round once); ε is first cast to the input
// type, as the reference kernels do (§3.6).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "src/ops/normalization_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

// The optional scale and bias of a normalization, broadcastable against x (null when absent).
struct Params {
  MLOperand scale;
  MLOperand bias;
};

// A parameter whose dims are those of x at `axes` (in `axes` order), transposed into ascending
// axis order and reshaped to x's rank with 1 elsewhere so that it broadcasts against x; widened.
MLOperand broadcastable(MLGraphBuilder& b, const MLOperand& p, const std::vector<uint32_t>& axes,
                        std::vector<uint32_t> x_shape) {
  std::vector<uint32_t> order(axes.size());
  std::iota(order.begin(), order.end(), 0u);
  const std::vector<uint32_t> identity = order;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t i, uint32_t j) { return axes[i] < axes[j]; });
  const MLOperand sorted = order == identity ? p : b.transpose(p, {.permutation = order});
  std::vector<uint32_t> shape(x_shape.size(), 1);
  for (uint32_t a : axes) shape[a] = x_shape[a];
  return widen(b, sorted.shape() == shape ? sorted : b.reshape(sorted, shape));
}

// The optional parameter ctx.input(i) made broadcastable, or a null operand when absent.
MLOperand optional_param(DecomposeContext& c, size_t i, const std::vector<uint32_t>& axes) {
  if (!c.has_input(i)) return {};
  return broadcastable(c.builder(), c.input(i), axes, c.input(0).shape());
}

// ε as the input type holds it, in the compute type (float32 for float16).
MLOperand epsilon(MLGraphBuilder& b, MLOperandDataType type, double eps) {
  return widen(b, scalar(b, type, eps));
}

// d / √(variance + ε) · scale + bias in the reference's order; without bias, + 0 still (so -0
// becomes +0 as in the reference's y + 0.0); the result narrowed to `type`.
MLOperand normalized(MLGraphBuilder& b, const MLOperand& d, const MLOperand& variance,
                     const MLOperand& eps, const Params& p, MLOperandDataType type) {
  MLOperand y = b.div(d, b.sqrt(b.add(variance, eps)));
  if (!p.scale.is_null()) y = b.mul(y, p.scale);
  y = b.add(y, p.bias.is_null() ? scalar_like(b, y, 0) : p.bias);
  return narrow(b, y, type);
}

// The mean over `axes` of x (kept as size 1): reduceSum / count.
MLOperand mean_over(MLGraphBuilder& b, const MLOperand& x, const std::vector<uint32_t>& axes) {
  uint64_t count = 1;
  const std::vector<uint32_t> shape = x.shape();
  for (uint32_t a : axes) count *= shape[a];
  const MLOperand sum = b.reduceSum(x, {.axes = axes, .keepDimensions = true});
  return b.div(sum, scalar_like(b, sum, static_cast<double>(count)));
}

// Normalization of input x over `axes` with the group's own mean and population variance
// (instanceNormalization, layerNormalization emulation), float16 in float32.
MLOperand normalize_groups(MLGraphBuilder& b, const MLOperand& input,
                           const std::vector<uint32_t>& axes, double eps, const Params& p) {
  const MLOperand x = widen(b, input);
  const MLOperand d = b.sub(x, mean_over(b, x, axes));
  const MLOperand variance = mean_over(b, b.mul(d, d), axes);
  return normalized(b, d, variance, epsilon(b, input.dataType(), eps), p, input.dataType());
}

// batchNormalization: (x - mean) / √(variance + ε) · scale + bias with the given per-channel
// mean and variance along `axis` (spec emulation).
std::vector<MLOperand> decompose_batch_normalization(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& o = c.attrs<OpType::kBatchNormalization>().options;
  const MLOperand input = c.input(0);
  const std::vector<uint32_t> axes{o.axis};
  const std::vector<uint32_t> shape = input.shape();
  const MLOperand x = widen(b, input);
  const MLOperand d = b.sub(x, broadcastable(b, c.input(1), axes, shape));
  const MLOperand variance = broadcastable(b, c.input(2), axes, shape);
  const Params p{optional_param(c, 3, axes), optional_param(c, 4, axes)};
  return {normalized(b, d, variance, epsilon(b, input.dataType(), o.epsilon), p, input.dataType())};
}

// instanceNormalization: per batch and channel over the spatial dims ([2, 3] for nchw, [1, 2]
// for nhwc), scale and bias per channel (spec emulation).
std::vector<MLOperand> decompose_instance_normalization(DecomposeContext& c) {
  const auto& o = c.attrs<OpType::kInstanceNormalization>().options;
  const bool nchw = o.layout == MLInputOperandLayout::kNchw;
  const std::vector<uint32_t> channel{nchw ? 1u : 3u};
  const std::vector<uint32_t> spatial = nchw ? std::vector<uint32_t>{2, 3} : std::vector{1u, 2u};
  const Params p{optional_param(c, 1, channel), optional_param(c, 2, channel)};
  return {normalize_groups(c.builder(), c.input(0), spatial, o.epsilon, p)};
}

// layerNormalization: over `axes` (default [1..rank-1], [] normalizes each element alone), scale
// and bias with the dims of `axes` in that order (spec emulation).
std::vector<MLOperand> decompose_layer_normalization(DecomposeContext& c) {
  const auto& o = c.attrs<OpType::kLayerNormalization>().options;
  const std::vector<uint32_t> axes = layer_normalization_axes(o, c.input_desc(0).shape.size());
  const Params p{optional_param(c, 1, axes), optional_param(c, 2, axes)};
  return {normalize_groups(c.builder(), c.input(0), axes, o.epsilon, p)};
}

}  // namespace

void register_normalization(DecompositionTable& t) {
  using enum OpType;
  const std::vector<DecompositionUse> uses{{kCast}, {kTranspose}, {kReshape}, {kSub},      {kAdd},
                                           {kMul},  {kDiv},       {kSqrt},    {kReduceSum}};
  t.add(kBatchNormalization, decompose_batch_normalization, uses);
  t.add(kInstanceNormalization, decompose_instance_normalization, uses);
  t.add(kLayerNormalization, decompose_layer_normalization, uses);
}

}  // namespace cppnn::passes
