// The shared state behind the API handles (MLContext, MLGraphBuilder/MLOperand, MLGraph).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "cppnn/context.h"
#include "cppnn/graph_model.h"

namespace cppnn::detail {

// One context: its options, chosen backend and lost state (§4).
struct ContextState {
  MLContextOptions options;
  std::string backend;
  bool accelerated = false;

  mutable std::mutex mu;
  std::optional<MLContextLostInfo> lost;  // set once, under mu

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

// One built graph: the pruned model and its named input/output descriptors.
struct GraphState {
  std::shared_ptr<ContextState> context;
  std::shared_ptr<const Graph> graph;
  std::map<std::string, MLOperandDescriptor> inputs;
  std::map<std::string, MLOperandDescriptor> outputs;
  std::atomic<bool> destroyed{false};
};

}  // namespace cppnn::detail
