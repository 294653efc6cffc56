#include "src/passes/activation_patterns.h"

#include <cstring>
#include <optional>
#include <vector>

#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

constexpr uint32_t kNoOp = UINT32_MAX;

// The value of a one-element float32 constant, or nullopt.
std::optional<float> scalar_constant(const Graph& g, OperandId id) {
  if (!id.valid() || g.operand(id).kind != OperandKind::kConstant) return std::nullopt;
  const MLOperandDescriptor& d = g.descriptor(id);
  if (d.dataType != MLOperandDataType::kFloat32 || element_count(d.shape) != 1) return std::nullopt;
  float v;
  std::memcpy(&v, g.constant(id).data(), sizeof v);
  return v;
}

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
    if (!id.valid() || uses_[id.value] != 1 || producer_[id.value] == kNoOp) return nullptr;
    return &g_.operations[producer_[id.value]];
  }

  // x of a hardSwish spelled at div `op`, with the ops it absorbs.
  std::optional<OperandId> hard_swish(const Operation& op, std::vector<uint32_t>* absorbed) const {
    if (op.type != OpType::kDiv || scalar_constant(g_, op.inputs[1]) != 6.0f) return std::nullopt;
    const Operation* mul = single_use_producer(op.inputs[0]);
    if (!mul || mul->type != OpType::kMul) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const OperandId x = mul->inputs[side], clamped = mul->inputs[1 - side];
      const Operation* clamp = single_use_producer(clamped);
      if (!clamp || clamp->type != OpType::kClamp || !clamps_to(*clamp, 0.0, 6.0)) continue;
      const Operation* add = single_use_producer(clamp->inputs[0]);
      if (!add || add->type != OpType::kAdd) continue;
      const bool x_first = add->inputs[0] == x && scalar_constant(g_, add->inputs[1]) == 3.0f;
      const bool x_second = add->inputs[1] == x && scalar_constant(g_, add->inputs[0]) == 3.0f;
      if (!x_first && !x_second) continue;
      if (g_.descriptor(x) != g_.descriptor(op.outputs[0])) continue;
      absorbed->push_back(producer_[op.inputs[0].value]);
      absorbed->push_back(producer_[clamped.value]);
      absorbed->push_back(producer_[clamp->inputs[0].value]);
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
      const std::optional<float> c = scalar_constant(g_, op.inputs[1 - side]);
      if (!c || g_.descriptor(x) != g_.descriptor(op.outputs[0])) continue;
      const uint32_t p = producer_[x.value];
      if (p == kNoOp || (!fusable_producer(g_.operations[p].type) && !rewritten[p])) continue;
      if (op.type == OpType::kMul) return Linear{x, *c, 0.0f};
      return Linear{x, 1.0f, op.type == OpType::kAdd ? *c : -*c};
    }
    return std::nullopt;
  }

 private:
  const Graph& g_;
  std::vector<uint32_t> uses_, producer_;
};

}  // namespace

Graph recognize_activations(const Graph& graph, bool* changed) {
  *changed = false;
  Matcher m(graph);
  std::vector<bool> absorbed(graph.operations.size(), false);
  // Per operation: the hardSwish input it becomes, or the linear it becomes.
  std::vector<std::optional<OperandId>> swish(graph.operations.size());
  std::vector<std::optional<Matcher::Linear>> linear(graph.operations.size());
  std::vector<bool> rewritten(graph.operations.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    std::vector<uint32_t> parts;
    if ((swish[i] = m.hard_swish(graph.operations[i], &parts))) {
      for (uint32_t p : parts) absorbed[p] = true;
    } else {
      linear[i] = m.linear(graph.operations[i], rewritten);
    }
    rewritten[i] = swish[i] || linear[i];
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
