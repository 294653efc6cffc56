// MLGraph handle methods.
#include "cppnn/graph.h"

#include "src/api/states.h"

namespace cppnn {

void MLGraph::destroy() {
  // §4 "mark resources freeable": the compiled form (an ONNX Runtime session, say) is released on
  // the timeline, after the work submitted before.
  std::lock_guard<std::mutex> timeline(state_->context->timeline);
  state_->destroyed.store(true);
  state_->compiled.reset();
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

}  // namespace cppnn

namespace cppnn {
MLContext MLGraph::context() const {
  return MLContext(state_->context);
}
}  // namespace cppnn
