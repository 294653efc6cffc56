// The chat-template parser: jinja2/parser.py's grammar over the lexer's tokens (statements for,
// if/elif/else, set (also block and namespace-attribute forms), macro, filter, with, print, raw,
// break/continue from jinja2.ext.loopcontrols, transformers' generation; Jinja's expression
// precedence: condition, or, and, not, comparisons and `in`, + -, ~, * / // %, **, unary - +,
// postfix . [] () with filters | and tests `is`). Nesting and expression size are bounded.
#pragma once

#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_ast.h"
#include "src/llm/jinja_lexer.h"

namespace cppnn::llm::jinja {

// The deepest nesting of statements and parenthesized/unary expressions the parser accepts.
inline constexpr uint32_t kMaxParseNesting = 128;
// The largest height of an expression tree (long operator and filter chains included).
inline constexpr uint32_t kMaxExprHeight = 256;

// The statements of a template. A DataError names the line and column of a syntax error, an
// unsupported tag, too deep nesting, or a filter or test name Jinja does not know (outside
// {% if %} and conditional expressions, where, as in Jinja, it is only an error when evaluated).
Result<std::vector<Node>> parse_template(const std::vector<Token>& tokens);

}  // namespace cppnn::llm::jinja
