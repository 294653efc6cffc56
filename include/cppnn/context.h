// MLContext (webnn-spec.md §1, §4): created from the spec's hints plus cppnn's backend choice.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cppnn/enums.h"
#include "cppnn/support_limits.h"

namespace cppnn {

namespace detail {
struct ContextState;
}

// MLContextOptions, plus `backend` (cppnn extension: a backend name; empty = choose from the
// hints and the CPPNN_BACKEND environment variable).
struct MLContextOptions {
  MLPowerPreference powerPreference = MLPowerPreference::kDefault;
  bool accelerated = true;
  std::string backend;
};

// MLContextLostInfo.
struct MLContextLostInfo {
  std::string message;
};

// A context: owns its backend state. Copies share the same context (like a JS object reference).
class MLContext {
 public:
  // ML.createContext(options). Throws NotSupportedError when no backend fits.
  static MLContext create(const MLContextOptions& options = {});

  // MLContext.accelerated.
  bool accelerated() const;
  // The chosen backend's name (cppnn extension).
  const std::string& backend() const;
  // MLContext.opSupportLimits().
  MLOpSupportLimits opSupportLimits() const;
  // MLContext.destroy(): loses the context (no-op when lost already).
  void destroy();
  // True once the context is lost (the spec's `lost` promise is settled).
  bool is_lost() const;
  // The lost info once lost (the value the `lost` promise resolves with).
  std::optional<MLContextLostInfo> lost_info() const;

  friend bool operator==(const MLContext& a, const MLContext& b) { return a.state_ == b.state_; }
  // Internal: the shared state, and a handle wrapping an existing state.
  const std::shared_ptr<detail::ContextState>& state() const { return state_; }
  explicit MLContext(std::shared_ptr<detail::ContextState> s) : state_(std::move(s)) {}

 private:
  std::shared_ptr<detail::ContextState> state_;
};

}  // namespace cppnn
