// The `is` tests (see jinja_is_tests.h), as jinja2/tests.py defines them.
#include "src/llm/jinja_is_tests.h"

#include <cmath>

#include "src/llm/jinja_filters.h"
#include "src/llm/jinja_format.h"
#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

constexpr std::string_view kTests[] = {
    "defined", "undefined", "none",        "boolean", "true",        "false",    "integer",
    "float",   "number",    "string",      "mapping", "iterable",    "sequence", "callable",
    "sameas",  "escaped",   "odd",         "even",    "divisibleby", "eq",       "equalto",
    "==",      "ne",        "!=",          "lt",      "lessthan",    "<",        "le",
    "<=",      "gt",        "greaterthan", ">",       "ge",          ">=",       "in",
    "lower",   "upper",     "filter",      "test"};

// The one required argument of a comparison test.
Result<Value> other_arg(std::string_view name, const CallArgs& args) {
  auto bound = bind_args(name, args, {"other"});
  if (!bound.ok()) return bound.error();
  if (!(*bound)[0]) return template_error(name, "() missing 1 required positional argument");
  return *(*bound)[0];
}

// `value % divisor == 0`-style checks for odd, even and divisibleby.
Result<bool> remainder_is(const Value& value, const Value& divisor, int64_t expected,
                          RenderState& state) {
  auto rem = binary_op(BinaryOp::kMod, value, divisor, state);
  if (!rem.ok()) return rem.error();
  return python_equal(*rem, Value::integer(expected), state);
}

// Python's `a is b` for the values where identity is observable and stable: None, booleans,
// small cached ints and shared objects.
bool same_object(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNone:
    case ValueKind::kUndefined:
      return a.kind() == ValueKind::kNone;
    case ValueKind::kBool:
      return a.as_bool() == b.as_bool();
    case ValueKind::kInt:
      return a.as_int() == b.as_int() && a.as_int() >= -5 && a.as_int() <= 256;
    default:
      return a.identity() != nullptr && a.identity() == b.identity();
  }
}

// str(value).islower() / isupper().
Result<bool> case_test(const Value& value, bool lower, RenderState& state) {
  auto text = to_str(value, state);
  if (!text.ok()) return text.error();
  bool any_cased = false;
  for (size_t pos = 0; pos < text->size();) {
    const char32_t cp = utf8_next(*text, pos);
    if (!is_cased(cp)) continue;
    any_cased = true;
    if (lower ? is_upper(cp) : is_lower(cp)) return false;
  }
  return any_cased;
}

}  // namespace

bool is_test(std::string_view name) {
  for (std::string_view test : kTests) {
    if (test == name) return true;
  }
  return false;
}

Result<bool> apply_test(std::string_view name, const Value& value, const CallArgs& args,
                        RenderState& state) {
  CPPNN_RETURN_IF_ERROR(state.charge(1));
  const ValueKind kind = value.kind();
  const bool no_args = args.positional.empty() && args.keywords.empty();
  const auto require_no_args = [&]() -> Status {
    if (!no_args) return template_error("the test '", name, "' takes no arguments");
    return Ok{};
  };
  if (name == "defined" || name == "undefined" || name == "none" || name == "boolean" ||
      name == "true" || name == "false" || name == "integer" || name == "float" ||
      name == "number" || name == "string" || name == "mapping" || name == "iterable" ||
      name == "sequence" || name == "callable" || name == "escaped" || name == "odd" ||
      name == "even" || name == "lower" || name == "upper") {
    CPPNN_RETURN_IF_ERROR(require_no_args());
  }
  if (name == "defined") return kind != ValueKind::kUndefined;
  if (name == "undefined") return kind == ValueKind::kUndefined;
  if (name == "none") return kind == ValueKind::kNone;
  if (name == "boolean") return kind == ValueKind::kBool;
  if (name == "true") return kind == ValueKind::kBool && value.as_bool();
  if (name == "false") return kind == ValueKind::kBool && !value.as_bool();
  if (name == "integer") return kind == ValueKind::kInt;
  if (name == "float") return kind == ValueKind::kFloat;
  if (name == "number") return value.is_number();
  if (name == "string") return kind == ValueKind::kString;
  if (name == "mapping") return kind == ValueKind::kDict;
  // Jinja's Undefined is iterable, has a length and items, and is callable (it raises).
  if (name == "iterable") {
    return kind == ValueKind::kUndefined || kind == ValueKind::kString || value.is_sequence() ||
           kind == ValueKind::kDict || kind == ValueKind::kLoop;
  }
  if (name == "sequence") {
    return kind == ValueKind::kUndefined || kind == ValueKind::kString || value.is_sequence() ||
           kind == ValueKind::kDict;
  }
  if (name == "callable") {
    return kind == ValueKind::kCallable || kind == ValueKind::kLoop ||
           kind == ValueKind::kUndefined;
  }
  if (name == "escaped") return false;  // no Markup objects: autoescaping is off
  if (name == "odd") return remainder_is(value, Value::integer(2), 1, state);
  if (name == "even") return remainder_is(value, Value::integer(2), 0, state);
  if (name == "lower" || name == "upper") return case_test(value, name == "lower", state);
  if (name == "divisibleby") {
    auto num = other_arg(name, args);
    if (!num.ok()) return num.error();
    return remainder_is(value, *num, 0, state);
  }
  if (name == "filter" || name == "test") {
    CPPNN_RETURN_IF_ERROR(require_no_args());
    if (!value.is_string()) return false;
    return name == "filter" ? is_filter(value.as_string()) : is_test(value.as_string());
  }
  auto other = other_arg(name, args);
  if (!other.ok()) return other.error();
  if (name == "sameas") return same_object(value, *other);
  if (name == "eq" || name == "equalto" || name == "==") return python_equal(value, *other, state);
  if (name == "ne" || name == "!=") {
    auto equal = python_equal(value, *other, state);
    if (!equal.ok()) return equal.error();
    return !*equal;
  }
  if (name == "lt" || name == "lessthan" || name == "<") {
    return python_order(Ordering::kLess, value, *other, state);
  }
  if (name == "le" || name == "<=") return python_order(Ordering::kLessEqual, value, *other, state);
  if (name == "gt" || name == "greaterthan" || name == ">") {
    return python_order(Ordering::kGreater, value, *other, state);
  }
  if (name == "ge" || name == ">=") {
    return python_order(Ordering::kGreaterEqual, value, *other, state);
  }
  if (name == "in") return python_contains(*other, value, state);
  return template_error("no test named '", name, "'");
}

}  // namespace cppnn::llm::jinja
