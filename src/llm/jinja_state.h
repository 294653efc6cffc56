// The sandbox limits of one template render and the state the evaluator shares with the
// builtins (filters, tests, methods, global functions): the work budget that bounds time, the
// byte limit that bounds every string, and the arena that owns namespace() objects.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// Bounds on one render: a template is untrusted, and none of these can be exceeded whatever it
// does (an error names the limit instead).
struct RenderLimits {
  // The rendered text, and any single string value.
  uint64_t max_output_bytes = uint64_t{16} << 20;
  // Work units: one per evaluated node, per loop iteration, per container element built or
  // compared, and per 16 bytes of string built.
  uint64_t max_work = 50'000'000;
  // {% for %} iterations over the whole render.
  uint64_t max_loop_iterations = 1'000'000;
  // Elements of a list, tuple or dict built by one operation (range() is also capped at
  // Jinja's sandbox MAX_RANGE, 100000).
  uint64_t max_container_items = 1'000'000;
  // Nesting of template evaluation (expressions, blocks and macro calls together).
  uint32_t max_eval_depth = 256;
  // Nesting of lists/dicts that a namespace attribute may hold (the only way to build values
  // deeper than the template text itself).
  uint32_t max_value_depth = 64;
};

// Jinja's sandbox limit on range() (jinja2.sandbox.MAX_RANGE).
inline constexpr uint64_t kMaxRange = 100000;

// The mutable state of one render.
class RenderState {
 public:
  RenderState(const RenderLimits& limits, std::optional<int64_t> now_unix_seconds)
      : limits_(limits), work_left_(limits.max_work), now_(now_unix_seconds) {}

  const RenderLimits& limits() const { return limits_; }

  // Spends `units` of the work budget; an error once it is exhausted.
  Status charge(uint64_t units);
  // Spends the work of building a string of `bytes` bytes, and checks the string size limit.
  Status charge_string(uint64_t bytes);
  // Checks (and spends the work of) building a container of `items` elements.
  Status charge_container(uint64_t items);
  // Counts one {% for %} iteration against its limit.
  Status count_iteration();

  // A new namespace() owned by this render.
  Namespace* new_namespace();

  // The time strftime_now() formats: the fixed time given at construction, else the clock.
  int64_t now_unix_seconds() const;

 private:
  RenderLimits limits_;
  uint64_t work_left_;
  uint64_t iterations_ = 0;
  std::optional<int64_t> now_;
  std::vector<std::unique_ptr<Namespace>> namespaces_;
};

// A DataError with the pieces as its message (every template error is one).
template <class... A>
ErrorInfo template_error(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

}  // namespace cppnn::llm::jinja
