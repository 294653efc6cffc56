// GPT-2's byte-to-unicode map (openai/gpt-2 encoder.py bytes_to_unicode, HF ByteLevel): every
// byte becomes a printable code point, so byte-level BPE vocabularies are written in text. Bytes
// '!'..'~', U+00A1..U+00AC and U+00AE..U+00FF map to themselves; the other 68 map, in byte
// order, to U+0100 upwards (space -> U+0120 'Ġ', newline -> U+010A 'Ċ').
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cppnn::llm {

// The code point byte `b` maps to.
char32_t byte_to_unicode(uint8_t b);
// The byte code point `cp` stands for, or nullopt when `cp` is not in the map's image.
std::optional<uint8_t> unicode_to_byte(char32_t cp);

// `bytes` with each byte mapped (UTF-8).
std::string byte_level_encode(std::string_view bytes);

// HF ByteLevel decoder on one token: its characters mapped back to bytes, or nullopt when one of
// them is not in the map (the caller then keeps the token's own UTF-8 bytes, as HF does).
std::optional<std::string> byte_level_decode(std::string_view token);

}  // namespace cppnn::llm
