// libFuzzer target: the chat-template interpreter (src/llm/chat_template.h, src/llm/jinja_*). The
// input is a template: it must parse or fail with a located DataError, and a template that parses
// is rendered for a small conversation under tight sandbox limits, where it must either fail with
// a message or give valid UTF-8 within the output limit, the same text on a second render.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/text_check.h"
#include "src/llm/chat_template.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace cppnn;
using namespace cppnn::llm;

// Limits small enough for many runs a second, large enough to exercise loops and macros.
jinja::RenderOptions fuzz_options() {
  jinja::RenderOptions options;
  options.limits.max_output_bytes = 1 << 16;
  options.limits.max_work = 200'000;
  options.limits.max_loop_iterations = 10'000;
  options.limits.max_container_items = 10'000;
  options.now_unix_seconds = 1721995200;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 16)) return 0;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  auto parsed = ChatTemplate::parse(source);
  if (!parsed.ok()) {
    CHECK(parsed.error().kind == ErrorKind::kDataError);
    CHECK(parsed.error().message.rfind("chat template: ", 0) == 0);
    CHECK(parsed.error().message.size() > 15);
    return 0;
  }
  const std::vector<ChatMessage> messages = {{"system", "You are helpful."},
                                             {"user", "Hi {{ x }} \xC3\xA9 \xF0\x9F\x8C\x8D"},
                                             {"assistant", "Hello!"},
                                             {"user", "  What is 2+2?\n"}};
  const std::map<std::string, std::string> variables = {{"bos_token", "<s>"},
                                                        {"eos_token", "</s>"}};
  const jinja::RenderOptions options = fuzz_options();
  auto first = parsed->render(messages, true, variables, options);
  auto second = parsed->render(messages, true, variables, options);
  CHECK(first.ok() == second.ok());
  if (!first.ok()) {
    CHECK(first.error().message.rfind("chat template: ", 0) == 0);
    CHECK(first.error().message == second.error().message);
    return 0;
  }
  CHECK(*first == *second);
  CHECK(first->size() <= options.limits.max_output_bytes);
  CHECK(is_valid_utf8(*first));
  return 0;
}
