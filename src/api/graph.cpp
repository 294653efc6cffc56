// MLGraph handle methods.
#include "cppnn/graph.h"

#include "cppnn/errors.h"
#include "src/api/states.h"

namespace cppnn {

void MLGraph::destroy() {
  // §4 "mark resources freeable": the compiled form (an ONNX Runtime session, say) is released on
  // the timeline, after the work submitted before.
  std::lock_guard<std::mutex> timeline(state_->context->timeline);
  state_->destroyed.store(true);
  state_->compiled.reset();
  if (state_->dynamic) state_->dynamic->release();
}
bool MLGraph::is_destroyed() const {
  return state_->destroyed.load();
}
const std::map<std::string, MLOperandDescriptor>& MLGraph::inputs() const {
  return state_->inputs;
}
const std::map<std::string, MLOperandDescriptor>& MLGraph::outputs() const {
  return state_->outputs;
}
const Graph& MLGraph::graph() const {
  return *state_->graph;
}

std::map<std::string, MLOperandDescriptor> MLGraph::outputs_for(
    const std::map<std::string, MLOperandDescriptor>& inputs) const {
  const detail::GraphState& g = *state_;
  if (!g.dynamic) return g.outputs;
  std::vector<const MLOperandDescriptor*> actual;
  for (const std::string& name : g.input_names) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw TypeError("outputs_for: input \"" + name + "\" is not given");
    actual.push_back(&it->second);
  }
  Result<std::vector<uint32_t>> sizes = dynamic_sizes(*g.graph, g.dynamic->dims, actual);
  if (!sizes) throw TypeError("outputs_for: " + sizes.error().message);
  if (*sizes == g.dynamic->dims.maxima) return g.outputs;
  return detail::specialization(*g.dynamic, *g.graph, *sizes, nullptr)->outputs;
}

}  // namespace cppnn

namespace cppnn {
MLContext MLGraph::context() const {
  return MLContext(state_->context);
}
}  // namespace cppnn
