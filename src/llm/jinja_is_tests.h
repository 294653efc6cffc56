// The chat-template tests (`value is [not] name(args)`): Jinja2's built-in tests (jinja2/tests.py):
// defined, undefined, none, boolean, true, false, integer, float, number, string, mapping,
// iterable, sequence, callable, sameas, escaped, odd, even, divisibleby, eq/equalto/==,
// ne/!=, lt/lessthan/<, le/<=, gt/greaterthan/>, ge/>=, in, lower, upper, filter, test.
#pragma once

#include <string_view>

#include "src/core/result.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// True for a test name this interpreter implements.
bool is_test(std::string_view name);

// Applies test `name` to `input`; an error for an unknown test ("No test named 'x'.").
Result<bool> apply_test(std::string_view name, const Value& input, const CallArgs& args,
                        RenderState& state);

}  // namespace cppnn::llm::jinja
