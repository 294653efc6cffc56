// Backend selection: the one place that turns MLContextOptions (hints plus cppnn's explicit
// backend name or the CPPNN_BACKEND environment variable) into a backend, over the backend list
// (src/backends/backends.def).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

// Names of the backends compiled into this build, in order of preference; test-only backends
// (backends.def) only with `with_test_only`.
std::vector<std::string> compiled_backends(bool with_test_only = false);
// Makes the backend for `options`: the explicitly named one (options.backend, else the
// CPPNN_BACKEND environment variable), else the first compiled-in backend that is not test-only.
// Throws NotSupportedError naming the compiled-in backends when the requested one is missing.
std::unique_ptr<Backend> select_backend(const MLContextOptions& options);

using BackendFactory = std::function<std::unique_ptr<Backend>(const MLContextOptions&)>;
// Tests: makes a backend selectable by name while the object lives (never the default).
class ScopedTestBackend {
 public:
  ScopedTestBackend(std::string name, BackendFactory factory);
  ~ScopedTestBackend();
  ScopedTestBackend(const ScopedTestBackend&) = delete;
  ScopedTestBackend& operator=(const ScopedTestBackend&) = delete;

 private:
  std::string name_;
};

}  // namespace cppnn
