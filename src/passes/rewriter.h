// The small graph rewriter every pass is written with: it records a new graph beside a source
// graph through an MLGraphBuilder (so replacement subgraphs get the spec's validation and output
// inference, written like the spec's emulation code), maps source operands to new ones, copies
// the operations it keeps, and finishes with dead-code removal. Graphs themselves stay immutable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"

namespace cppnn::passes {

// How many times each operand is read: by operations (each input slot) and as a graph output.
std::vector<uint32_t> use_counts(const Graph& graph);
// An operation index that names none: what producers() holds for an input or a constant.
inline constexpr uint32_t kNoOperation = UINT32_MAX;
// The operation index producing each operand (kOperationResult), else kNoOperation.
std::vector<uint32_t> producers(const Graph& graph);
// The value of a one-element float32 constant, or nullopt for anything else (the scalars that
// exporters' op spellings carry: ε, 0.5, 3, 6, ...).
std::optional<float> scalar_float_constant(const Graph& graph, OperandId id);
// Sets the label of an op's options (every options struct has one).
void set_label(OpAttributes& attrs, const std::string& label);
// A new builder on the backend-less context the rewriter records on (the spec's validation only,
// no context limits, nothing to build or dispatch): for recording graphs that are only inspected
// or evaluated (pruned_graph()), such as the ONNX importer's folded nodes.
MLGraphBuilder pass_builder();

// A new graph under construction from `source`: same inputs (names, order, descriptors, dynamic
// dimension names), constants shared (no copy of their bytes), operations copied or replaced.
class GraphRewriter {
 public:
  explicit GraphRewriter(const Graph& source);

  const Graph& source() const { return source_; }
  // Records replacement operations (spec validation only, no context limits).
  MLGraphBuilder& builder() { return builder_; }
  // The graph recorded so far.
  const Graph& graph() const;

  // The new operand standing for source operand `id` (inputs and constants are mapped on first
  // use; operation results once their operation was copied or replaced).
  MLOperand value(OperandId id);
  // The new operand for `id`, or a null operand for kNoOperand (absent optional inputs).
  MLOperand value_or_null(OperandId id);
  // Makes `id` stand for `v` from now on (the result of a replacement).
  void set(OperandId id, const MLOperand& v);
  bool has(OperandId id) const { return map_.at(id.value).has_value(); }
  // Copies source operation `op` unchanged onto the mapped operands; its outputs map to the copies.
  void copy(const Operation& op);
  // An MLOperand handle for an operand of the new graph.
  MLOperand handle(OperandId new_id) const;
  // The number of operations recorded so far (to find the ones a replacement added).
  size_t operation_count() const;
  // Mutable access to a recorded operation (passes that adjust attributes after recording).
  Operation& operation(size_t index);

  // The finished graph: the source's outputs (names kept) on their mapped operands, an identity
  // added where an output would be an input or a constant, everything unreachable removed; every
  // input of the source is kept, in order, even when no longer read.
  Graph finish();

 private:
  const Graph& source_;
  MLGraphBuilder builder_;
  std::vector<std::optional<OperandId>> map_;
};

// Records `op` again into `rw` on the new operands `in` (its positional operands, then its
// operand-valued options, null where absent) with `attrs`, keeping its fused activations; all
// its outputs. Passes that rewrite an op's attributes (layout conversion, dynamic sizes) use it.
std::vector<MLOperand> rerecord_operation(GraphRewriter& rw, const Operation& op,
                                          std::vector<MLOperand> in, OpAttributes attrs);

}  // namespace cppnn::passes
