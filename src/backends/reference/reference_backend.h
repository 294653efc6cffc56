// The reference CPU backend: portable, deterministic kernels for every op and data type; cppnn's
// embedded default and the oracle other backends are checked against.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_reference_backend(const MLContextOptions& options);
// The reference backend's compiled form of `graph` (every op through its reference kernel, an
// arena for the intermediates), for backends that run some ops on the reference kernels.
std::unique_ptr<CompiledGraph> make_reference_plan(std::shared_ptr<const Graph> graph);

// A backend's own kernel for one operation, run by the plan instead of the reference kernel:
// `run` reads and writes through the slot table (reference/kernel.h); `applies_activations` says
// it also applies op.activations (otherwise the plan runs them after it on the reference kernels).
struct SubstituteKernel {
  std::function<void(std::span<std::byte* const> slots)> run;
  bool applies_activations = false;
};
// For each operation, a substitute kernel or nullopt (the reference kernel then runs it).
using KernelSubstitution = std::function<std::optional<SubstituteKernel>(const Operation& op)>;
// The reference plan with the operations `substitute` takes over running on the backend's own
// kernels (the cpu backend), in the same slot table and arena; with `profile`, every kernel of
// every dispatch is timed (MLContextOptions::profile, CompiledGraph::profile()).
std::unique_ptr<CompiledGraph> make_reference_plan(std::shared_ptr<const Graph> graph,
                                                   const KernelSubstitution& substitute,
                                                   bool profile = false);

}  // namespace cppnn
