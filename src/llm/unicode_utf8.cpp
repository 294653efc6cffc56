// UTF-8 per Unicode §3.9 Table 3-7 (well-formed byte sequences).
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

// The sequence length a lead byte announces (0: not a lead byte), and the range the second
// byte must be in (Table 3-7 narrows it after E0, ED, F0 and F4).
struct LeadInfo {
  uint8_t length;
  uint8_t second_lo;
  uint8_t second_hi;
};

LeadInfo lead_info(uint8_t b) {
  if (b < 0x80) return {1, 0, 0};
  if (b < 0xC2) return {0, 0, 0};
  if (b < 0xE0) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b < 0xF0) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b < 0xF4) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

Utf8Char decode_utf8(std::string_view text, size_t pos) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  const uint8_t b0 = s[pos];
  if (b0 < 0x80) return {b0, 1, true};
  const LeadInfo info = lead_info(b0);
  if (info.length == 0) return {0xFFFD, 1, false};
  char32_t cp = b0 & (0xFF >> (info.length + 1));
  for (uint8_t k = 1; k < info.length; ++k) {
    const uint8_t lo = k == 1 ? info.second_lo : 0x80;
    const uint8_t hi = k == 1 ? info.second_hi : 0xBF;
    if (pos + k >= n || s[pos + k] < lo || s[pos + k] > hi) return {0xFFFD, k, false};
    cp = (cp << 6) | (s[pos + k] & 0x3F);
  }
  return {cp, info.length, true};
}

bool is_valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const Utf8Char c = decode_utf8(text, i);
    if (!c.valid) return false;
    i += c.length;
  }
  return true;
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const Utf8Char c = decode_utf8(bytes, i);
    if (c.valid) {
      out.append(bytes.substr(i, c.length));
    } else {
      out.append(kReplacementUtf8);
    }
    i += c.length;
  }
  return out;
}

}  // namespace cppnn::llm
