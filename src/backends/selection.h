// Backend selection: the one place that turns MLContextOptions (hints plus cppnn's explicit
// backend name or the CPPNN_BACKEND environment variable) into a backend.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

// Names of the backends compiled into this build, in order of preference.
std::vector<std::string> compiled_backends();
// Makes the backend for `options`: the explicitly named one (options.backend, else the
// CPPNN_BACKEND environment variable), else the first compiled-in backend. Throws
// NotSupportedError naming the compiled-in backends when the requested one is missing.
std::unique_ptr<Backend> select_backend(const MLContextOptions& options);

}  // namespace cppnn
