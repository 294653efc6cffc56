// ONNX normalization operators (ops_nn.def): BatchNormalization (inference, and the opset-14
// training form decomposed with batch statistics), InstanceNormalization (any spatial rank, as a
// 4-D WebNN instanceNormalization), LayerNormalization (with its optional Mean and InvStdDev
// outputs decomposed), LRN (a channel window sum as an average pool) and
// MeanVarianceNormalization (its ONNX function body).
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// Input i cast to `type` (ONNX lets statistics and scales have their own float type).
MLOperand input_as(NodeContext& c, size_t i, MLOperandDataType type) {
  return cast_to(c, c.input(i), type);
}

// Every axis of a rank-`rank` tensor but `keep`.
std::vector<uint32_t> axes_except(size_t rank, size_t keep) {
  std::vector<uint32_t> axes;
  for (size_t i = 0; i < rank; ++i)
    if (i != keep) axes.push_back(static_cast<uint32_t>(i));
  return axes;
}

// reduceMean over `axes`, keeping them as 1.
MLOperand mean_keep(NodeContext& c, const MLOperand& x, const std::vector<uint32_t>& axes) {
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.axes = axes;
  o.keepDimensions = true;
  return c.builder().reduceMean(x, o);
}

// Training-mode BatchNormalization (opset 14+): normalizes with the batch mean and (biased)
// variance and outputs the running statistics blended with `momentum`.
void batch_norm_training(NodeContext& c) {
  MLGraphBuilder& b = c.builder();
  const MLOperand x = c.input(0);
  const MLOperandDataType t = x.dataType();
  const size_t rank = x.shape().size();
  const uint32_t channels = x.shape()[1];
  const std::vector<uint32_t> axes = axes_except(rank, 1);
  const MLOperand mean = mean_keep(c, x, axes);
  const auto L = c.opts<MLOperatorOptions>();
  const MLOperand centered = b.sub(x, mean, L);
  const MLOperand var = mean_keep(c, b.mul(centered, centered, L), axes);
  const MLOperand mean1 = reshape_to(c, mean, {channels});
  const MLOperand var1 = reshape_to(c, var, {channels});
  MLBatchNormalizationOptions o = c.opts<MLBatchNormalizationOptions>();
  o.epsilon = c.attr_float("epsilon", 1e-5f);
  o.scale = input_as(c, 1, t);
  o.bias = input_as(c, 2, t);
  c.set_output(0, b.batchNormalization(x, mean1, var1, o));
  const double momentum = c.attr_float("momentum", 0.9f);
  auto blend = [&](size_t i, const MLOperand& batch) {
    const MLOperand running = c.input(i);
    const MLOperandDataType rt = running.dataType();
    return b.add(b.mul(running, c.scalar(rt, momentum), L),
                 b.mul(cast_to(c, batch, rt), c.scalar(rt, 1.0 - momentum), L), L);
  };
  if (c.wants_output(1)) c.set_output(1, blend(3, mean1));
  if (c.wants_output(2)) c.set_output(2, blend(4, var1));
}

}  // namespace

void import_BatchNormalization(NodeContext& c) {
  require_float(c, 0, "batchNormalization");
  if (c.input_rank(0) < 2) c.invalid("input rank below 2");
  if (c.opset() < 9 && c.attr_int("spatial", 1) == 0)
    c.unsupported("spatial = 0 (per-activation statistics)");
  const bool training = c.opset() >= 14 && c.attr_int("training_mode", 0) != 0;
  if (training) return batch_norm_training(c);
  for (size_t i = 1; i < c.output_count(); ++i)
    if (c.wants_output(i)) c.unsupported("training outputs (running or saved statistics)");
  const MLOperandDataType t = c.input_type(0);
  MLBatchNormalizationOptions o = c.opts<MLBatchNormalizationOptions>();
  o.epsilon = c.attr_float("epsilon", 1e-5f);
  o.scale = input_as(c, 1, t);
  o.bias = input_as(c, 2, t);
  c.set_output(0,
               c.builder().batchNormalization(c.input(0), input_as(c, 3, t), input_as(c, 4, t), o));
}

void import_InstanceNormalization(NodeContext& c) {
  require_float(c, 0, "instanceNormalization");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  if (xs.size() < 3) c.invalid("input rank below 3");
  const MLOperandDataType t = c.input_type(0);
  const auto spatial = static_cast<uint32_t>(dims_product(c, xs, 2, xs.size()));
  MLOperand x = xs.size() == 4 ? c.input(0) : reshaped_input(c, 0, {xs[0], xs[1], 1, spatial});
  MLInstanceNormalizationOptions o = c.opts<MLInstanceNormalizationOptions>();
  o.epsilon = c.attr_float("epsilon", 1e-5f);
  o.scale = input_as(c, 1, t);
  o.bias = input_as(c, 2, t);
  c.set_output(0, reshape_to(c, c.builder().instanceNormalization(x, o), xs));
}

