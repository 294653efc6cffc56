// MLGraph handle methods.
#include "cppnn/graph.h"

#include "cppnn/errors.h"
#include "src/api/dynamic_dispatch.h"
#include "src/api/states.h"
#include "src/backends/plan_profiler.h"

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

namespace {

// The sizes of the dynamic dimensions of graph `g` (which has some) that input descriptors
// `inputs` give; TypeError naming `what` and the input or dimension otherwise.
std::vector<uint32_t> sizes_of(const detail::GraphState& g,
                               const std::map<std::string, MLOperandDescriptor>& inputs,
                               const char* what) {
  std::vector<const MLOperandDescriptor*> actual;
  for (const std::string& name : g.input_names) {
    auto it = inputs.find(name);
    if (it == inputs.end())
      throw TypeError(std::string(what) + ": input \"" + name + "\" is not given");
    actual.push_back(&it->second);
  }
  Result<std::vector<uint32_t>> sizes = dynamic_sizes(*g.graph, g.dynamic->dims, actual);
  if (!sizes) throw TypeError(std::string(what) + ": " + sizes.error().message);
  return std::move(*sizes);
}

}  // namespace

std::map<std::string, MLOperandDescriptor> MLGraph::outputs_for(
    const std::map<std::string, MLOperandDescriptor>& inputs) const {
  const detail::GraphState& g = *state_;
  if (!g.dynamic) return g.outputs;
  const std::vector<uint32_t> sizes = sizes_of(g, inputs, "outputs_for");
  if (sizes == g.dynamic->dims.maxima) return g.outputs;
  return detail::specialization(*g.dynamic, *g.graph, sizes, nullptr)->outputs;
}

MLGraphProfile MLGraph::profile() const {
  detail::GraphState& g = *state_;
  std::lock_guard<std::mutex> timeline(g.context->timeline);  // destroy() releases on it
  MLGraphProfile total;
  if (g.compiled) merge_profile(total, g.compiled->profile());
  if (g.dynamic) {
    std::lock_guard<std::mutex> lock(g.dynamic->mu);
    for (const auto& s : g.dynamic->cache)
      if (s->compiled) merge_profile(total, s->compiled->profile());
  }
  return total;
}

MLGraphProfile MLGraph::profile_for(
    const std::map<std::string, MLOperandDescriptor>& inputs) const {
  detail::GraphState& g = *state_;
  if (!g.dynamic) return profile();
  const std::vector<uint32_t> sizes = sizes_of(g, inputs, "profile_for");
  std::lock_guard<std::mutex> timeline(g.context->timeline);
  if (sizes == g.dynamic->dims.maxima) return g.compiled ? g.compiled->profile() : MLGraphProfile{};
  std::lock_guard<std::mutex> lock(g.dynamic->mu);
  for (const auto& s : g.dynamic->cache)
    if (s->sizes == sizes && s->compiled) return s->compiled->profile();
  // Not compiled (yet, or evicted): nothing ran at these sizes.
  MLGraphProfile none;
  none.available = g.compiled && g.compiled->profile().available;
  return none;
}

}  // namespace cppnn

namespace cppnn {
MLContext MLGraph::context() const {
  return MLContext(state_->context);
}
}  // namespace cppnn
