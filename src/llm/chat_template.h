// Chat templates: a language model's Jinja2 template (GGUF `tokenizer.chat_template`, Hugging
// Face tokenizer_config.json `chat_template`) applied to a conversation exactly as Hugging Face
// transformers' apply_chat_template renders it: Jinja's ImmutableSandboxedEnvironment with
// trim_blocks and lstrip_blocks, the loopcontrols extension and the {% generation %} tag,
// transformers' tojson, raise_exception and strftime_now, and the context messages, tools=None,
// documents=None, add_generation_prompt plus the tokenizer's special tokens (bos_token, ...).
// The template is untrusted: it runs in a bounded interpreter (src/llm/jinja_template.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_template.h"

namespace cppnn::llm {

// One message of a conversation: its role ("system", "user", "assistant", ...) and text.
struct ChatMessage {
  std::string role;
  std::string content;
};

// A compiled chat template.
class ChatTemplate {
 public:
  // Parses a template; a DataError "chat template: line L, column C: ..." for a syntax error.
  static Result<ChatTemplate> parse(std::string_view source);

  // The prompt text for `messages`: `add_generation_prompt` asks the template to open the
  // assistant's turn; `variables` are extra string variables (bos_token, eos_token, ...). A
  // DataError "chat template: line L, column C: ..." when rendering fails, e.g. "the template
  // raised an error: Conversation roles must alternate user/assistant/user/assistant/...".
  Result<std::string> render(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                             const std::map<std::string, std::string>& variables) const;

  // render() with explicit limits and a fixed time for strftime_now().
  Result<std::string> render(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                             const std::map<std::string, std::string>& variables,
                             const jinja::RenderOptions& options) const;

 private:
  explicit ChatTemplate(jinja::Template compiled) : compiled_(std::move(compiled)) {}

  jinja::Template compiled_;
};

// The standard ChatML template (<|im_start|>role\ncontent<|im_end|>\n per message, then
// <|im_start|>assistant\n when a generation prompt is asked), for models that ship none.
std::string_view chatml_template();

}  // namespace cppnn::llm
