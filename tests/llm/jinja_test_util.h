// What the chat-template interpreter's tests share: one context, rendering a template source in
// it, and tables of (template, expected text) cases. Expected texts are what jinja2 renders in
// transformers' environment for the same template and context.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "src/llm/jinja_template.h"

namespace cppnn::llm::jinja::test_util {

// messages = [system, user "Hi", assistant "Hello!", user "What is 2+2?"], bos_token = "<s>",
// add_generation_prompt = true, tools = none.
inline Context test_context() {
  const auto message = [](const char* role, const char* content) {
    Dict dict;
    dict.set(Value::string("role"), Value::string(role));
    dict.set(Value::string("content"), Value::string(content));
    return Value::dict(std::move(dict));
  };
  return {
      {"messages", Value::list({message("system", "You are helpful."), message("user", "Hi"),
                                message("assistant", "Hello!"), message("user", "What is 2+2?")})},
      {"bos_token", Value::string("<s>")},
      {"add_generation_prompt", Value::boolean(true)},
      {"tools", Value::none()}};
}

// 2024-07-26 12:00:00 UTC: the clock strftime_now reads in these tests.
inline constexpr int64_t kFixedNow = 1721995200;

// `source` parsed and rendered in test_context() at kFixedNow.
inline Result<std::string> render(const std::string& source) {
  auto compiled = Template::parse(source);
  if (!compiled.ok()) return compiled.error();
  RenderOptions options;
  options.now_unix_seconds = kFixedNow;
  return compiled->render(test_context(), options);
}

// The rendered text, or "ERROR: " and the message.
inline std::string text_of(const std::string& source) {
  auto text = render(source);
  return text.ok() ? *text : "ERROR: " + text.error().message;
}

// The error message, or "(rendered: TEXT)" when it rendered.
inline std::string error_of(const std::string& source) {
  auto text = render(source);
  return text.ok() ? "(rendered: " + *text + ")" : text.error().message;
}

// One template and the text it must render to.
struct Case {
  const char* source;
  const char* expected;
};

// Checks every case of a table, naming the template of a failing one.
inline void expect_cases(const Case* cases, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(text_of(cases[i].source), cases[i].expected) << cases[i].source;
  }
}

}  // namespace cppnn::llm::jinja::test_util
