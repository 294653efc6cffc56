#include "src/core/text_check.h"

#include <cstdint>
#include <cstdio>

namespace cppnn {
namespace {

// The length of the longest prefix of `text` made of whole, valid UTF-8 characters.
size_t valid_utf8_prefix(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > text.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return i;
    i += len;
  }
  return i;
}

// Whether `text` is plain ASCII without NUL (most names): no per-character decoding needed.
bool is_plain_ascii(std::string_view text) {
  unsigned char high = 0, zero = 0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    high |= c & 0x80;
    zero |= c == 0;
  }
  return !high && !zero;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  return valid_utf8_prefix(text) == text.size();
}

std::optional<std::string> name_problem(std::string_view name) {
  if (is_plain_ascii(name)) return std::nullopt;
  if (const size_t nul = name.find('\0'); nul != std::string_view::npos)
    return "contains a NUL byte at offset " + std::to_string(nul);
  return utf8_problem(name);
}

std::optional<std::string> utf8_problem(std::string_view name) {
  if (const size_t good = valid_utf8_prefix(name); good != name.size())
    return "is not valid UTF-8 (at byte " + std::to_string(good) + ")";
  return std::nullopt;
}

std::string quoted_for_message(std::string_view text, size_t max_chars) {
  std::string out = "'";
  size_t shown = 0;
  for (char ch : text) {
    if (shown++ == max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "'";
}

}  // namespace cppnn
