// A compiled template (see jinja_template.h).
#include "src/llm/jinja_template.h"

#include "src/core/text_check.h"
#include "src/llm/jinja_parser.h"

namespace cppnn::llm::jinja {

Result<Template> Template::parse(std::string_view source, const LexerOptions& options) {
  if (source.size() > kMaxTemplateBytes) {
    return template_error("the template is ", source.size(), " bytes, more than the limit of ",
                          kMaxTemplateBytes);
  }
  if (auto problem = utf8_problem(source)) return template_error("the template ", *problem);
  auto tokens = tokenize(source, options);
  if (!tokens.ok()) return tokens.error();
  auto nodes = parse_template(*tokens);
  if (!nodes.ok()) return nodes.error();
  return Template(std::make_shared<const std::vector<Node>>(std::move(*nodes)));
}

Result<std::string> Template::render(const Context& context, const RenderOptions& options) const {
  RenderState state(options.limits, options.now_unix_seconds);
  return render_nodes(*nodes_, context, state);
}

}  // namespace cppnn::llm::jinja
