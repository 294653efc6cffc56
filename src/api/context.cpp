// MLContext: creation from hints, loss, and opSupportLimits (webnn-spec.md §1, §4).
#include "cppnn/context.h"

#include <cstdlib>

#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/backends/selection.h"

namespace cppnn {

MLContext MLContext::create(const MLContextOptions& options) {
  auto state = std::make_shared<detail::ContextState>();
  state->options = options;
  BackendChoice choice = select_backend(options);
  state->backend = choice.name;
  state->accelerated = choice.accelerated;
  return MLContext(std::move(state));
}

bool MLContext::accelerated() const {
  return state_->accelerated;
}
const std::string& MLContext::backend() const {
  return state_->backend;
}

MLOpSupportLimits MLContext::opSupportLimits() const {
  return backend_support_limits(state_->backend);
}

void MLContext::destroy() {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->lost) return;
  state_->lost = MLContextLostInfo{"the context was destroyed"};
}

bool MLContext::is_lost() const {
  return state_->is_lost();
}

std::optional<MLContextLostInfo> MLContext::lost_info() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->lost;
}

}  // namespace cppnn
