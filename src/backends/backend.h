// The backend contract: a backend compiles a graph once at build(); dispatch only binds pointers
// and runs. Shared code (src/api/) validates everything before calling a backend.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "cppnn/graph_model.h"
#include "cppnn/support_limits.h"

namespace cppnn {

// A graph compiled by one backend.
class CompiledGraph {
 public:
  virtual ~CompiledGraph() = default;
  // Runs the graph: inputs[i] holds the data of graph.inputs[i], outputs[i] receives
  // graph.outputs[i] (both dense, row-major, the operand's byte length). Called with the
  // context's timeline held, never concurrently for one context.
  virtual void execute(std::span<const std::byte* const> inputs,
                       std::span<std::byte* const> outputs) = 0;
};

// One backend instance, owned by a context.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // What this backend supports (MLContext::opSupportLimits()).
  virtual MLOpSupportLimits support_limits() const = 0;
  // Converts and compiles `graph` (pruned, immutable). Throws OperationError on failure.
  virtual std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) = 0;
};

}  // namespace cppnn
