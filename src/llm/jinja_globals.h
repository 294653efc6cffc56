// The global functions of a chat template: Jinja2's range (capped at the sandbox's MAX_RANGE),
// namespace and dict, and the two that Hugging Face transformers adds: raise_exception(message)
// (stops the render with that message) and strftime_now(format) (the current local date and
// time, formatted).
#pragma once

#include <string_view>

#include "src/core/result.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// True for a global function name.
bool is_global(std::string_view name);

// Calls global function `name`.
Result<Value> call_global(std::string_view name, const CallArgs& args, RenderState& state);

}  // namespace cppnn::llm::jinja
