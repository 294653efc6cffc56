#include "src/passes/batch_norm_folding.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "cppnn/number.h"
#include "src/ops/convolution_params.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

constexpr uint32_t kNoOp = UINT32_MAX;

// The float32 values of constant `id`, or empty when `id` is no float32 constant.
std::vector<float> constant_floats(const Graph& g, OperandId id) {
  if (!id.valid() || g.operand(id).kind != OperandKind::kConstant ||
      g.descriptor(id).dataType != MLOperandDataType::kFloat32)
    return {};
  const auto bytes = g.constant(id).bytes();
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

// A conv2d or convTranspose2d and the affine chain after it that folds into it.
struct Fold {
  uint32_t conv = kNoOp;
  std::vector<uint32_t> chain;      // the folded operations after the conv, in order
  std::vector<float> filter, bias;  // the folded conv's
  OperandId end;                    // the operand the chain produces
};

// The per-channel values of constant `id` for `channels` channels: one value repeated, or one
// per channel when its shape is 1 everywhere but at `channel_axis` of a rank-`rank` result (aligned
// to the right). Empty when `id` is neither.
std::vector<double> channel_values(const Graph& g, OperandId id, size_t channel_axis, size_t rank,
                                   uint32_t channels) {
  const std::vector<float> v = constant_floats(g, id);
  const Dims& shape = g.descriptor(id).shape;
  if (v.empty() || shape.size() > rank) return {};
  if (v.size() == 1) return std::vector<double>(channels, double(v[0]));
  const size_t lead = rank - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && (i + lead != channel_axis || shape[i] != channels)) return {};
  return std::vector<double>(v.begin(), v.end());
}

// y = x·s + t of batchNormalization `bn` over the channel axis, or false when it does not fold.
bool batch_norm_affine(const Graph& g, const Operation& bn, size_t channel_axis, uint32_t channels,
                       std::vector<double>& s, std::vector<double>& t) {
  const auto& bo = attrs_of<OpType::kBatchNormalization>(bn.attrs).options;
  if (bo.axis != channel_axis) return false;
  const std::vector<float> mean = constant_floats(g, bn.inputs[1]);
  const std::vector<float> variance = constant_floats(g, bn.inputs[2]);
  if (mean.size() != channels || variance.size() != channels) return false;
  // Optional operands: absent (kNoOperand) takes the spec's default; present must be constant.
  auto optional_floats = [&](size_t i, float fallback, std::vector<float>* v) {
    const OperandId id = i < bn.inputs.size() ? bn.inputs[i] : kNoOperand;
    if (!id.valid()) {
      v->assign(channels, fallback);
      return true;
    }
    *v = constant_floats(g, id);
    return v->size() == channels;
  };
  std::vector<float> scale, beta;
  if (!optional_floats(3, 1.0f, &scale) || !optional_floats(4, 0.0f, &beta)) return false;
  // epsilon cast to float32 first (§3.6; an out-of-range value becomes +Infinity).
  const double epsilon = MLNumber(bo.epsilon).cast_to_double(MLOperandDataType::kFloat32);
  for (uint32_t c = 0; c < channels; ++c) {
    const double k = double(scale[c]) / std::sqrt(double(variance[c]) + epsilon);
    s[c] = k;
    t[c] = double(beta[c]) - double(mean[c]) * k;
  }
  return true;
}

// What the fold needs of a conv2d's or convTranspose2d's options.
struct ConvShape {
  bool transposed;
  MLInputOperandLayout input_layout;
  FilterAxes axes;
  uint32_t groups;
};
std::optional<ConvShape> conv_shape(const Operation& op) {
  if (op.type == OpType::kConv2d) {
    const auto& o = attrs_of<OpType::kConv2d>(op.attrs).options;
    return ConvShape{false, o.inputLayout, conv2d_filter_axes(o.filterLayout), o.groups};
  }
  if (op.type == OpType::kConvTranspose2d) {
    const auto& o = attrs_of<OpType::kConvTranspose2d>(op.attrs).options;
    return ConvShape{true, o.inputLayout, conv_transpose2d_filter_axes(o.filterLayout), o.groups};
  }
  return std::nullopt;
}

// The output channel each element of a filter of shape `fshape` (row-major) feeds, or empty when
// the filter does not hold `channels` output channels. conv2d: the filter's output-channel index
// (webnn-spec.md §2 row 7). convTranspose2d, whose filter holds Cout/groups output channels for
// each group of Cin/groups input channels: group · (Cout/groups) + o, with group = ic /
// (Cin/groups) (§2 row 8).
std::vector<uint32_t> filter_output_channels(const ConvShape& cs, const Dims& fshape,
                                             uint32_t channels) {
  if (fshape.size() != 4 || cs.groups == 0) return {};
  const uint32_t per_group_out = fshape[cs.axes.out_channels];
  const uint32_t in = fshape[cs.axes.in_channels];
  if (cs.transposed ? (in % cs.groups != 0 || uint64_t{per_group_out} * cs.groups != channels)
                    : per_group_out != channels)
    return {};
  const uint32_t per_group_in = cs.transposed ? in / cs.groups : 1;
  std::vector<uint32_t> oc(element_count(fshape));
  uint32_t idx[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < oc.size(); ++i) {
    const uint32_t o = idx[cs.axes.out_channels];
    oc[i] = cs.transposed ? idx[cs.axes.in_channels] / per_group_in * per_group_out + o : o;
    for (size_t d = 4; d-- > 0;) {  // the next row-major index
      if (++idx[d] < fshape[d]) break;
      idx[d] = 0;
    }
  }
  return oc;
}

