// The pre-tokenizer regexes of real models, as hand-written scanners over code points (no regex
// engine): each returns the same matches as Oniguruma (which HF `tokenizers` runs) does for
//   kGpt2   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   kLlama3 (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//           ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   kQwen2  as kLlama3 with \p{N} for \p{N}{1,3}
// with leftmost-first alternation and greedy, backtracking quantifiers. Every character is in
// some match, so the matches cover the text. An ill-formed UTF-8 byte counts as a character that
// is none of \p{L}, \p{N}, \s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace cppnn::llm {

// The pre-tokenizer regexes implemented as scanners.
enum class SplitRegex : uint8_t { kGpt2, kLlama3, kQwen2 };

// Appends the byte ranges [begin, end) of the successive matches of `regex` in `text`.
void regex_split(SplitRegex regex, std::string_view text,
                 std::vector<std::pair<size_t, size_t>>& out);

// The scanner for a tokenizer.json Split pattern (its "Regex" string), or nullopt when the
// pattern is none of the known ones.
std::optional<SplitRegex> known_split_regex(std::string_view pattern);

// The pattern text of `regex` (for messages and tests).
std::string_view split_regex_pattern(SplitRegex regex);

}  // namespace cppnn::llm
