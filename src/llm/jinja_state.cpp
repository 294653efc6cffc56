// Render limits and state (see jinja_state.h).
#include "src/llm/jinja_state.h"

#include <ctime>

namespace cppnn::llm::jinja {

Status RenderState::charge(uint64_t units) {
  if (units > work_left_) {
    work_left_ = 0;
    return template_error("the template needs more than the work limit (", limits_.max_work,
                          " steps): it loops or builds too much");
  }
  work_left_ -= units;
  return Ok{};
}

Status RenderState::charge_string(uint64_t bytes) {
  if (bytes > limits_.max_output_bytes) {
    return template_error("a string of ", bytes, " bytes exceeds the limit of ",
                          limits_.max_output_bytes, " bytes");
  }
  return charge(1 + bytes / 16);
}

Status RenderState::charge_container(uint64_t items) {
  if (items > limits_.max_container_items) {
    return template_error("a list or dict of ", items, " items exceeds the limit of ",
                          limits_.max_container_items, " items");
  }
  return charge(1 + items);
}

Status RenderState::count_iteration() {
  if (++iterations_ > limits_.max_loop_iterations) {
    return template_error("more than ", limits_.max_loop_iterations,
                          " loop iterations (the limit of one render)");
  }
  return charge(1);
}

Namespace* RenderState::new_namespace() {
  namespaces_.push_back(std::make_unique<Namespace>());
  return namespaces_.back().get();
}

int64_t RenderState::now_unix_seconds() const {
  if (now_) return *now_;
  return static_cast<int64_t>(std::time(nullptr));
}

}  // namespace cppnn::llm::jinja
