// The reference CPU backend: portable, deterministic kernels for every op and data type; cppnn's
// embedded default and the oracle other backends are checked against.
#pragma once

#include <memory>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_reference_backend(const MLContextOptions& options);
// The reference backend's compiled form of `graph` (every op through its reference kernel, an
// arena for the intermediates), for backends that run some ops on the reference kernels.
std::unique_ptr<CompiledGraph> make_reference_plan(std::shared_ptr<const Graph> graph);

}  // namespace cppnn
