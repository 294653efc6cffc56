// The dynamic-dimension dispatch cache (docs/dynamic-dimensions.md).
#include "src/api/dynamic_dispatch.h"

#include <algorithm>

#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/passes/pipeline.h"

namespace cppnn::detail {

std::unique_ptr<DynamicDispatch> make_dynamic_dispatch(const Graph& graph) {
  bool any = false;
  for (OperandId id : graph.inputs)
    for (const std::string& n : graph.operand(id).dim_names) any = any || !n.empty();
  if (!any) return nullptr;
  Result<DynamicDims> dims = dynamic_dims(graph);
  if (!dims) throw TypeError("build: " + dims.error().message);
  auto dd = std::make_unique<DynamicDispatch>();
  dd->dims = std::move(*dims);
  return dd;
}

std::shared_ptr<Specialization> specialization(DynamicDispatch& dd, const Graph& graph,
                                               const std::vector<uint32_t>& sizes,
                                               ContextState* compile_in) {
  std::shared_ptr<Specialization> s;
  {
    std::lock_guard<std::mutex> lock(dd.mu);
    for (const auto& e : dd.cache)
      if (e->sizes == sizes) s = e;
    if (s) s->last_use = ++dd.clock;
  }
  if (!s) {
    Result<Graph> g = specialize_graph(graph, dd.dims, sizes);
    if (!g) throw_error(g.error().kind, "dispatch: " + g.error().message);
    s = std::make_shared<Specialization>();
    s->sizes = sizes;
    s->graph = std::make_shared<const Graph>(std::move(*g));
    for (const auto& [name, id] : s->graph->outputs)
      s->outputs.emplace(name, s->graph->descriptor(id));
    std::lock_guard<std::mutex> lock(dd.mu);
    ++dd.derivations;
    s->last_use = ++dd.clock;
    if (dd.cache.size() >= DynamicDispatch::kMaxSpecializations) {
      auto oldest =
          std::min_element(dd.cache.begin(), dd.cache.end(),
                           [](const auto& a, const auto& b) { return a->last_use < b->last_use; });
      dd.cache.erase(oldest);
    }
    dd.cache.push_back(s);
  }
  // Compiled under the context's timeline (dispatch holds it), so never twice at once.
  if (compile_in && !s->compiled) {
    s->compiled = compile_in->backend->compile(
        passes::prepare_graph(compile_in->backend->descriptor(), s->graph));
    ++compile_in->compilations;
  }
  return s;
}

}  // namespace cppnn::detail
