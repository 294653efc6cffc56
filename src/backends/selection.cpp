#include "src/backends/selection.h"

#include <cstdlib>
#include <mutex>

#include "cppnn/errors.h"

namespace cppnn {

// The factories of the compiled-in backends (each defined in its folder).
#define CPPNN_BACKEND(name, factory, condition, test_only) \
  std::unique_ptr<Backend> factory(const MLContextOptions& options);
#include "cppnn_compiled_backends.inc"
#undef CPPNN_BACKEND

namespace {

struct BackendEntry {
  std::string name;
  BackendFactory make;
  bool test_only = false;
};

// Every compiled-in backend, in order of preference, then the registered test backends.
struct Registry {
  std::mutex mu;
  std::vector<BackendEntry> entries = {
#define CPPNN_BACKEND(name, factory, condition, test_only) {#name, &factory, test_only != 0},
#include "cppnn_compiled_backends.inc"
#undef CPPNN_BACKEND
  };
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::vector<std::string> compiled_backends(bool with_test_only) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& e : r.entries)
    if (with_test_only || !e.test_only) names.push_back(e.name);
  return names;
}

std::unique_ptr<Backend> select_backend(const MLContextOptions& options) {
  std::string requested = options.backend;
  if (requested.empty()) {
    if (const char* env = std::getenv("CPPNN_BACKEND")) requested = env;
  }
  Registry& r = registry();
  BackendFactory make;
  std::string list;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& e : r.entries) {
      // The hints (powerPreference, accelerated) only rank backends; every backend here is a
      // CPU backend, so the first one fits any hint.
      if (requested.empty() ? !e.test_only : requested == e.name) {
        make = e.make;
        break;
      }
      list += (list.empty() ? "" : ", ") + e.name;
    }
    if (!make) {
      list.clear();
      for (const auto& e : r.entries) list += (list.empty() ? "" : ", ") + e.name;
    }
  }
  if (!make)
    throw NotSupportedError("createContext: backend \"" + requested +
                            "\" is not compiled in (available: " + list + ")");
  return make(options);
}

ScopedTestBackend::ScopedTestBackend(std::string name, BackendFactory factory)
    : name_(std::move(name)) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.entries.push_back({name_, std::move(factory), true});
}

ScopedTestBackend::~ScopedTestBackend() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::erase_if(r.entries, [&](const BackendEntry& e) { return e.name == name_; });
}

}  // namespace cppnn
