// The shared state behind the API handles (MLContext, MLGraphBuilder/MLOperand, MLGraph,
// MLTensor).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/context.h"
#include "cppnn/graph_model.h"
#include "src/api/dynamic_dispatch.h"
#include "src/backends/backend.h"
#include "src/passes/context_limits.h"

namespace cppnn::detail {

struct TensorState;
struct GraphState;

// One context: its backend, its timeline and its lost state (§4). Every timeline step (tensor
// creation, write, dispatch, read, build's compile) runs under `timeline`, in call order.
struct ContextState {
  MLContextOptions options;
  std::unique_ptr<Backend> backend;
  // What the backend runs, natively or decomposed (null for the passes' own builders: the spec's
  // limits only).
  std::shared_ptr<const passes::ContextLimits> limits;
  bool accelerated = false;

  std::mutex timeline;  // serialises the timeline steps of this context
  // Graphs compiled by the backend in this context: build() and each new size of a dynamic
  // graph (docs/dynamic-dimensions.md); tests check that a step graph compiles once per size.
  std::atomic<uint64_t> compilations{0};

  mutable std::mutex mu;  // guards lost and the registries below
  std::optional<MLContextLostInfo> lost;
  std::vector<std::weak_ptr<TensorState>> tensors;
  std::vector<std::weak_ptr<GraphState>> graphs;

  bool is_lost() const {
    std::lock_guard<std::mutex> lock(mu);
    return lost.has_value();
  }
};

// One graph builder: the graph being recorded and [[hasBuilt]].
struct BuilderState {
  std::shared_ptr<ContextState> context;
  Graph graph;
  bool built = false;

  // §1 "can build": not built yet and the context is not lost.
  bool can_build() const { return !built && !context->is_lost(); }
  // A handle to operand `id` of this builder.
  MLOperand handle(const std::shared_ptr<BuilderState>& self, OperandId id) const {
    return MLOperand(self, id);
  }
};

// One built graph: the pruned model, its named inputs and outputs in Graph::inputs/outputs order,
// and the backend's compiled form.
struct GraphState {
  std::shared_ptr<ContextState> context;
  std::shared_ptr<const Graph> graph;
  std::map<std::string, MLOperandDescriptor> inputs;
  std::map<std::string, MLOperandDescriptor> outputs;
  std::vector<std::string> input_names;   // graph->inputs order
  std::vector<std::string> output_names;  // graph->outputs order
  // dispatch's fast path: for each side, the graph positions in the order of the names sorted
  // as MLNamedTensors sorts them, so the bindings are matched by one walk without lookups.
  std::vector<uint32_t> input_order, output_order;
  std::unique_ptr<CompiledGraph> compiled;
  // Graphs with dynamic input dimensions: their re-derived forms per tuple of sizes (null for a
  // static graph; docs/dynamic-dimensions.md).
  std::unique_ptr<DynamicDispatch> dynamic;
  // Scratch of dispatch (used under the context's timeline only): pointers in graph order and
  // the tensors seen, kept between dispatches so that a dispatch allocates nothing.
  std::vector<const std::byte*> bound_inputs;
  std::vector<std::byte*> bound_outputs;
  std::vector<const TensorState*> bound_tensors;
  std::atomic<bool> destroyed{false};
};

// One tensor: descriptor, usage, and its bytes (64-byte aligned, zero-filled at creation).
struct TensorState {
  ContextState* context = nullptr;  // identity only; the context outlives use through handles
  std::weak_ptr<ContextState> context_ref;
  MLOperandDescriptor descriptor;
  bool readable = false;
  bool writable = false;
  bool constant = false;
  std::atomic<bool> destroyed{false};
  std::shared_ptr<std::byte> data;  // byte_length bytes; shared so constants can view it
  size_t size = 0;
};

// Allocates `size` zeroed bytes aligned to 64 (at least 1 byte, so data is never null).
std::shared_ptr<std::byte> allocate_tensor_bytes(size_t size);

}  // namespace cppnn::detail
