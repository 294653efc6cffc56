// A compiled Jinja2 template for chat templates: parse once (lexer + parser), render many times
// with a context of values, inside the sandbox limits of jinja_state.h. This is the interpreter's
// entry point; chat_template.h builds the transformers-style context on top of it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_ast.h"
#include "src/llm/jinja_evaluator.h"
#include "src/llm/jinja_lexer.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// The largest template source accepted (real chat templates are a few KiB).
inline constexpr size_t kMaxTemplateBytes = size_t{1} << 20;

// Options of one render.
struct RenderOptions {
  RenderLimits limits;
  // The time strftime_now() formats (Unix seconds, shown in local time); the clock when absent.
  std::optional<int64_t> now_unix_seconds;
};

// A parsed template. Copies share the syntax tree.
class Template {
 public:
  // Parses `source` (valid UTF-8, at most kMaxTemplateBytes); a DataError "line L, column C: ..."
  // for a syntax error.
  static Result<Template> parse(std::string_view source, const LexerOptions& options = {});

  // Renders with `context`; a DataError "line L, column C: ..." for an error while rendering
  // (an undefined value used, a type error, raise_exception(), a sandbox limit).
  Result<std::string> render(const Context& context, const RenderOptions& options = {}) const;

 private:
  explicit Template(std::shared_ptr<const std::vector<Node>> nodes) : nodes_(std::move(nodes)) {}

  std::shared_ptr<const std::vector<Node>> nodes_;
};

}  // namespace cppnn::llm::jinja
