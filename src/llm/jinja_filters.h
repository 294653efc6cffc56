// The chat-template filters (`value | name(args)`): Jinja2's built-in filters that chat templates
// use, with jinja2/filters.py's semantics and parameters (trim, upper, lower, capitalize, title,
// length/count, join, default/d, first, last, list, string, int, float, abs, round, replace,
// reverse, sort, unique, dictsort, items, sum, min, max, map, select/reject,
// selectattr/rejectattr, attr, indent, escape/e, safe, wordcount, batch, tojson as transformers
// overrides it: json.dumps without HTML escaping).
#pragma once

#include <string_view>

#include "src/core/result.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// True for a filter name this interpreter implements.
bool is_filter(std::string_view name);

// Applies filter `name` to `input`; an error for an unknown filter ("No filter named 'x'.") or
// arguments the filter rejects.
Result<Value> apply_filter(std::string_view name, const Value& input, const CallArgs& args,
                           RenderState& state);

}  // namespace cppnn::llm::jinja
