// Unicode canonical normalization forms NFD and NFC (UAX #15), for the tokenizer.json
// normalizers "NFD" and "NFC" (Qwen2 uses NFC). Canonical decomposition (recursive, Hangul
// syllables algorithmically, §3.12 of the standard), canonical ordering by combining class, and
// canonical composition of primary composites. Ill-formed UTF-8 bytes pass through unchanged and
// block composition, like any other starter that composes with nothing.
#pragma once

#include <string>
#include <string_view>

namespace cppnn::llm {

// `text` in Normalization Form D.
std::string to_nfd(std::string_view text);
// `text` in Normalization Form C.
std::string to_nfc(std::string_view text);

}  // namespace cppnn::llm
