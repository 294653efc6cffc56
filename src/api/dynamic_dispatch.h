// Dispatch of graphs with dynamic input dimensions (cppnn extension, docs/dynamic-dimensions.md):
// per new tuple of sizes the graph is re-derived through shape inference (src/graph/dynamic_dims.h)
// and compiled by the context's backend once; a bounded cache keeps the most recently used ones.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cppnn/graph_model.h"
#include "src/backends/backend.h"
#include "src/graph/dynamic_dims.h"

namespace cppnn::detail {

struct ContextState;

// One re-derived graph: its sizes (DynamicDims order), the graph, its output descriptors by name,
// and the backend's compiled form (null until a dispatch needs it).
struct Specialization {
  std::vector<uint32_t> sizes;
  std::shared_ptr<const Graph> graph;
  std::map<std::string, MLOperandDescriptor> outputs;
  std::unique_ptr<CompiledGraph> compiled;
  uint64_t last_use = 0;
};

// The dynamic dimensions of a built graph and its re-derived forms.
struct DynamicDispatch {
  // At most this many re-derived graphs are kept (least recently used evicted).
  static constexpr size_t kMaxSpecializations = 8;

  DynamicDims dims;
  std::mutex mu;  // guards the cache (check_dispatch may run beside a dispatch)
  std::vector<std::shared_ptr<Specialization>> cache;
  uint64_t clock = 0;
  uint64_t derivations = 0;  // graphs re-derived so far (tests read it)

  // Drops every re-derived graph and its compiled form (the graph was destroyed or its context
  // lost).
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    cache.clear();
  }
};

// The dispatch state of a built graph with dynamic input dimensions, or null for a static graph.
// TypeError when its dynamic dimensions or symbolic sizes are inconsistent.
std::unique_ptr<DynamicDispatch> make_dynamic_dispatch(const Graph& graph);

// The re-derived graph at `sizes` (from the cache, else derived and cached); compiled with the
// backend of `compile_in` unless null (then under its timeline). NotSupportedError when the graph
// cannot be re-derived at those sizes.
std::shared_ptr<Specialization> specialization(DynamicDispatch& dd, const Graph& graph,
                                               const std::vector<uint32_t>& sizes,
                                               ContextState* compile_in);

}  // namespace cppnn::detail
