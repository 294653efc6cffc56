// The pass pipeline of a backend (BackendDescriptor::passes): what build() runs on the pruned
// graph before the backend compiles it. Decomposition always runs for the operations without a
// native form; the rest only where the backend opts in. A graph that needs no change is handed
// on as it is (no copy).
#pragma once

#include <memory>

#include "cppnn/graph_model.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::passes {

std::shared_ptr<const Graph> prepare_graph(const BackendDescriptor& backend,
                                           std::shared_ptr<const Graph> graph);

}  // namespace cppnn::passes
