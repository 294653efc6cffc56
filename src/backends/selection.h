// Backend selection: the one place that turns MLContextOptions (hints plus cppnn's explicit
// backend name or the CPPNN_BACKEND environment variable) into a backend.
#pragma once

#include <string>
#include <vector>

#include "cppnn/context.h"
#include "cppnn/support_limits.h"

namespace cppnn {

// The outcome of selection.
struct BackendChoice {
  std::string name;
  bool accelerated = false;
};

// Names of the backends compiled into this build.
std::vector<std::string> compiled_backends();
// Chooses a backend; throws NotSupportedError naming the compiled-in backends when an explicitly
// requested one is missing.
BackendChoice select_backend(const MLContextOptions& options);
// The support limits of a backend: the op table's allowed types and ranks, narrowed to what the
// backend implements.
MLOpSupportLimits backend_support_limits(const std::string& backend);

}  // namespace cppnn
