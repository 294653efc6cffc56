// JINJA_TRY: unwraps a Result inside the chat-template parser and evaluator.
#pragma once

#include <utility>

#define JINJA_CONCAT_INNER(a, b) a##b
#define JINJA_CONCAT(a, b) JINJA_CONCAT_INNER(a, b)

// Declares (or assigns) `decl` from the value of the Result-returning `expr`, or returns the
// Result's error from the enclosing function.
#define JINJA_TRY(decl, expr)                                     \
  auto JINJA_CONCAT(jinja_try_, __LINE__) = (expr);               \
  if (!JINJA_CONCAT(jinja_try_, __LINE__).ok()) {                 \
    return std::move(JINJA_CONCAT(jinja_try_, __LINE__).error()); \
  }                                                               \
  decl = std::move(*JINJA_CONCAT(jinja_try_, __LINE__))
