#include "src/passes/decompose.h"

#include "cppnn/errors.h"

namespace cppnn::passes {
namespace {

// "gelu [label \"x\"]": how errors name an operation.
std::string describe(const Operation& op) {
  std::string s(op_name(op.type));
  if (!op.label().empty()) s += " [label \"" + op.label() + "\"]";
  return s;
}

// Replaces `op` in `rw` by its decomposition; false when it has none for these options.
bool replace(GraphRewriter& rw, const Operation& op) {
  const Decomposition* d = decompositions().find(op.type);
  if (!d) return false;
  const size_t first = rw.operation_count();
  DecomposeContext ctx(rw, op);
  std::vector<MLOperand> outs;
  try {
    outs = d->fn(ctx);
  } catch (const Error& e) {
    throw OperationError(describe(op) + ": its decomposition failed: " + e.what());
  }
  if (outs.empty()) return false;
  if (outs.size() != op.outputs.size())
    throw OperationError(describe(op) + ": its decomposition gave " + std::to_string(outs.size()) +
                         " outputs for " + std::to_string(op.outputs.size()));
  for (size_t i = 0; i < outs.size(); ++i) {
    const MLOperandDescriptor got = outs[i].descriptor();
    if (got != rw.source().descriptor(op.outputs[i]))
      throw OperationError(describe(op) + ": its decomposition gave " + to_string(got) +
                           " for output " + std::to_string(i) + ", not " +
                           to_string(rw.source().descriptor(op.outputs[i])));
    rw.set(op.outputs[i], outs[i]);
  }
  // The replacement carries the label of what it replaces, so later errors name it.
  for (size_t i = first; i < rw.operation_count(); ++i) {
    Operation& added = rw.operation(i);
    if (added.label().empty()) set_label(added.attrs, op.label());
  }
  return true;
}

}  // namespace

DecomposeContext::DecomposeContext(GraphRewriter& rewriter, const Operation& op)
    : rewriter_(rewriter), op_(op) {
  for (OperandId in : op.inputs) inputs_.push_back(rewriter.value_or_null(in));
}

MLOperandDescriptor DecomposeContext::input_desc(size_t i) const {
  return rewriter_.graph().descriptor(inputs_.at(i).id());
}

const MLOperandDescriptor& DecomposeContext::output_desc(size_t i) const {
  return rewriter_.source().descriptor(op_.outputs.at(i));
}

DecompositionTable::DecompositionTable() : table_(kOpCount) {}

void DecompositionTable::add(OpType op, DecomposeFn fn, std::vector<DecompositionUse> uses) {
  table_.at(static_cast<size_t>(op)) = {fn, std::move(uses)};
}

const Decomposition* DecompositionTable::find(OpType op) const {
  const Decomposition& d = table_.at(static_cast<size_t>(op));
  return d.fn ? &d : nullptr;
}

const DecompositionTable& decompositions() {
  static const DecompositionTable table = [] {
    DecompositionTable t;
    register_activations(t);
    register_convolution(t);
    register_data_movement(t);
    register_elementwise_binary(t);
    register_elementwise_unary(t);
    register_gather_scatter(t);
    register_matrix(t);
    register_normalization(t);
    register_pooling(t);
    register_quantization(t);
    register_recurrent(t);
    register_reduction(t);
    register_resample(t);
    return t;
  }();
  return table;
}

Graph decompose(const Graph& graph, const BackendDescriptor& backend, bool* changed) {
  if (changed) *changed = false;
  // Each round replaces the operations that do not fit by their decompositions, whose own
  // operations are looked at in the next round; decompositions only go down to simpler ops.
  constexpr int kMaxRounds = 32;
  Graph current = graph;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool all_native = true;
    for (const Operation& op : current.operations)
      all_native = all_native && backend.fits_natively(current, op);
    if (all_native) return current;
    GraphRewriter rw(current);
    for (const Operation& op : current.operations) {
      if (backend.fits_natively(current, op)) {
        rw.copy(op);
      } else if (!replace(rw, op)) {
        throw NotSupportedError(describe(op) + ": the " + backend.name +
                                " backend has no native form of this operation with these data "
                                "types and options, and no decomposition of it");
      }
    }
    current = rw.finish();
    if (changed) *changed = true;
  }
  throw OperationError("decompose: the " + backend.name + " backend's graph did not settle after " +
                       std::to_string(kMaxRounds) + " rounds");
}

Graph decompose_if(const Graph& graph, bool (*should_replace)(const Operation& op)) {
  GraphRewriter rw(graph);
  for (const Operation& op : graph.operations) {
    if (!should_replace(op) || !replace(rw, op)) rw.copy(op);
  }
  return rw.finish();
}

}  // namespace cppnn::passes
