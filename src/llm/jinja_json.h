// The `tojson` filter as Hugging Face transformers defines it for chat templates:
// json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)
// (not Jinja's own HTML-safe tojson). Output matches Python's json module byte for byte: float
// repr, NaN/Infinity, keys converted to strings, the default separators ", " and ": " (", " becomes
// "," when indenting).
#pragma once

#include <optional>
#include <string>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// json.dumps options.
struct JsonOptions {
  std::optional<std::string> indent;          // the indent unit; nullopt: everything on one line
  std::optional<std::string> item_separator;  // default ", " (or "," with an indent)
  std::string key_separator = ": ";
  bool sort_keys = false;
  bool ensure_ascii = false;  // escape every non-ASCII character as \uXXXX
};

// json.dumps(value): a TypeError-like error for values JSON cannot hold (undefined, namespace,
// loop, callables; keys that are not str, int, float, bool or None).
Result<std::string> to_json(const Value& value, const JsonOptions& options, RenderState& state);

}  // namespace cppnn::llm::jinja
