// UTF-8 decoding and encoding for the tokenizer. Text is handled as bytes: an ill-formed
// sequence is never an error here, it decodes to U+FFFD over its "maximal subpart" (Unicode
// §3.9 U+FFFD substitution, which is also what Rust's String::from_utf8_lossy and so Hugging Face
// `tokenizers` produce when they decode bytes), and its bytes stay available to the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/core/utf8.h"

namespace cppnn::llm {

// U+FFFD REPLACEMENT CHARACTER, in UTF-8.
inline constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// One decoded character: its code point and length in bytes. An ill-formed sequence gives
// U+FFFD, `valid` false, and the length of its maximal subpart (at least 1).
struct Utf8Char {
  char32_t cp = 0;
  uint8_t length = 1;
  bool valid = true;
};

// The character at byte `pos` of `text` (pos < text.size()).
Utf8Char decode_utf8(std::string_view text, size_t pos);

// Appends `cp` (at most U+10FFFF, not a surrogate) as UTF-8.
using core::append_utf8;

// True when `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

// `bytes` as well-formed UTF-8: every ill-formed maximal subpart becomes U+FFFD.
std::string utf8_lossy(std::string_view bytes);

}  // namespace cppnn::llm
