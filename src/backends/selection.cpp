#include "src/backends/selection.h"

#include <cstdlib>

#include "cppnn/errors.h"
#include "src/graph/support_limits_table.h"

namespace cppnn {

// No execution backend is compiled in yet: contexts can record and build graphs ("none"), which
// is what the validation layer needs. Execution backends register here.
std::vector<std::string> compiled_backends() {
  return {};
}

BackendChoice select_backend(const MLContextOptions& options) {
  std::string requested = options.backend;
  if (requested.empty()) {
    if (const char* env = std::getenv("CPPNN_BACKEND")) requested = env;
  }
  auto available = compiled_backends();
  if (requested.empty()) {
    if (available.empty()) return {"none", false};
    return {available.front(), false};
  }
  for (const auto& name : available)
    if (name == requested) return {name, false};
  std::string list;
  for (const auto& name : available) list += (list.empty() ? "" : ", ") + name;
  throw NotSupportedError(
      "createContext: backend \"" + requested +
      "\" is not compiled in (available: " + (list.empty() ? std::string("none") : list) + ")");
}

MLOpSupportLimits backend_support_limits(const std::string&) {
  return spec_support_limits();
}

}  // namespace cppnn
