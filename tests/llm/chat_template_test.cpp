// Chat templates (src/llm/chat_template.h): SmolLM2-135M-Instruct's template (as stored in its
// GGUF file) rendered for 1, 2 and 3 turns with and without a system message, the ChatML
// fallback, the variables transformers passes, and the errors a caller sees.
#include "src/llm/chat_template.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cppnn::llm {
namespace {

// SmolLM2-135M-Instruct's `tokenizer.chat_template`, byte for byte.
constexpr const char* kSmolLM2Template =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ "
    "'<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|im_start|>assistant\n' }}{% endif %}";

constexpr const char* kSmolSystem =
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n";

std::string render(const std::string& source, const std::vector<ChatMessage>& messages,
                   bool add_generation_prompt,
                   const std::map<std::string, std::string>& variables = {}) {
  auto compiled = ChatTemplate::parse(source);
  if (!compiled.ok()) return "PARSE ERROR: " + compiled.error().message;
  auto text = compiled->render(messages, add_generation_prompt, variables);
  return text.ok() ? *text : "ERROR: " + text.error().message;
}

TEST(ChatTemplate, SmolLM2OneTurn) {
  EXPECT_EQ(
      render(kSmolLM2Template, {{"user", "Hello"}}, true),
      std::string(kSmolSystem) + "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(render(kSmolLM2Template, {{"user", "Hello"}}, false),
            std::string(kSmolSystem) + "<|im_start|>user\nHello<|im_end|>\n");
  EXPECT_EQ(render(kSmolLM2Template, {{"system", "Be terse."}, {"user", "Hello"}}, true),
            "<|im_start|>system\nBe terse.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatTemplate, SmolLM2TwoTurns) {
  const std::vector<ChatMessage> chat = {{"user", "What is 2+2?"}, {"assistant", "4."}};
  EXPECT_EQ(render(kSmolLM2Template, chat, false),
            std::string(kSmolSystem) +
                "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n4.<|im_end|>\n");
  std::vector<ChatMessage> with_system = {{"system", "Math tutor."}};
  with_system.insert(with_system.end(), chat.begin(), chat.end());
  EXPECT_EQ(render(kSmolLM2Template, with_system, true),
            "<|im_start|>system\nMath tutor.<|im_end|>\n<|im_start|>user\nWhat is "
            "2+2?<|im_end|>\n<|im_start|>assistant\n4.<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplate, SmolLM2ThreeTurns) {
  const std::vector<ChatMessage> chat = {
      {"user", "Hi"}, {"assistant", "Hello! How can I help?"}, {"user", "Tell me a joke."}};
  EXPECT_EQ(render(kSmolLM2Template, chat, true),
            std::string(kSmolSystem) +
                "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello! How can I "
                "help?<|im_end|>\n<|im_start|>user\nTell me a joke.<|im_end|>\n"
                "<|im_start|>assistant\n");
  std::vector<ChatMessage> with_system = {{"system", "You are funny."}};
  with_system.insert(with_system.end(), chat.begin(), chat.end());
  EXPECT_EQ(render(kSmolLM2Template, with_system, false),
            "<|im_start|>system\nYou are funny.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\nHello! How can I help?<|im_end|>\n<|im_start|>user\nTell me "
            "a joke.<|im_end|>\n");
}

TEST(ChatTemplate, ContentIsNeverInterpreted) {
  // Text that looks like Jinja, quotes, backslashes and unicode stay as written.
  const std::string content = "{{ x }} {% if y %}z{% endif %} {# c #} \"q\" \\n 世界 🌍";
  EXPECT_EQ(render(kSmolLM2Template, {{"system", "s"}, {"user", content}}, false),
            "<|im_start|>system\ns<|im_end|>\n<|im_start|>user\n" + content + "<|im_end|>\n");
}

TEST(ChatTemplate, ChatMLFallback) {
  EXPECT_EQ(render(std::string(chatml_template()), {{"user", "Hi"}, {"assistant", "Yo"}}, true),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nYo<|im_end|>\n"
            "<|im_start|>assistant\n");
  EXPECT_EQ(render(std::string(chatml_template()), {{"system", "S"}}, false),
            "<|im_start|>system\nS<|im_end|>\n");
}

TEST(ChatTemplate, VariablesAndTheContextTransformersPasses) {
  // Llama-2's template: bos/eos tokens from the variables, and raise_exception on a bad order.
  const std::string llama2 =
      "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set "
      "system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% "
      "set system_message = false %}{% endif %}{% for message in loop_messages %}{% if "
      "(message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation "
      "roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == "
      "0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + "
      "'\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] "
      "%}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() "
      "+ ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + "
      "eos_token }}{% endif %}{% endfor %}";
  const std::map<std::string, std::string> tokens = {{"bos_token", "<s>"}, {"eos_token", "</s>"}};
  EXPECT_EQ(render(llama2, {{"system", "Be kind."}, {"user", " Hi "}, {"assistant", "Hello"}},
                   false, tokens),
            "<s>[INST] <<SYS>>\nBe kind.\n<</SYS>>\n\n Hi [/INST] Hello </s>");
  EXPECT_EQ(render(llama2, {{"assistant", "first"}}, true, tokens),
            "ERROR: chat template: line 1, column 329: the template raised an error: "
            "Conversation roles must alternate user/assistant/user/assistant/...");
  // tools and documents are None, add_generation_prompt a bool, as transformers passes them.
  EXPECT_EQ(render("{{ tools is none }} {{ documents is none }} {{ add_generation_prompt }} "
                   "{{ tools is defined }}",
                   {}, true),
            "True True True True");
  EXPECT_EQ(render("{{ messages }}", {{"user", "a'b"}}, false),
            "[{'role': 'user', 'content': \"a'b\"}]");
}

TEST(ChatTemplate, Errors) {
  EXPECT_EQ(render("{% for m in messages %}", {}, false),
            "PARSE ERROR: chat template: line 1, column 24: unexpected end of template: Jinja was "
            "looking for the following tags: 'endfor' or 'else'. The innermost block that needs "
            "to be closed is 'for'");
  EXPECT_EQ(render("{{ messages[0].content.nope.x }}", {{"user", "hi"}}, false),
            "ERROR: chat template: line 1, column 28: 'str object' has no attribute 'nope'");
  EXPECT_EQ(render("{{ x }}", {{"user", "bad \xc3"}}, false),
            "ERROR: chat template: the content of message 0 is not valid UTF-8 (at byte 4)");
  EXPECT_EQ(render("{{ x }}", {}, false, {{"messages", "x"}}),
            "ERROR: chat template: the variable 'messages' is set by the renderer");
  auto parsed = ChatTemplate::parse("{{");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kDataError);
}

}  // namespace
}  // namespace cppnn::llm
