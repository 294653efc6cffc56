// MLGraph (webnn-spec.md §1): the result of MLGraphBuilder::build().
#pragma once

#include <map>
#include <memory>
#include <string>

#include "cppnn/context.h"
#include "cppnn/descriptor.h"
#include "cppnn/graph_model.h"
#include "cppnn/profile.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace detail {
struct GraphState;
}

// A built graph. Copies share the same graph.
class MLGraph {
 public:
  // MLGraph.destroy(): idempotent.
  void destroy();
  bool is_destroyed() const;
  // [[inputDescriptors]] and [[outputDescriptors]] (cppnn extension: readable).
  const std::map<std::string, MLOperandDescriptor>& inputs() const;
  const std::map<std::string, MLOperandDescriptor>& outputs() const;
  // The output descriptors for input tensors of the descriptors `inputs` (cppnn extension,
  // docs/dynamic-dimensions.md): outputs() for a graph without dynamic dimensions, else the
  // outputs of the graph re-derived at the sizes the inputs give (checked like dispatch():
  // TypeError naming the input and dimension; NotSupportedError when it cannot be re-derived).
  std::map<std::string, MLOperandDescriptor> outputs_for(
      const std::map<std::string, MLOperandDescriptor>& inputs) const;
  // The pruned, immutable graph model (cppnn extension).
  const Graph& graph() const;
  // Per-operation timings of the dispatches so far (cppnn extension, cppnn/profile.h); available
  // only in a context created with MLContextOptions::profile on a backend that can time them.
  MLGraphProfile profile() const;
  // The profile of the one compiled form that runs inputs of the descriptors `inputs` (a graph
  // with dynamic dimensions has one per size; profile() for a static graph): empty when nothing
  // ran at those sizes. TypeError as outputs_for().
  MLGraphProfile profile_for(const std::map<std::string, MLOperandDescriptor>& inputs) const;
  MLContext context() const;
  const std::shared_ptr<detail::GraphState>& state() const { return state_; }

 private:
  friend class MLGraphBuilder;
  explicit MLGraph(std::shared_ptr<detail::GraphState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::GraphState> state_;
};

}  // namespace cppnn

#pragma GCC visibility pop
