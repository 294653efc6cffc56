// Python's str() and repr() of template values: what {{ value }} prints ("None", "True", "1.0",
// "['a', 1]", "{'k': 'v'}", "" for undefined) and what containers print for their items.
#pragma once

#include <string>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// Appends str(value). An error when `out` would exceed the render's byte limit or the work
// budget runs out (a shared list printed many times over).
Status append_str(std::string& out, const Value& value, RenderState& state);

// Appends repr(value) (strings quoted, undefined as "Undefined").
Status append_repr(std::string& out, const Value& value, RenderState& state);

// str(value) as a new string.
Result<std::string> to_str(const Value& value, RenderState& state);

}  // namespace cppnn::llm::jinja
