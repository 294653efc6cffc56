// Unicode character properties for the tokenizer's pre-tokenizers and added-token rules, looked
// up in the generated tables of src/llm/unicode_tables.h (Unicode Character Database of Debian's
// unicode-data). The classes are the ones the regex engines behind Hugging Face `tokenizers`
// define: Oniguruma's \p{L}, \p{N}, \s (the pre-tokenizer patterns) and the Rust regex crate's \w
// and \s (AddedToken single_word / lstrip / rstrip).
#pragma once

#include <cstdint>

#include "src/llm/unicode_tables.h"

namespace cppnn::llm {

// The General_Category of `cp` (kCn for unassigned code points and values above U+10FFFF).
GeneralCategory general_category(char32_t cp);

// \p{L}: Lu, Ll, Lt, Lm or Lo.
bool is_letter(char32_t cp);
// \p{N}: Nd, Nl or No (also Rust's char::is_numeric, used by the Digits pre-tokenizer).
bool is_number(char32_t cp);
// \p{M}: Mn, Mc or Me.
bool is_mark(char32_t cp);
// \s: the White_Space property (U+0009..U+000D, U+0020, U+0085, U+00A0, Zs, U+2028, U+2029).
bool is_white_space(char32_t cp);
// The regex crate's Unicode \w (UTS #18 Annex C): Alphabetic, \p{M}, Nd, Pc or Join_Control.
bool is_word_char(char32_t cp);

// The Canonical_Combining_Class of `cp` (0 for starters).
uint8_t combining_class(char32_t cp);

}  // namespace cppnn::llm
