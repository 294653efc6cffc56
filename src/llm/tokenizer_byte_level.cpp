// The byte <-> code point tables, built once.
#include "src/llm/tokenizer_byte_level.h"

#include <array>

#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

bool maps_to_itself(uint32_t b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct ByteMaps {
  std::array<char32_t, 256> to_unicode{};
  std::array<std::string, 256> utf8{};  // to_unicode as UTF-8
  std::array<int16_t, 512> to_byte{};   // by code point (all below U+0200), -1: none
};

const ByteMaps& maps() {
  static const ByteMaps kMaps = [] {
    ByteMaps m;
    m.to_byte.fill(-1);
    char32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const char32_t cp = maps_to_itself(b) ? b : next++;
      m.to_unicode[b] = cp;
      append_utf8(m.utf8[b], cp);
      m.to_byte[cp] = static_cast<int16_t>(b);
    }
    return m;
  }();
  return kMaps;
}

}  // namespace

char32_t byte_to_unicode(uint8_t b) {
  return maps().to_unicode[b];
}

std::optional<uint8_t> unicode_to_byte(char32_t cp) {
  if (cp >= maps().to_byte.size() || maps().to_byte[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(maps().to_byte[cp]);
}

std::string byte_level_encode(std::string_view bytes) {
  const ByteMaps& m = maps();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) out += m.utf8[static_cast<uint8_t>(c)];
  return out;
}

std::optional<std::string> byte_level_decode(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    const Utf8Char c = decode_utf8(token, i);
    const std::optional<uint8_t> b = c.valid ? unicode_to_byte(c.cp) : std::nullopt;
    if (!b) return std::nullopt;
    out += static_cast<char>(*b);
    i += c.length;
  }
  return out;
}

}  // namespace cppnn::llm
