// Decomposition (webnn-spec.md §2 emulation notes): every op the spec defines in terms of others
// has a decomposition, written with MLGraphBuilder calls on the rewritten graph. The pass replaces
// each operation its backend does not run natively (BackendDescriptor::fits_natively) by its
// decomposition, again until everything left is native; an operation with neither is a
// NotSupportedError naming the op and its label. The decompositions live in one file per op family
// (src/passes/decompose/<family>.cpp), each registering its ops in the table.
#pragma once

#include <span>
#include <vector>

#include "cppnn/graph_builder.h"
#include "src/backends/backend_descriptor.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes {

// What a decomposition sees: the builder to record its replacement with, the source operation
// and its attributes, and its input operands already mapped into the new graph.
class DecomposeContext {
 public:
  DecomposeContext(GraphRewriter& rewriter, const Operation& op);

  MLGraphBuilder& builder() { return rewriter_.builder(); }
  const Operation& op() const { return op_; }
  template <OpType T>
  const AttrsOf<T>& attrs() const {
    return attrs_of<T>(op_.attrs);
  }
  // Input i in Operation::inputs order (positional operands, then operand-valued options); a
  // null operand for an absent optional operand.
  const MLOperand& input(size_t i) const { return inputs_.at(i); }
  bool has_input(size_t i) const { return i < inputs_.size() && !inputs_[i].is_null(); }
  size_t input_count() const { return inputs_.size(); }
  // A copy: the builder's operand storage moves as the decomposition records ops.
  MLOperandDescriptor input_desc(size_t i) const;
  // The descriptor the decomposition must produce for output i.
  const MLOperandDescriptor& output_desc(size_t i) const;

 private:
  GraphRewriter& rewriter_;
  const Operation& op_;
  std::vector<MLOperand> inputs_;
};

// Records the replacement of ctx.op() and returns its outputs (one per source output, with the
// same descriptors), or an empty vector when this operation (its options) has no decomposition.
using DecomposeFn = std::vector<MLOperand> (*)(DecomposeContext& ctx);

// How a decomposition uses another op, for the context's limits (context_limits.h): with the
// decomposed op's own data type (`types` 0), or with fixed data types.
struct DecompositionUse {
  OpType op;
  DataTypeMask types = 0;
};

struct Decomposition {
  DecomposeFn fn = nullptr;
  std::vector<DecompositionUse> uses;
};

// Every op's decomposition, or none (conv2d, matmul, ...: the primitives).
class DecompositionTable {
 public:
  DecompositionTable();
  void add(OpType op, DecomposeFn fn, std::vector<DecompositionUse> uses);
  const Decomposition* find(OpType op) const;

 private:
  std::vector<Decomposition> table_;
};

// The table, filled once by the family files.
const DecompositionTable& decompositions();

// The family registrations (src/passes/decompose/<family>.cpp), one per family of ops.def.
void register_activations(DecompositionTable& t);
void register_convolution(DecompositionTable& t);
void register_data_movement(DecompositionTable& t);
void register_elementwise_binary(DecompositionTable& t);
void register_elementwise_unary(DecompositionTable& t);
void register_gather_scatter(DecompositionTable& t);
void register_matrix(DecompositionTable& t);
void register_normalization(DecompositionTable& t);
void register_pooling(DecompositionTable& t);
void register_quantization(DecompositionTable& t);
void register_recurrent(DecompositionTable& t);
void register_reduction(DecompositionTable& t);
void register_resample(DecompositionTable& t);

// Rewrites `graph` so that every operation fits `backend` natively (unchanged operations are
// copied, constants shared). Throws NotSupportedError for an operation that neither runs
// natively nor decomposes. `changed` (optional) tells whether anything was replaced.
Graph decompose(const Graph& graph, const BackendDescriptor& backend, bool* changed = nullptr);
// Decomposes exactly the operations for which `replace` is true, once (tests of one
// decomposition; the replacement may hold other ops without a native form).
Graph decompose_if(const Graph& graph, bool (*replace)(const Operation& op));

}  // namespace cppnn::passes
