#include "src/passes/pipeline.h"

#include "src/passes/activation_patterns.h"
#include "src/passes/batch_norm_folding.h"
#include "src/passes/constant_folding.h"
#include "src/passes/decompose.h"
#include "src/passes/fusion.h"
#include "src/passes/int4_unpacking.h"
#include "src/passes/layout.h"
#include "src/passes/normalization_patterns.h"

namespace cppnn::passes {

std::shared_ptr<const Graph> prepare_graph(const BackendDescriptor& backend,
                                           std::shared_ptr<const Graph> graph) {
  const PassSelection& p = backend.passes;
  bool any = false;
  Graph g;
  const Graph* current = graph.get();
  // Each step runs on the previous step's graph; a step that changes nothing costs no copy.
  auto step = [&](auto&& pass) {
    bool changed = false;
    Graph next = pass(*current, &changed);
    if (!changed) return;
    g = std::move(next);
    current = &g;
    any = true;
  };
  if (p.unpack_int4) step([&](const Graph& in, bool* c) { return unpack_int4(in, backend, c); });
  // Most graphs on a full backend need no decomposition: check before the pass copies anything.
  bool all_native = true;
  for (const Operation& op : current->operations)
    all_native = all_native && backend.fits_natively(*current, op);
  if (!all_native) step([&](const Graph& in, bool* c) { return decompose(in, backend, c); });
  if (p.convert_layout)
    step([&](const Graph& in, bool* c) { return convert_layout(in, backend, c); });
  // Before folding, which then folds a recognised normalization's reshaped scale and bias.
  if (p.recognize_normalizations)
    step([&](const Graph& in, bool* c) { return recognize_normalizations(in, c); });
  if (p.fold_constants)
    step([&](const Graph& in, bool* c) { return fold_constants(in, FoldOptions{}, c); });
  if (p.fold_batch_norm) step([&](const Graph& in, bool* c) { return fold_batch_norm(in, c); });
  if (p.recognize_activations)
    step([&](const Graph& in, bool* c) { return recognize_activations(in, c); });
  if (p.fuse) step([&](const Graph& in, bool* c) { return fuse(in, backend, c); });
  if (!any) return graph;
  return std::make_shared<const Graph>(std::move(g));
}

}  // namespace cppnn::passes
