// TFLite lowerings of the normalizations (lower.h; webnn-spec.md §2 rows 3, 57, 58):
// y = (x − mean) / √(variance + ε) · scale + bias with elementwise builtins, in float32 (float16
// too, emitter.h: the variance of small float16 values would underflow in float16). ε is first
// cast to the input type (§3.6), as the reference kernels do. The mean is subtracted first
// (x · k + (bias − mean · k) cancels for x near the mean). instanceNormalization and
// layerNormalization take their statistics with MEAN (keep_dims) over the normalized axes, any
// layout or set of axes; the division is a product with RSQRT(variance + ε).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include "cppnn/number.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_compute_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/ops/normalization_params.h"

namespace cppnn::tflite_export {

namespace {

using Op = tfl::BuiltinOperator;

// ε as the input type `t` holds it (§3.6).
double epsilon_of(MLOperandDataType t, double epsilon) {
  return MLNumber(epsilon).cast_to_double(t);
}

// The shape that makes a parameter with the dims of x at the ascending `axes` broadcast against
// x: x's dims at `axes`, 1 elsewhere, the leading 1s dropped (TFLite aligns trailing dims).
std::vector<int32_t> param_shape(const std::vector<int32_t>& x_shape,
                                 const std::vector<uint32_t>& axes) {
  if (axes.empty()) return {};
  std::vector<int32_t> shape(x_shape.size(), 1);
  for (uint32_t a : axes) shape[a] = x_shape[a];
  return std::vector<int32_t>(shape.begin() + axes.front(), shape.end());
}

// The optional parameter op.inputs[i] shaped to broadcast against x over `axes` (the parameter's
// dims are x's dims at `axes`, in `axes` order: transposed into ascending order first when
// `axes` is not ascending), or nullopt when absent. x_shape is a copy: Emitter::shape_of()
// references move as tensors are added.
std::optional<TensorIndex> param(Emitter& e, const Operation& op, size_t i,
                                 const std::vector<uint32_t>& axes, std::vector<int32_t> x_shape) {
  if (!has_input(op, i)) return std::nullopt;
  TensorIndex p = e.value(op.inputs[i]);
  std::vector<int32_t> order(axes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return axes[static_cast<size_t>(a)] < axes[static_cast<size_t>(b)];
  });
  bool ascending = true;
  for (size_t k = 0; k < order.size(); ++k)
    ascending = ascending && order[k] == static_cast<int32_t>(k);
  if (!ascending) p = e.transpose(p, order);
  std::vector<uint32_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  return reshaped(e, p, param_shape(x_shape, sorted));
}

// MEAN of x over `axes`, dims kept; x itself for no axes.
TensorIndex mean_over(Emitter& e, TensorIndex x, const std::vector<uint32_t>& axes) {
  if (axes.empty()) return x;
  std::vector<int32_t> shape = e.shape_of(x);
  for (uint32_t a : axes) shape[a] = 1;
  return e.op1(Op::MEAN, {x, e.const_i32(to_i32(axes))}, e.type_of(x), std::move(shape),
               tfl::BuiltinOptions::ReducerOptions,
               tfl::CreateReducerOptions(e.fbb(), true).Union());
}

// The number of elements of a shape.
int64_t element_count(const std::vector<int32_t>& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

// The float32 values of a constant tensor, or nullopt.
std::optional<std::vector<float>> constant_floats(Emitter& e, TensorIndex t) {
  if (!e.is_constant(t)) return std::nullopt;
  const auto bytes = e.constant_bytes(t);
  std::vector<float> v(bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

// Normalization of x over `axes` with the group's own statistics (instance and layer
// normalization): d = x − MEAN(x); y = d · RSQRT(MEAN(d · d) + ε) · scale + bias. The scale is
// folded into the RSQRT tensor when their product is smaller than x (instanceNormalization's
// per-channel scale: one pass over x fewer); without a bias, no addition (it would only turn −0
// into +0).
TensorIndex normalize_groups(Emitter& e, TensorIndex x, const std::vector<uint32_t>& axes,
                             double eps, std::optional<TensorIndex> scale,
                             std::optional<TensorIndex> bias) {
  const TensorIndex d = binary(e, Op::SUB, x, mean_over(e, x, axes));
  const TensorIndex variance = mean_over(e, binary(e, Op::MUL, d, d), axes);
  TensorIndex k = unary(e, Op::RSQRT, binary(e, Op::ADD, variance, f32_scalar(e, eps)));
  if (scale && element_count(broadcast_shape(e.shape_of(k), e.shape_of(*scale))) <
                   element_count(e.shape_of(x))) {
    k = binary(e, Op::MUL, k, *scale);
    scale.reset();
  }
  TensorIndex y = binary(e, Op::MUL, d, k);
  if (scale) y = binary(e, Op::MUL, y, *scale);
  if (bias) y = binary(e, Op::ADD, y, *bias);
  return y;
}

}  // namespace

bool lowers_normalization(const Graph& graph, const Operation& op) {
  return is_float(data_type_of(graph, op.inputs[0]));
}

// batchNormalization (row 3): the per-channel parameters along `axis` reshaped to [C, 1, ...];
// d = x − mean; with constant variance (and scale), k = scale / √(variance + ε) is computed at
// conversion in double and rounded once, y = d · k + bias (three passes over x); otherwise
// y = d / SQRT(variance + ε) · scale + bias in the spec's order.
void lower_batchNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kBatchNormalization>& attrs) {
  const MLOperandDataType t = data_type_of(e.graph(), op.inputs[0]);
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<int32_t> x_shape = e.shape_of(x);
  const std::vector<uint32_t> axes{attrs.options.axis};
  const std::vector<int32_t> shape = param_shape(x_shape, axes);
  const double eps = epsilon_of(t, attrs.options.epsilon);
  const TensorIndex mean = reshaped(e, e.value(op.inputs[1]), shape);
  const TensorIndex variance = reshaped(e, e.value(op.inputs[2]), shape);
  std::optional<TensorIndex> scale = param(e, op, 3, axes, x_shape);
  const std::optional<TensorIndex> bias = param(e, op, 4, axes, x_shape);
  const TensorIndex d = binary(e, Op::SUB, x, mean);
  const auto v = constant_floats(e, variance);
  const auto s =
      scale ? constant_floats(e, *scale) : std::optional<std::vector<float>>(std::vector<float>{});
  TensorIndex y;
  if (v && s) {
    std::vector<float> k(v->size());
    for (size_t c = 0; c < k.size(); ++c)
      k[c] = static_cast<float>((s->empty() ? 1.0 : static_cast<double>((*s)[c])) /
                                std::sqrt(static_cast<double>((*v)[c]) + eps));
    std::vector<std::byte> bytes(k.size() * sizeof(float));
    std::memcpy(bytes.data(), k.data(), bytes.size());
    y = binary(e, Op::MUL, d, e.constant(tfl::TensorType::FLOAT32, shape, std::move(bytes)));
  } else {
    const TensorIndex den = unary(e, Op::SQRT, binary(e, Op::ADD, variance, f32_scalar(e, eps)));
    y = binary(e, Op::DIV, d, den);
    if (scale) y = binary(e, Op::MUL, y, *scale);
  }
  if (bias) y = binary(e, Op::ADD, y, *bias);
  e.bind(op.outputs[0], y);
}

// instanceNormalization (row 57): per batch and channel over the spatial dims ([2, 3] for nchw,
// [1, 2] for nhwc), scale and bias per channel.
void lower_instanceNormalization(Emitter& e, const Operation& op,
                                 const AttrsOf<OpType::kInstanceNormalization>& attrs) {
  const MLOperandDataType t = data_type_of(e.graph(), op.inputs[0]);
  const TensorIndex x = e.value(op.inputs[0]);
  const bool nchw = attrs.options.layout == MLInputOperandLayout::kNchw;
  const std::vector<uint32_t> channel{nchw ? 1u : 3u};
  const std::vector<uint32_t> spatial = nchw ? std::vector<uint32_t>{2, 3} : std::vector{1u, 2u};
  const auto scale = param(e, op, 1, channel, e.shape_of(x));
  const auto bias = param(e, op, 2, channel, e.shape_of(x));
  e.bind(op.outputs[0],
         normalize_groups(e, x, spatial, epsilon_of(t, attrs.options.epsilon), scale, bias));
}

// layerNormalization (row 58): over `axes` (default [1..rank-1]; none normalizes each element
// alone), scale and bias with the dims of `axes` in that order.
void lower_layerNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kLayerNormalization>& attrs) {
  const MLOperandDataType t = data_type_of(e.graph(), op.inputs[0]);
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<uint32_t> axes = layer_normalization_axes(attrs.options, e.shape_of(x).size());
  const auto scale = param(e, op, 1, axes, e.shape_of(x));
  const auto bias = param(e, op, 2, axes, e.shape_of(x));
  e.bind(op.outputs[0],
         normalize_groups(e, x, axes, epsilon_of(t, attrs.options.epsilon), scale, bias));
}

}  // namespace cppnn::tflite_export
