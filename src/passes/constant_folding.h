// Constant folding: an operation whose inputs are all constants is computed once at build by the
// reference kernels, called directly on the constants' bytes (no context, graph build or
// dispatch), and replaced by a constant. Also the ONNX importer's folding.
#pragma once

#include <cstdint>
#include <vector>

#include "cppnn/graph_model.h"

namespace cppnn::passes {

struct FoldOptions {
  // An operation is folded only when each output is at most this large, and not larger than its
  // constant inputs together unless at most `small_bytes` (so a scalar fill is never expanded).
  // identity and reshape are always folded: their result shares the input's bytes.
  uint64_t max_output_bytes = 64ull << 20;
  uint64_t small_bytes = 64ull << 10;
};

// Folds every foldable operation of `graph`; `changed` tells whether any was. An operation whose
// kernel fails is kept as it is. A folded constant keeps the source value's name; it is a scalar
// fill when it is an identity or reshape of one (OperandInfo::scalar_fill) and has no weight ref.
Graph fold_constants(const Graph& graph, const FoldOptions& options, bool* changed);

// Computes every operation of a graph without inputs (everything reachable from constants) and
// returns the bytes of its outputs, in Graph::outputs order. OperationError when the graph has
// inputs or a kernel fails.
std::vector<ConstantData> evaluate_constant_graph(const Graph& graph);

}  // namespace cppnn::passes
