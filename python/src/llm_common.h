// What the text-generation bindings (llm.cpp, llm_generator.cpp) share: text out as str and
// conversations in as lists of {"role", "content"} dicts.
#pragma once

#include <nanobind/nanobind.h>

#include <string_view>
#include <vector>

#include "cppnn/llm.h"

namespace cppnn::py {

// `text` (UTF-8) as a Python str; a byte sequence that is not UTF-8 becomes U+FFFD.
nanobind::str utf8_str(std::string_view text);
// A conversation given as a sequence of mappings with "role" and "content" strings, as
// transformers' apply_chat_template takes it; TypeError naming `what` otherwise.
std::vector<ChatMessage> chat_messages(nanobind::handle messages, std::string_view what);

}  // namespace cppnn::py
