#include "src/passes/activation_patterns.h"

#include <cmath>
#include <optional>
#include <vector>

#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

// Whether clamp `op` bounds to exactly [lo, hi].
bool clamps_to(const Operation& op, double lo, double hi) {
  const auto& o = attrs_of<OpType::kClamp>(op.attrs).options;
  return o.minValue && o.maxValue &&
         o.minValue->cast_to_double(MLOperandDataType::kFloat32) == lo &&
         o.maxValue->cast_to_double(MLOperandDataType::kFloat32) == hi;
}

// Ops whose result the fusion pass can extend with an activation.
bool fusable_producer(OpType t) {
  using enum OpType;
  switch (t) {
    case kConv2d:
    case kConvTranspose2d:
    case kMatmul:
    case kGemm:
    case kRelu:
    case kClamp:
    case kLeakyRelu:
    case kHardSigmoid:
    case kHardSwish:
    case kLinear:
      return true;
    default:
      return false;
  }
}

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(use_counts(g)), producer_(producers(g)) {}

  // The operation producing `id` when `id` is read once (by the op being matched), else null.
  const Operation* single_use_producer(OperandId id) const {
    if (!id.valid() || uses_[id.value] != 1 || producer_[id.value] == kNoOperation) return nullptr;
    return &g_.operations[producer_[id.value]];
  }

  // x of a hardSwish spelled at div `op`, with the ops it absorbs.
  std::optional<OperandId> hard_swish(const Operation& op, std::vector<uint32_t>* absorbed) const {
    if (op.type != OpType::kDiv || scalar_float_constant(g_, op.inputs[1]) != 6.0f)
      return std::nullopt;
    const Operation* mul = single_use_producer(op.inputs[0]);
    if (!mul || mul->type != OpType::kMul) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const OperandId x = mul->inputs[side], clamped = mul->inputs[1 - side];
      const Operation* clamp = single_use_producer(clamped);
      if (!clamp || clamp->type != OpType::kClamp || !clamps_to(*clamp, 0.0, 6.0)) continue;
      const Operation* add = single_use_producer(clamp->inputs[0]);
      if (!add || add->type != OpType::kAdd) continue;
      const bool x_first = add->inputs[0] == x && scalar_float_constant(g_, add->inputs[1]) == 3.0f;
      const bool x_second =
          add->inputs[1] == x && scalar_float_constant(g_, add->inputs[0]) == 3.0f;
      if (!x_first && !x_second) continue;
      if (g_.descriptor(x) != g_.descriptor(op.outputs[0])) continue;
      absorbed->push_back(producer_[op.inputs[0].value]);
      absorbed->push_back(producer_[clamped.value]);
      absorbed->push_back(producer_[clamp->inputs[0].value]);
      return x;
    }
    return std::nullopt;
  }

  // x of a gelu spelled at mul `op` (the last op of the exporters' erf form, 0.5·x·(1 +
  // erf(x/√2))): mul(m, 0.5) with m = mul(x, a), or mul(h, a) with h = mul(x, 0.5), where a =
  // add(erf(d), 1) and d = div(x, √2) or mul(x, 1/√2), in either operand order; every intermediate
  // read once. The ops it absorbs go to `absorbed`.
  std::optional<OperandId> gelu(const Operation& op, std::vector<uint32_t>* absorbed) const {
    if (op.type != OpType::kMul) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const OperandId first = op.inputs[side], second = op.inputs[1 - side];
      std::vector<uint32_t> parts;
      std::optional<OperandId> x;
      if (scalar_float_constant(g_, second) == 0.5f) {  // mul(mul(x, a), 0.5)
        const Operation* m = single_use_producer(first);
        if (!m || m->type != OpType::kMul) continue;
        for (int s = 0; s < 2 && !x; ++s) {
          std::vector<uint32_t> inner;
          if (erf_sum_of(m->inputs[1 - s], m->inputs[s], &inner)) {
            x = m->inputs[s];
            parts = std::move(inner);
          }
        }
        if (!x) continue;
        parts.push_back(producer_[first.value]);
      } else {  // mul(mul(x, 0.5), a)
        const Operation* h = single_use_producer(first);
        if (!h || h->type != OpType::kMul) continue;
        for (int s = 0; s < 2 && !x; ++s)
          if (scalar_float_constant(g_, h->inputs[1 - s]) == 0.5f &&
              erf_sum_of(second, h->inputs[s], &parts))
            x = h->inputs[s];
        if (!x) continue;
        parts.push_back(producer_[first.value]);
      }
      if (g_.descriptor(*x) != g_.descriptor(op.outputs[0])) continue;
      absorbed->insert(absorbed->end(), parts.begin(), parts.end());
      return x;
    }
    return std::nullopt;
  }

  // (x, alpha, beta) when `op` is a mul/add/sub of a scalar right after a fusable producer.
  struct Linear {
    OperandId x;
    float alpha, beta;
  };
  // `rewritten`: the operations before `op` this pass turns into activations.
  std::optional<Linear> linear(const Operation& op, const std::vector<bool>& rewritten) const {
    if (op.type != OpType::kMul && op.type != OpType::kAdd && op.type != OpType::kSub)
      return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      if (op.type == OpType::kSub && side == 1) break;  // c − x is no linear(1, c) of x
      const OperandId x = op.inputs[side];
      const std::optional<float> c = scalar_float_constant(g_, op.inputs[1 - side]);
      if (!c || g_.descriptor(x) != g_.descriptor(op.outputs[0])) continue;
      const uint32_t p = producer_[x.value];
      if (p == kNoOperation || (!fusable_producer(g_.operations[p].type) && !rewritten[p]))
        continue;
      if (op.type == OpType::kMul) return Linear{x, *c, 0.0f};
      return Linear{x, 1.0f, op.type == OpType::kAdd ? *c : -*c};
    }
    return std::nullopt;
  }

 private:
  // Whether `a` is add(erf(d), 1) (either order) with d = div(x, √2) or mul(x, 1/√2) (either
  // order), each read once; its producers go to `parts`.
  bool erf_sum_of(OperandId a, OperandId x, std::vector<uint32_t>* parts) const {
    const Operation* add = single_use_producer(a);
    if (!add || add->type != OpType::kAdd) return false;
    for (int s = 0; s < 2; ++s) {
      if (scalar_float_constant(g_, add->inputs[1 - s]) != 1.0f) continue;
      const Operation* erf = single_use_producer(add->inputs[s]);
      if (!erf || erf->type != OpType::kErf) continue;
      const Operation* scale = single_use_producer(erf->inputs[0]);
      if (!scale || !scales_by_inverse_sqrt2(*scale, x)) continue;
      parts->push_back(producer_[a.value]);
      parts->push_back(producer_[add->inputs[s].value]);
      parts->push_back(producer_[erf->inputs[0].value]);
      return true;
    }
    return false;
  }

  // Whether `op` is x/√2 as exporters write it: div(x, c) with c = √2, or mul of x and 1/√2
  // (either order), the constant within two float32 ulps of the exact value.
  bool scales_by_inverse_sqrt2(const Operation& op, OperandId x) const {
    constexpr double kSqrt2 = 1.4142135623730951, kUlps = 0x1p-22;
    auto near = [&](OperandId c, double want) {
      const std::optional<float> v = scalar_float_constant(g_, c);
      return v && std::fabs(double(*v) / want - 1.0) <= kUlps;
    };
    if (op.type == OpType::kDiv) return op.inputs[0] == x && near(op.inputs[1], kSqrt2);
    if (op.type != OpType::kMul) return false;
    return (op.inputs[0] == x && near(op.inputs[1], 1.0 / kSqrt2)) ||
           (op.inputs[1] == x && near(op.inputs[0], 1.0 / kSqrt2));
  }

  const Graph& g_;
  std::vector<uint32_t> uses_, producer_;
};

}  // namespace

