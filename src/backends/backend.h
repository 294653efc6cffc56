// The backend contract: a backend declares what it runs natively (BackendDescriptor, data), and
// compiles a graph once at build(); dispatch only binds pointers and runs. Shared code
// (src/api/) validates every call and binding against the context's limits, and the shared
// passes (src/passes/) rewrite the graph into what the backend runs natively before compile().
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "cppnn/graph_model.h"
#include "cppnn/profile.h"
#include "src/backends/backend_descriptor.h"

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
  // The per-operation timings of the dispatches so far (MLContextOptions::profile); not
  // available from backends that do not time operations one by one.
  virtual MLGraphProfile profile() const { return {}; }
};

// One backend instance, owned by a context.
class Backend {
 public:
  virtual ~Backend() = default;
  // What this backend runs natively, its layout and the passes it wants (one object per backend,
  // alive as long as the backend).
  virtual const BackendDescriptor& descriptor() const = 0;
  std::string_view name() const { return descriptor().name; }
  // Compiles `graph`, already rewritten by the passes of descriptor().passes so that every
  // operation runs natively (passes::prepare_graph). Throws OperationError on failure.
  virtual std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) = 0;
};

}  // namespace cppnn
