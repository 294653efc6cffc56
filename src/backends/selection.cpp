#include "src/backends/selection.h"

#include <cstdlib>
#include <functional>

#include "cppnn/errors.h"
#include "src/backends/reference/reference_backend.h"
#ifdef CPPNN_HAVE_ORT
#include "src/backends/ort/ort_backend.h"
#endif

namespace cppnn {
namespace {

struct BackendEntry {
  const char* name;
  std::function<std::unique_ptr<Backend>(const MLContextOptions&)> make;
};

// Every compiled-in backend, in order of preference (the first is the default).
const std::vector<BackendEntry>& registry() {
  static const std::vector<BackendEntry> kBackends = {
#ifdef CPPNN_HAVE_ORT
      {"ort", [](const MLContextOptions& o) { return make_ort_backend(o); }},
#endif
      {"reference", [](const MLContextOptions&) { return make_reference_backend(); }},
  };
  return kBackends;
}

}  // namespace

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (const auto& e : registry()) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<Backend> select_backend(const MLContextOptions& options) {
  std::string requested = options.backend;
  if (requested.empty()) {
    if (const char* env = std::getenv("CPPNN_BACKEND")) requested = env;
  }
  // The hints (powerPreference, accelerated) only rank backends; every backend here is a CPU
  // backend, so the first one fits any hint.
  if (requested.empty()) return registry().front().make(options);
  std::string list;
  for (const auto& e : registry()) {
    if (requested == e.name) return e.make(options);
    list += (list.empty() ? "" : ", ") + std::string(e.name);
  }
  throw NotSupportedError("createContext: backend \"" + requested +
                          "\" is not compiled in (available: " + list + ")");
}

}  // namespace cppnn
