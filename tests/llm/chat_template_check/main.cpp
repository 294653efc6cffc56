// cppnn_chat_template_check: renders a chat template over a list of conversations and prints the
// results as JSON, for the jinja2 oracle (tests/llm/test_chat_template_oracle.py).
//
//   cppnn_chat_template_check TEMPLATE_FILE CASES_JSON [--now UNIX_SECONDS]
//
// CASES_JSON is an array of {"messages": [{"role": ..., "content": ...}, ...],
// "add_generation_prompt": bool, "variables": {"bos_token": ..., ...}}. The output is an array
// with one {"text": ...} or {"error": ...} per case; a template that does not parse prints
// {"parse_error": ...}. --now fixes the time strftime_now() formats. Exit status 0 unless the
// arguments or files are unusable (2).
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/core/input_file.h"
#include "src/llm/chat_template.h"

namespace {

using cppnn::llm::ChatMessage;
using cppnn::llm::ChatTemplate;
using nlohmann::json;

int usage() {
  std::cerr << "usage: cppnn_chat_template_check TEMPLATE_FILE CASES_JSON [--now UNIX_SECONDS]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) return usage();
  cppnn::llm::jinja::RenderOptions options;
  if (argc == 5) {
    if (std::string(argv[3]) != "--now") return usage();
    try {
      options.now_unix_seconds = std::stoll(argv[4]);
    } catch (const std::exception&) {
      return usage();
    }
  }
  auto source = cppnn::read_input_file(argv[1]);
  auto cases_text = cppnn::read_input_file(argv[2]);
  if (!source.ok() || !cases_text.ok()) {
    std::cerr << (source.ok() ? cases_text.error().message : source.error().message) << "\n";
    return 2;
  }
  json cases;
  try {
    cases = json::parse(*cases_text);
  } catch (const json::exception& e) {
    std::cerr << argv[2] << ": " << e.what() << "\n";
    return 2;
  }
  auto compiled = ChatTemplate::parse(*source);
  if (!compiled.ok()) {
    std::cout << json{{"parse_error", compiled.error().message}}.dump() << "\n";
    return 0;
  }
  json results = json::array();
  try {
    for (const json& c : cases) {
      std::vector<ChatMessage> messages;
      for (const json& m : c.at("messages")) {
        messages.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>()});
      }
      std::map<std::string, std::string> variables;
      if (c.contains("variables")) {
        for (const auto& [name, value] : c.at("variables").items()) {
          variables[name] = value.get<std::string>();
        }
      }
      auto text =
          compiled->render(messages, c.value("add_generation_prompt", false), variables, options);
      results.push_back(text.ok() ? json{{"text", *text}} : json{{"error", text.error().message}});
    }
  } catch (const json::exception& e) {
    std::cerr << argv[2] << ": " << e.what() << "\n";
    return 2;
  }
  std::cout << results.dump() << "\n";
  return 0;
}