Graph recognize_activations(const Graph& graph, bool* changed) {
  *changed = false;
  Matcher m(graph);
  std::vector<bool> absorbed(graph.operations.size(), false);
  // Per operation: the hardSwish or gelu input it becomes, or the linear it becomes.
  std::vector<std::optional<OperandId>> swish(graph.operations.size());
  std::vector<std::optional<OperandId>> gelu(graph.operations.size());
  std::vector<std::optional<Matcher::Linear>> linear(graph.operations.size());
  std::vector<bool> rewritten(graph.operations.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    std::vector<uint32_t> parts;
    if ((swish[i] = m.hard_swish(graph.operations[i], &parts)) ||
        (gelu[i] = m.gelu(graph.operations[i], &parts))) {
      for (uint32_t p : parts) absorbed[p] = true;
    } else {
      linear[i] = m.linear(graph.operations[i], rewritten);
    }
    rewritten[i] = swish[i] || gelu[i] || linear[i];
    any = any || rewritten[i];
  }
  if (!any) return graph;
  GraphRewriter rw(graph);
  MLGraphBuilder& b = rw.builder();
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    if (absorbed[i]) continue;
    const Operation& op = graph.operations[i];
    MLOperatorOptions label;
    label.label = op.label();
    if (swish[i]) {
      rw.set(op.outputs[0], b.hardSwish(rw.value(*swish[i]), label));
    } else if (gelu[i]) {
      rw.set(op.outputs[0], b.gelu(rw.value(*gelu[i]), label));
    } else if (linear[i]) {
      MLLinearOptions o;
      o.alpha = linear[i]->alpha;
      o.beta = linear[i]->beta;
      o.label = op.label();
      rw.set(op.outputs[0], b.linear(rw.value(linear[i]->x), o));
    } else {
      rw.copy(op);
    }
  }
  *changed = true;
  return rw.finish();
}

}  // namespace cppnn::passes
