// What the interpreter's builtins share: call arguments and Python-style binding of them to
// named parameters. The builtins themselves are in jinja_filters.h (`|name`), jinja_is_tests.h
// (`is name`), jinja_methods.h (str/dict/list methods) and jinja_globals.h (range, namespace, ...).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// The evaluated arguments of a call.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

// The arguments bound to `params` in order (Python's rules: positional arguments first, then
// keywords by name); nullopt for a parameter not given. Too many positional arguments, an unknown
// or repeated keyword are errors naming `function`.
Result<std::vector<std::optional<Value>>> bind_args(std::string_view function, const CallArgs& args,
                                                    std::initializer_list<std::string_view> params);

// A bound argument as an int (bool counts), or `fallback` when absent; an error naming the
// parameter for other types.
Result<int64_t> int_arg(const std::optional<Value>& arg, std::string_view name, int64_t fallback);

// A bound argument as a string, or `fallback` when absent (or None when `none_ok`).
Result<std::optional<std::string>> string_arg(const std::optional<Value>& arg,
                                              std::string_view name,
                                              std::optional<std::string> fallback,
                                              bool none_ok = false);

// The items Python's iter() yields: list and tuple items, dict keys, the characters of a string;
// nothing for undefined; an error ("'int' object is not iterable") for other values.
Result<std::vector<Value>> python_iterate(const Value& value, RenderState& state);

// The truth value of a bound argument, or `fallback` when absent.
bool bool_arg(const std::optional<Value>& arg, bool fallback);

}  // namespace cppnn::llm::jinja
