// ONNX lowering of the normalization ops (see lower.h): batchNormalization, instanceNormalization
// and layerNormalization (webnn-spec.md §2 rows 3, 57, 58). Each is one ONNX normalization node
// where the layouts agree (inference BatchNormalization on axis 1, InstanceNormalization on
// nchw, LayerNormalization on trailing axes); other layouts reshape or transpose around it
// (float32 batchNormalization subtracts the mean first, for precision).
// Absent scale/bias become constants of 1/0 where ONNX requires them; ε is cast to the data
// type first (§3.6), as the reference backend does.
#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_reduction_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/normalization_params.h"

namespace cppnn::onnx_export {

// batchNormalization: y = (x − mean[c]) / √(variance[c] + ε) · scale[c] + bias[c] along `axis`
// (row 3). Axis 1 of a rank ≥ 2 input is ONNX's channel axis: one BatchNormalization node;
// another axis reshapes the input to [outer, C, inner] around it (no data movement). ONNX
// Runtime computes x·k + (bias − mean·k), which cancels catastrophically for x near the mean
// (12 ULP off in WPT's float32 cases): float32 subtracts the mean first (a broadcast Sub, then
// BatchNormalization with a zero mean). float16 is computed in float32 by ONNX Runtime, well
// within float16 precision, so it stays one node.
void lower_batchNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kBatchNormalization>& attrs) {
  const MLOperandDataType t = e.type(op.inputs[0]);
  const std::vector<int64_t> shape = e.dims(op.inputs[0]);
  const size_t axis = attrs.options.axis;
  const int64_t channels = shape.at(axis);
  const std::string scale = has(op, 3) ? in(e, op, 3) : const_filled(e, t, {channels}, 1.0);
  const std::string bias = has(op, 4) ? in(e, op, 4) : const_filled(e, t, {channels}, 0.0);
  const std::vector<Attr> a{{"epsilon", float_attr(attrs.options.epsilon, t)}};
  const bool direct = axis == 1 && shape.size() >= 2;
  // The input as BatchNormalization sees it: [N, C, ...] as is, else [outer, C, inner].
  std::string x = in(e, op, 0);
  if (!direct) {
    const std::vector<int64_t> folded{dims_product(shape, 0, axis), channels,
                                      dims_product(shape, axis + 1, shape.size())};
    x = e.node("Reshape", {x, e.const_i64(folded)});
  }
  std::string mean = in(e, op, 1);
  if (t == MLOperandDataType::kFloat32) {
    // mean as [C, 1, ..., 1] so that it broadcasts along the channel axis (axis 1).
    const size_t trailing = direct ? shape.size() - 2 : 1;
    std::string m = mean;
    if (trailing > 0) {
      std::vector<int64_t> mean_shape(trailing + 1, 1);
      mean_shape[0] = channels;
      m = e.node("Reshape", {mean, e.const_i64(mean_shape)});
    }
    x = e.node("Sub", {x, m});
    mean = const_filled(e, t, {channels}, 0.0);
  }
  const std::string& variance = in(e, op, 2);
  if (direct) {
    e.node_to("BatchNormalization", {x, scale, bias, mean, variance}, {out(e, op)}, a);
    return;
  }
  const std::string y3 = e.node("BatchNormalization", {x, scale, bias, mean, variance}, a);
  e.node_to("Reshape", {y3, e.const_i64(shape)}, {out(e, op)});
}

// instanceNormalization: per batch and channel, normalize over the spatial dims (row 57). nchw
// is ONNX's InstanceNormalization; nhwc transposes to nchw and back around it.
void lower_instanceNormalization(Emitter& e, const Operation& op,
                                 const AttrsOf<OpType::kInstanceNormalization>& attrs) {
  const MLOperandDataType t = e.type(op.inputs[0]);
  const std::vector<int64_t> shape = e.dims(op.inputs[0]);
  const bool nchw = attrs.options.layout == MLInputOperandLayout::kNchw;
  const int64_t channels = shape.at(nchw ? 1 : 3);
  const std::string scale = has(op, 1) ? in(e, op, 1) : const_filled(e, t, {channels}, 1.0);
  const std::string bias = has(op, 2) ? in(e, op, 2) : const_filled(e, t, {channels}, 0.0);
  const std::vector<Attr> a{{"epsilon", float_attr(attrs.options.epsilon, t)}};
  if (nchw) {
    e.node_to("InstanceNormalization", {in(e, op, 0), scale, bias}, {out(e, op)}, a);
    return;
  }
  const std::string xt =
      e.node("Transpose", {in(e, op, 0)}, {{"perm", std::vector<int64_t>{0, 3, 1, 2}}});
  const std::string yt = e.node("InstanceNormalization", {xt, scale, bias}, a);
  e.node_to("Transpose", {yt}, {out(e, op)}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
}

// layerNormalization: normalize over `axes` (default [1..rank-1]), then · scale + bias whose dims
// are those of `axes` in the given order (row 58). ONNX's LayerNormalization normalizes the
// trailing axes from `axis` on: the input is transposed to put `axes` last, in their order, when
// they are not already so. No axes: each element is its own group, (x − x) / √(0 + ε).
void lower_layerNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kLayerNormalization>& attrs) {
  const MLOperandDataType t = e.type(op.inputs[0]);
  const std::vector<int64_t> shape = e.dims(op.inputs[0]);
  const std::vector<uint32_t> axes = layer_normalization_axes(attrs.options, shape.size());
  const float eps = float_attr(attrs.options.epsilon, t);
  const std::string& x = in(e, op, 0);
  const std::string& y = out(e, op);
  if (axes.empty()) {
    const std::string d = e.node("Sub", {x, x});
    const std::string v = e.node("Add", {e.node("Mul", {d, d}), e.const_scalar(t, eps)});
    const bool scaled = has(op, 1), biased = has(op, 2);
    const std::string n = e.fresh();
    e.node_to("Div", {d, e.node("Sqrt", {v})}, {scaled || biased ? n : y});
    std::string s = n;
    if (scaled) {
      s = biased ? e.fresh() : y;
      e.node_to("Mul", {n, in(e, op, 1)}, {s});
    }
    if (biased) e.node_to("Add", {s, in(e, op, 2)}, {y});
    return;
  }
  // perm: the other axes in order, then `axes` in the given order.
  std::vector<int64_t> perm;
  std::vector<bool> normalized(shape.size(), false);
  for (uint32_t a : axes) normalized[a] = true;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!normalized[i]) perm.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> scale_shape;
  for (uint32_t a : axes) {
    perm.push_back(a);
    scale_shape.push_back(shape[a]);
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  const std::string scale = has(op, 1) ? in(e, op, 1) : const_filled(e, t, scale_shape, 1.0);
  const std::vector<Attr> a{{"axis", static_cast<int64_t>(shape.size() - axes.size())},
                            {"epsilon", eps}};
  if (identity) {
    e.node_to("LayerNormalization", {x, scale, in(e, op, 2)}, {y}, a);
    return;
  }
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = int64_t(i);
  const std::string xt = e.node("Transpose", {x}, {{"perm", perm}});
  const std::string yt = e.node("LayerNormalization", {xt, scale, in(e, op, 2)}, a);
  e.node_to("Transpose", {yt}, {y}, {{"perm", inverse}});
}

}  // namespace cppnn::onnx_export
