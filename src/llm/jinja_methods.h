// Methods of template values that chat templates call, with Python's semantics: str (strip,
// lstrip, rstrip, split, rsplit, splitlines, startswith, endswith, upper, lower, casefold, title,
// capitalize, swapcase, replace, find, rfind, index, rindex, count, join, isdigit, isalpha,
// isalnum, isspace, isupper, islower, format, removeprefix, removesuffix, zfill), dict (items,
// keys, values, get), list/tuple (index, count)
// and the loop object's cycle(). Mutating methods (list.append, dict.update, ...) do not exist,
// as in Jinja's ImmutableSandboxedEnvironment.
#pragma once

#include <string_view>

#include "src/core/result.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// True when `self` has a method `name`.
bool has_method(const Value& self, std::string_view name);

// self.name(args).
Result<Value> call_method(const Value& self, std::string_view name, const CallArgs& args,
                          RenderState& state);

}  // namespace cppnn::llm::jinja
