// The chat-template evaluator: renders a parsed template (jinja_ast.h) against a context of
// variables with Jinja2's semantics: scopes (a {% for %} iteration, macro call, {% with %} or
// block body is a new scope; {% if %} is not; `set` assigns in the innermost scope, so only a
// namespace() carries values out of a loop), the `loop` variable, macros with defaults, varargs
// and kwargs, break/continue, and Jinja's default Undefined. Every step is counted against the
// render's limits (jinja_state.h), and errors name the line and column of the failing node.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_ast.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// A variable scope: its own variables, then its parent's.
struct Scope {
  Scope* parent = nullptr;
  std::vector<std::pair<std::string, Value>> variables;

  // The value of `name` in this scope or an enclosing one, or nullptr.
  const Value* lookup(std::string_view name) const;
  // Assigns `name` in this scope.
  void set(std::string_view name, Value value);
};

// The variables a template is rendered with (Jinja's render(**context)).
using Context = std::vector<std::pair<std::string, Value>>;

// Renders `nodes` with `context`; the text, or the first error ("line 3, column 7: ...").
Result<std::string> render_nodes(const std::vector<Node>& nodes, const Context& context,
                                 RenderState& state);

}  // namespace cppnn::llm::jinja
