#include "src/passes/normalization_patterns.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

// One layer normalization found: its input, axes (ascending), ε, the optional scale and bias (as
// read by the pattern), the op whose result it replaces and the ops it absorbs.
struct LayerNormMatch {
  OperandId x, scale, bias;
  std::vector<uint32_t> axes;
  float epsilon = 0;
  uint32_t last = kNoOperation;
  std::vector<uint32_t> absorbed;
};

class Matcher {
 public:
  explicit Matcher(const Graph& g)
      : g_(g),
        uses_(use_counts(g)),
        producer_(producers(g)),
        consumer_(g.operands.size(), kNoOperation) {
    for (uint32_t i = 0; i < g.operations.size(); ++i)
      for (OperandId id : g.operations[i].inputs)
        if (id.valid()) consumer_[id.value] = i;
  }

  // The layer normalization whose normalizing step (the div or mul giving (x − m)/√(v + ε)) is
  // operation `i`, extended by the scale and bias ops after it.
  std::optional<LayerNormMatch> layer_norm(uint32_t i) const {
    std::optional<LayerNormMatch> m = core(i);
    if (!m) return std::nullopt;
    OperandId result = g_.operations[i].outputs[0];
    // mul(·, γ), then add(·, β), each in either order.
    for (OpType type : {OpType::kMul, OpType::kAdd}) {
      const Operation* next = single_consumer(result);
      if (!next || next->type != type) continue;
      for (int side = 0; side < 2; ++side) {
        const OperandId other = next->inputs[1 - side];
        if (next->inputs[side] != result || !fits_axes(other, *m)) continue;
        m->absorbed.push_back(m->last);
        m->last = consumer_[result.value];
        (type == OpType::kMul ? m->scale : m->bias) = other;
        result = next->outputs[0];
        break;
      }
    }
    return m;
  }

 private:
  const Operation* producer_of(OperandId id) const {
    if (!id.valid() || producer_[id.value] == kNoOperation) return nullptr;
    return &g_.operations[producer_[id.value]];
  }
  // The operation producing `id` when `id` is read once, else null.
  const Operation* single_use_producer(OperandId id) const {
    return id.valid() && uses_[id.value] == 1 ? producer_of(id) : nullptr;
  }
  // The one operation reading `id` when it is read once (not a graph output), else null.
  const Operation* single_consumer(OperandId id) const {
    if (uses_[id.value] != 1 || consumer_[id.value] == kNoOperation) return nullptr;
    return &g_.operations[consumer_[id.value]];
  }

  // The axes reduceMean `op` reduces, ascending, when it keeps its dimensions.
  std::optional<std::vector<uint32_t>> kept_mean_axes(const Operation& op) const {
    if (op.type != OpType::kReduceMean) return std::nullopt;
    const MLReduceOptions& o = attrs_of<OpType::kReduceMean>(op.attrs).options;
    if (!o.keepDimensions) return std::nullopt;
    std::vector<uint32_t> axes;
    if (o.axes) {
      axes = *o.axes;
    } else {
      axes.resize(g_.descriptor(op.inputs[0]).shape.size());
      std::iota(axes.begin(), axes.end(), 0u);
    }
    std::sort(axes.begin(), axes.end());
    if (axes.empty()) return std::nullopt;  // no reduction: not a normalization
    return axes;
  }

  // Whether `v` can be layerNormalization's scale or bias for match `m`: float32, of x's sizes at
  // the axes and 1 elsewhere (its shape aligned to x's from the right), so that the elementwise op
  // broadcasts it exactly as the option applies it.
  bool fits_axes(OperandId v, const LayerNormMatch& m) const {
    const MLOperandDescriptor& d = g_.descriptor(v);
    const std::vector<uint32_t>& xs = g_.descriptor(m.x).shape;
    if (d.dataType != MLOperandDataType::kFloat32 || d.shape.size() > xs.size()) return false;
    const size_t lead = xs.size() - d.shape.size();
    for (size_t a = 0; a < xs.size(); ++a) {
      const bool on_axis = std::binary_search(m.axes.begin(), m.axes.end(), uint32_t(a));
      const uint32_t size = a < lead ? 1 : d.shape[a - lead];
      if (size != (on_axis ? xs[a] : 1u)) return false;
    }
    return true;
  }

