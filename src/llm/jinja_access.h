// Attribute, item and slice access on template values, as Jinja's sandboxed environment resolves
// them (environment.getattr/getitem): `obj.name` tries a method or attribute first and then the
// item, `obj[key]` the item first and then (for a string key) the attribute; what is missing is
// undefined, and names starting with '_' are never reachable. Accessing anything on an undefined
// value is its "'x' is undefined" error, as with jinja2.Undefined.
#pragma once

#include <optional>
#include <string_view>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// obj.name
Result<Value> get_attr(const Value& obj, std::string_view name, RenderState& state);

// obj[key]
Result<Value> get_item(const Value& obj, const Value& key, RenderState& state);

// obj[start:stop:step] on a str, list or tuple (Python's slice rules; a zero step is an error).
Result<Value> get_slice(const Value& obj, std::optional<int64_t> start, std::optional<int64_t> stop,
                        std::optional<int64_t> step, RenderState& state);

// Jinja's attribute getter of filters (map/selectattr/sort/join `attribute=`): a dotted path of
// names and integer indices, "a.b.0".
Result<Value> get_attr_path(const Value& obj, std::string_view path, RenderState& state);

}  // namespace cppnn::llm::jinja
