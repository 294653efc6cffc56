// Dynamic dimensions at dispatch (cppnn extension, docs/dynamic-dimensions.md): the named dynamic
// dimensions of a graph's inputs, the sizes a dispatch's input tensors give them, and the graph
// re-derived at those sizes through the builder's shape inference (symbolic attribute sizes
// recomputed, a few provably sound re-derivations, a clear error for anything else).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cppnn/graph_model.h"
#include "src/core/result.h"

namespace cppnn {

// The dynamic dimensions of a graph: names sorted byte-wise, each with its maximum.
struct DynamicDims {
  std::vector<std::string> names;
  std::vector<uint32_t> maxima;

  bool empty() const { return names.empty(); }
  // The position of `name` in names, or -1.
  int find(const std::string& name) const;
};

// The dynamic dimensions of `graph`'s inputs (OperandInfo::dim_names). TypeError when one name has
// two maxima, or when an operation's symbolic size names no dynamic dimension or does not give
// the recorded attribute value at the maxima.
Result<DynamicDims> dynamic_dims(const Graph& graph);

// The size of each dynamic dimension (DynamicDims order) that the input descriptors `actual`
// (graph.inputs order) give, checking them against the graph: same data type and rank, static
// dimensions equal, dynamic ones from 1 to their maximum, one name one size across all inputs.
// TypeError naming the input and the dimension otherwise.
Result<std::vector<uint32_t>> dynamic_sizes(const Graph& graph, const DynamicDims& dims,
                                            std::span<const MLOperandDescriptor* const> actual);

// "seq=7, batch=2": sizes for messages.
std::string describe_sizes(const DynamicDims& dims, std::span<const uint32_t> sizes);

// `graph` re-derived with its dynamic dimensions at `sizes` (DynamicDims order): inputs at those
// sizes, constants shared, every operation recorded again through the builder (the spec's
// validation and shape inference) with its symbolic sizes recomputed. An unannotated reshape or
// expand whose input changed is re-derived only where that is provably sound (reshape: a group of
// input dimensions with a changed product maps onto one output dimension; expand: an output
// dimension that equalled a non-1 input dimension follows it). NotSupportedError naming the
// operation and the sizes when an operation cannot be re-derived.
Result<Graph> specialize_graph(const Graph& graph, const DynamicDims& dims,
                               std::span<const uint32_t> sizes);

}  // namespace cppnn
