// Python's operators on template values, as Jinja2 evaluates them: arithmetic (+ - * / // % **
// with str/list concatenation and repetition), ==, ordering, `in`. Using an undefined value in
// arithmetic or ordering raises its "'x' is undefined" error, as jinja2.Undefined does.
#pragma once

#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// The binary arithmetic operators.
enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };

// The ordering comparisons.
enum class Ordering : uint8_t { kLess, kLessEqual, kGreater, kGreaterEqual };

// a <op> b with Python's semantics (int overflow is an error: integers are 64-bit here).
Result<Value> binary_op(BinaryOp op, const Value& a, const Value& b, RenderState& state);

// -a and +a.
Result<Value> negate(const Value& a);
Result<Value> unary_plus(const Value& a);

// a == b (numbers across int/float/bool, containers element by element).
Result<bool> python_equal(const Value& a, const Value& b, RenderState& state);

// a < b, a <= b, a > b, a >= b (numbers, strings by code point, lists and tuples
// lexicographically; other pairs are a TypeError as in Python).
Result<bool> python_order(Ordering op, const Value& a, const Value& b, RenderState& state);

// item in container (substring, element, dict key; false for an undefined container).
Result<bool> python_contains(const Value& container, const Value& item, RenderState& state);

// The stable order of `keys` that Python's sorted(keys, reverse=reverse) gives, comparing with
// Python's `<` (an incomparable pair is Python's TypeError). With `keys_in_lists` each key is
// compared as the one-element list [key] (Jinja's sort filter does so): equal keys are never
// ordered with `<`.
Result<std::vector<size_t>> sorted_order(const std::vector<Value>& keys, RenderState& state,
                                         bool reverse = false, bool keys_in_lists = false);

// The operator's symbol for messages ("+", "//", ...).
const char* binary_op_symbol(BinaryOp op);
const char* ordering_symbol(Ordering op);

}  // namespace cppnn::llm::jinja