  // (x − m)/√(v + ε) ending at operation `i`: div(d, s) or mul(d, reciprocal(s)) (either order)
  // with s = sqrt(add(v, ε)), v = reduceMean(pow(d, 2) or mul(d, d)), d = sub(x, reduceMean(x)).
  std::optional<LayerNormMatch> core(uint32_t i) const {
    const Operation& op = g_.operations[i];
    LayerNormMatch m;
    m.last = i;
    OperandId d, s;
    if (op.type == OpType::kDiv) {
      d = op.inputs[0];
      s = op.inputs[1];
    } else if (op.type == OpType::kMul) {
      for (int side = 0; side < 2 && !s.valid(); ++side) {
        const Operation* r = single_use_producer(op.inputs[1 - side]);
        if (!r || r->type != OpType::kReciprocal) continue;
        d = op.inputs[side];
        s = r->inputs[0];
        m.absorbed.push_back(producer_[op.inputs[1 - side].value]);
      }
      if (!s.valid()) return std::nullopt;
    } else {
      return std::nullopt;
    }
    const Operation* sqrt = single_use_producer(s);
    if (!sqrt || sqrt->type != OpType::kSqrt) return std::nullopt;
    const Operation* add = single_use_producer(sqrt->inputs[0]);
    if (!add || add->type != OpType::kAdd) return std::nullopt;
    OperandId v;
    for (int side = 0; side < 2 && !v.valid(); ++side)
      if (const std::optional<float> eps = scalar_float_constant(g_, add->inputs[1 - side])) {
        v = add->inputs[side];
        m.epsilon = *eps;
      }
    const Operation* var = single_use_producer(v);
    if (!var) return std::nullopt;
    const std::optional<std::vector<uint32_t>> axes = kept_mean_axes(*var);
    if (!axes) return std::nullopt;
    const Operation* square = single_use_producer(var->inputs[0]);
    if (!square) return std::nullopt;
    const bool by_pow = square->type == OpType::kPow && square->inputs[0] == d &&
                        scalar_float_constant(g_, square->inputs[1]) == 2.0f;
    const bool by_mul =
        square->type == OpType::kMul && square->inputs[0] == d && square->inputs[1] == d;
    if (!by_pow && !by_mul) return std::nullopt;
    // d read by the square (once or twice) and the normalizing op only.
    if (!d.valid() || uses_[d.value] != (by_mul ? 3u : 2u)) return std::nullopt;
    const Operation* sub = producer_of(d);
    if (!sub || sub->type != OpType::kSub) return std::nullopt;
    const Operation* mean = single_use_producer(sub->inputs[1]);
    if (!mean || mean->inputs[0] != sub->inputs[0] || kept_mean_axes(*mean) != axes)
      return std::nullopt;
    m.x = sub->inputs[0];
    m.axes = *axes;
    const MLOperandDescriptor& xd = g_.descriptor(m.x);
    if (xd.dataType != MLOperandDataType::kFloat32 || g_.descriptor(d) != xd ||
        g_.descriptor(op.outputs[0]) != xd)
      return std::nullopt;
    for (OperandId id : {sub->inputs[1], d, var->inputs[0], v, sqrt->inputs[0], s})
      m.absorbed.push_back(producer_[id.value]);
    return m;
  }

  const Graph& g_;
  std::vector<uint32_t> uses_, producer_;
  std::vector<uint32_t> consumer_;  // the last operation reading each operand
};

}  // namespace

Graph recognize_normalizations(const Graph& graph, bool* changed) {
  *changed = false;
  Matcher matcher(graph);
  std::vector<std::optional<LayerNormMatch>> at_last(graph.operations.size());
  std::vector<bool> absorbed(graph.operations.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    if (absorbed[i]) continue;
    std::optional<LayerNormMatch> m = matcher.layer_norm(i);
    if (!m) continue;
    bool taken = absorbed[m->last] || at_last[m->last];  // by an earlier match
    for (uint32_t p : m->absorbed) taken = taken || absorbed[p] || at_last[p];
    if (taken) continue;
    for (uint32_t p : m->absorbed) absorbed[p] = true;
    const uint32_t last = m->last;
    at_last[last] = std::move(m);
    any = true;
  }
  if (!any) return graph;
  GraphRewriter rw(graph);
  MLGraphBuilder& b = rw.builder();
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    const Operation& op = graph.operations[i];
    if (!at_last[i]) {
      if (!absorbed[i]) rw.copy(op);
      continue;
    }
    const LayerNormMatch& m = *at_last[i];
    const std::vector<uint32_t>& xs = graph.descriptor(m.x).shape;
    std::vector<uint32_t> sizes;  // the scale's and bias's shape: x's sizes at the axes
    for (uint32_t a : m.axes) sizes.push_back(xs[a]);
    auto option = [&](OperandId id) -> std::optional<MLOperand> {
      if (!id.valid()) return std::nullopt;
      MLOperand v = rw.value(id);
      return v.shape() == sizes ? v : b.reshape(v, sizes);
    };
    MLLayerNormalizationOptions o;
    o.axes = m.axes;
    o.epsilon = m.epsilon;
    o.scale = option(m.scale);
    o.bias = option(m.bias);
    o.label = op.label();
    rw.set(op.outputs[0], b.layerNormalization(rw.value(m.x), o));
  }
  *changed = true;
  return rw.finish();
}

}  // namespace cppnn::passes
