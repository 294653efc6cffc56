// Chat templates (see chat_template.h).
#include "src/llm/chat_template.h"

#include "src/core/text_check.h"

namespace cppnn::llm {

namespace {

using jinja::Value;

ErrorInfo with_prefix(const ErrorInfo& error) {
  return ErrorInfo{error.kind, "chat template: " + error.message};
}

// The variables transformers passes itself; a caller's variable may not replace them.
constexpr std::string_view kReservedVariables[] = {"messages", "tools", "documents",
                                                   "add_generation_prompt"};

}  // namespace

Result<ChatTemplate> ChatTemplate::parse(std::string_view source) {
  auto compiled = jinja::Template::parse(source);
  if (!compiled.ok()) return with_prefix(compiled.error());
  return ChatTemplate(std::move(*compiled));
}

Result<std::string> ChatTemplate::render(
    const std::vector<ChatMessage>& messages, bool add_generation_prompt,
    const std::map<std::string, std::string>& variables) const {
  return render(messages, add_generation_prompt, variables, jinja::RenderOptions{});
}

Result<std::string> ChatTemplate::render(const std::vector<ChatMessage>& messages,
                                         bool add_generation_prompt,
                                         const std::map<std::string, std::string>& variables,
                                         const jinja::RenderOptions& options) const {
  std::vector<Value> list;
  list.reserve(messages.size());
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& message = messages[i];
    if (auto problem = utf8_problem(message.role)) {
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("chat template: the role of message ", i, " ", *problem)};
    }
    if (auto problem = utf8_problem(message.content)) {
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("chat template: the content of message ", i, " ", *problem)};
    }
    jinja::Dict dict;
    dict.set(Value::string("role"), Value::string(message.role));
    dict.set(Value::string("content"), Value::string(message.content));
    list.push_back(Value::dict(std::move(dict)));
  }
  // apply_chat_template's render(messages=..., tools=None, documents=None,
  // add_generation_prompt=..., **special_tokens_and_kwargs).
  jinja::Context context;
  context.emplace_back("messages", Value::list(std::move(list)));
  context.emplace_back("tools", Value::none());
  context.emplace_back("documents", Value::none());
  context.emplace_back("add_generation_prompt", Value::boolean(add_generation_prompt));
  for (const auto& [name, value] : variables) {
    for (std::string_view reserved : kReservedVariables) {
      if (name == reserved) {
        return ErrorInfo{ErrorKind::kTypeError, str_cat("chat template: the variable '", name,
                                                        "' is set by the renderer")};
      }
    }
    if (auto problem = utf8_problem(value)) {
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("chat template: the variable '", name, "' ", *problem)};
    }
    context.emplace_back(name, Value::string(value));
  }
  auto text = compiled_.render(context, options);
  if (!text.ok()) return with_prefix(text.error());
  return text;
}

std::string_view chatml_template() {
  return "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
         "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
         "{{ '<|im_start|>assistant\\n' }}{% endif %}";
}

}  // namespace cppnn::llm