// The fold of conv2d or convTranspose2d `conv_index` and the affine chain after it, when there is
// one.
std::optional<Fold> fold_at(const Graph& g, const std::vector<uint32_t>& reader,
                            uint32_t conv_index) {
  const Operation& conv = g.operations[conv_index];
  const std::optional<ConvShape> cs = conv_shape(conv);
  if (!cs || !conv.activations.empty()) return std::nullopt;
  const MLOperandDescriptor& out = g.descriptor(conv.outputs[0]);
  if (out.dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const size_t channel_axis = cs->input_layout == MLInputOperandLayout::kNchw ? 1 : 3;
  const uint32_t channels = out.shape[channel_axis];
  Fold f;
  f.conv = conv_index;
  f.end = conv.outputs[0];
  // y = conv(x)·s + t, extended op by op.
  std::vector<double> s(channels, 1.0), t(channels, 0.0);
  for (uint32_t j = reader[f.end.value]; j != kNoOp; j = reader[f.end.value]) {
    const Operation& op = g.operations[j];
    if (g.descriptor(op.outputs[0]) != out) break;
    std::vector<double> ks(channels, 1.0), kt(channels, 0.0);  // this op: y' = y·ks + kt
    if (op.type == OpType::kBatchNormalization) {
      if (!batch_norm_affine(g, op, channel_axis, channels, ks, kt)) break;
    } else if (op.type == OpType::kMul || op.type == OpType::kAdd || op.type == OpType::kSub) {
      const bool first = op.inputs[0] == f.end;
      const OperandId other = first ? op.inputs[1] : op.inputs[0];
      if (other == f.end || (op.type == OpType::kSub && !first)) break;
      const std::vector<double> v =
          channel_values(g, other, channel_axis, out.shape.size(), channels);
      if (v.empty()) break;
      if (op.type == OpType::kMul) ks = v;
      for (uint32_t c = 0; c < channels; ++c)
        if (op.type != OpType::kMul) kt[c] = op.type == OpType::kAdd ? v[c] : -v[c];
    } else {
      break;
    }
    for (uint32_t c = 0; c < channels; ++c) {
      s[c] *= ks[c];
      t[c] = t[c] * ks[c] + kt[c];
    }
    f.chain.push_back(j);
    f.end = op.outputs[0];
  }
  if (f.chain.empty()) return std::nullopt;
  f.filter = constant_floats(g, conv.inputs[1]);
  if (f.filter.empty()) return std::nullopt;
  std::vector<float> conv_bias(channels, 0.0f);
  const OperandId conv_bias_id = conv.inputs.size() > 2 ? conv.inputs[2] : kNoOperand;
  if (conv_bias_id.valid()) {
    conv_bias = constant_floats(g, conv_bias_id);
    if (conv_bias.size() != channels) return std::nullopt;
  }
  // Scale the filter along its output-channel axis.
  const std::vector<uint32_t> oc =
      filter_output_channels(*cs, g.descriptor(conv.inputs[1]).shape, channels);
  if (oc.size() != f.filter.size()) return std::nullopt;
  for (size_t i = 0; i < f.filter.size(); ++i)
    f.filter[i] = static_cast<float>(double(f.filter[i]) * s[oc[i]]);
  f.bias.resize(channels);
  for (uint32_t c = 0; c < channels; ++c)
    f.bias[c] = static_cast<float>(double(conv_bias[c]) * s[c] + t[c]);
  return f;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
  return std::as_bytes(std::span(v));
}

}  // namespace

Graph fold_batch_norm(const Graph& graph, bool* changed) {
  *changed = false;
  // Each operand's only reader (an operation), when it has exactly one use.
  const std::vector<uint32_t> uses = use_counts(graph);
  std::vector<uint32_t> reader(graph.operands.size(), kNoOp);
  for (uint32_t i = 0; i < graph.operations.size(); ++i)
    for (OperandId in : graph.operations[i].inputs)
      if (in.valid() && uses[in.value] == 1) reader[in.value] = i;
  std::vector<std::optional<Fold>> fold_of_conv(graph.operations.size());
  std::vector<bool> absorbed(graph.operations.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    if (std::optional<Fold> f = fold_at(graph, reader, i)) {
      for (uint32_t j : f->chain) absorbed[j] = true;
      fold_of_conv[i] = std::move(f);
      any = true;
    }
  }
  if (!any) return graph;
  GraphRewriter rw(graph);
  MLGraphBuilder& b = rw.builder();
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    if (absorbed[i]) continue;
    const Operation& op = graph.operations[i];
    if (!fold_of_conv[i]) {
      rw.copy(op);
      continue;
    }
    const Fold& f = *fold_of_conv[i];
    const MLOperand filter = b.constant(graph.descriptor(op.inputs[1]), bytes_of(f.filter));
    const MLOperand bias =
        b.constant({MLOperandDataType::kFloat32, {uint32_t(f.bias.size())}}, bytes_of(f.bias));
    if (op.type == OpType::kConvTranspose2d) {
      MLConvTranspose2dOptions o = attrs_of<OpType::kConvTranspose2d>(op.attrs).options;
      o.bias = bias;
      rw.set(f.end, b.convTranspose2d(rw.value(op.inputs[0]), filter, o));
    } else {
      MLConv2dOptions o = attrs_of<OpType::kConv2d>(op.attrs).options;
      o.bias = bias;
      rw.set(f.end, b.conv2d(rw.value(op.inputs[0]), filter, o));
    }
  }
  *changed = true;
  return rw.finish();
}

}  // namespace cppnn::passes