void import_LayerNormalization(NodeContext& c) {
  require_float(c, 0, "layerNormalization");
  MLGraphBuilder& b = c.builder();
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const size_t rank = xs.size();
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", -1), rank);
  const MLOperandDataType t = c.input_type(0);
  const bool stash_f32 = c.attr_int("stash_type", 1) == 1 && t == MLOperandDataType::kFloat16;
  const MLOperandDataType ct = stash_f32 ? MLOperandDataType::kFloat32 : t;
  std::vector<uint32_t> axes;
  for (size_t i = axis; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  const std::vector<uint32_t> norm_shape(xs.begin() + axis, xs.end());
  // Scale and bias broadcast to the normalized shape (WebNN wants them exactly that shape).
  auto param = [&](size_t i) {
    MLOperand v = cast_to(c, c.input(i), ct);
    if (v.shape() == norm_shape) return v;
    const std::vector<uint32_t> full = broadcast_shapes(c, v.shape(), norm_shape);
    if (full != norm_shape) c.invalid("scale or bias does not broadcast to the normalized shape");
    const std::vector<uint32_t> shape = v.shape();
    std::vector<uint32_t> padded(norm_shape.size() - shape.size(), 1);
    padded.insert(padded.end(), shape.begin(), shape.end());
    return b.expand(reshape_to(c, v, padded), norm_shape, c.opts<MLOperatorOptions>());
  };
  const MLOperand x = cast_to(c, c.input(0), ct);
  MLLayerNormalizationOptions o = c.opts<MLLayerNormalizationOptions>();
  o.axes = axes;
  const double eps = c.attr_float("epsilon", 1e-5f);
  o.epsilon = eps;
  o.scale = param(1);
  if (c.has_input(2)) o.bias = param(2);
  c.set_output(0, cast_to(c, b.layerNormalization(x, o), t));
  if (!c.wants_output(1) && !c.wants_output(2)) return;
  const MLOperand mean = mean_keep(c, x, axes);
  c.set_output(1, mean);
  if (c.wants_output(2)) {
    const auto L = c.opts<MLOperatorOptions>();
    const MLOperand d = b.sub(x, mean, L);
    const MLOperand var = mean_keep(c, b.mul(d, d, L), axes);
    c.set_output(2, b.reciprocal(b.sqrt(b.add(var, c.scalar(ct, eps), L), L), L));
  }
}

void import_LRN(NodeContext& c) {
  require_float(c, 0, "averagePool2d");
  MLGraphBuilder& b = c.builder();
  const std::vector<uint32_t>& xs = c.input_shape(0);
  if (xs.size() < 2) c.invalid("input rank below 2");
  const int64_t size = c.attr_int("size", 0);
  if (size <= 0) c.invalid("size must be positive");
  const double alpha = c.attr_float("alpha", 1e-4f), beta = c.attr_float("beta", 0.75f),
               bias = c.attr_float("bias", 1.0f);
  const MLOperandDataType t = c.input_type(0);
  const auto rest = static_cast<uint32_t>(dims_product(c, xs, 2, xs.size()));
  const MLOperand x = c.input(0);
  // Sum of squares over the channel window [c − ⌊(size−1)/2⌋, c + ⌈(size−1)/2⌉], as size times
  // the mean of a zero-padded window of `size` channels.
  const auto L = c.opts<MLOperatorOptions>();
  MLOperand sq = reshape_to(c, b.mul(x, x, L), {xs[0], 1, xs[1], rest});
  const auto lo = static_cast<uint32_t>((size - 1) / 2), hi = static_cast<uint32_t>(size / 2);
  sq = b.pad(sq, {0, 0, lo, 0}, {0, 0, hi, 0}, c.opts<MLPadOptions>());
  MLPool2dOptions o = c.opts<MLPool2dOptions>();
  o.windowDimensions = std::vector<uint32_t>{static_cast<uint32_t>(size), 1};
  const MLOperand mean = reshape_to(c, b.averagePool2d(sq, o), xs);
  const MLOperand base = b.add(c.scalar(t, bias), b.mul(mean, c.scalar(t, alpha), L), L);
  c.set_output(0, b.div(x, b.pow(base, c.scalar(t, beta), L), L));
}

void import_MeanVarianceNormalization(NodeContext& c) {
  require_float(c, 0, "reduceMean");
  MLGraphBuilder& b = c.builder();
  const size_t rank = c.input_rank(0);
  const std::vector<uint32_t> axes = normalize_axes(c, c.attr_ints("axes", {0, 2, 3}), rank);
  const MLOperandDataType t = c.input_type(0);
  const MLOperand x = c.input(0);
  const MLOperand mean = mean_keep(c, x, axes);
  const auto L = c.opts<MLOperatorOptions>();
  const MLOperand mean_sq = mean_keep(c, b.mul(x, x, L), axes);
  const MLOperand std = b.sqrt(b.sub(mean_sq, b.mul(mean, mean, L), L), L);
  c.set_output(0, b.div(b.sub(x, mean, L), b.add(std, c.scalar(t, 1e-9), L), L));
}

}  // namespace cppnn::onnx_import
