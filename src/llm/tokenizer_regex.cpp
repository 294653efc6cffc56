// The scanners. Each match function takes the position of the first character not yet matched
// and returns the end of the match there, trying the regex's alternatives in order exactly as a
// backtracking engine does; each runs in time linear in the length of its match plus the run of
// white space it looks at, so a whole text is scanned in linear time.
#include "src/llm/tokenizer_regex.h"

#include <array>

#include "src/llm/unicode.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

// The classes the patterns test, per character.
enum CharClass : uint8_t { kLetter, kNumber, kSpace, kOther };

struct Chars {
  std::vector<char32_t> cp;
  std::vector<uint8_t> cls;
  std::vector<size_t> offset;  // byte offset of each character, plus the text's size at the end
  size_t size() const { return cp.size(); }
};

Chars decode_chars(std::string_view text) {
  Chars c;
  c.cp.reserve(text.size());
  c.cls.reserve(text.size());
  c.offset.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size();) {
    const Utf8Char u = decode_utf8(text, i);
    const char32_t cp = u.valid ? u.cp : 0xFFFFFFFF;  // matches no class test below
    uint8_t cls = kOther;
    if (u.valid) {
      if (is_letter(cp)) {
        cls = kLetter;
      } else if (is_number(cp)) {
        cls = kNumber;
      } else if (is_white_space(cp)) {
        cls = kSpace;
      }
    }
    c.cp.push_back(cp);
    c.cls.push_back(cls);
    c.offset.push_back(i);
    i += u.length;
  }
  c.offset.push_back(text.size());
  return c;
}

bool is_cr_or_lf(char32_t cp) {
  return cp == '\r' || cp == '\n';
}

// The ASCII lowercase of `cp` under simple case folding, for the few letters of the
// contractions: A-Z, and U+017F LATIN SMALL LETTER LONG S, which folds to 's'
// (CaseFolding.txt "017F; C; 0073").
char32_t fold_contraction_letter(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + ('a' - 'A');
  if (cp == 0x17F) return 's';
  return cp;
}

// 's|'t|'re|'ve|'m|'ll|'d at i (case-insensitively when `fold`): the end, or 0.
size_t match_contraction(const Chars& c, size_t i, bool fold) {
  const size_t n = c.size();
  if (c.cp[i] != '\'' || i + 1 >= n) return 0;
  auto letter = [&](size_t k) { return fold ? fold_contraction_letter(c.cp[k]) : c.cp[k]; };
  const char32_t a = letter(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
  if (i + 2 >= n) return 0;
  const char32_t b = letter(i + 2);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
  return 0;
}

// The end of the run of class `cls` that starts at i.
size_t run_end(const Chars& c, size_t i, uint8_t cls) {
  while (i < c.size() && c.cls[i] == cls) ++i;
  return i;
}

// ` ?X+` at i for class X = `cls`: the end, or 0.
size_t match_space_then_run(const Chars& c, size_t i, uint8_t cls) {
  if (c.cls[i] == cls) return run_end(c, i, cls);
  if (c.cp[i] == ' ' && i + 1 < c.size() && c.cls[i + 1] == cls) return run_end(c, i + 1, cls);
  return 0;
}

// `\s+(?!\S)|\s+` at i (a white-space character): the whole run when it ends the text, else
// the run but its last character (which the next match then starts with), else the one character.
size_t match_space_run(const Chars& c, size_t i) {
  const size_t j = run_end(c, i, kSpace);
  if (j == c.size()) return j;
  if (j - i >= 2) return j - 1;
  return j;
}

size_t match_gpt2(const Chars& c, size_t i) {
  if (size_t e = match_contraction(c, i, false)) return e;
  if (size_t e = match_space_then_run(c, i, kLetter)) return e;
  if (size_t e = match_space_then_run(c, i, kNumber)) return e;
  if (size_t e = match_space_then_run(c, i, kOther)) return e;
  return match_space_run(c, i);  // c.cls[i] is kSpace here
}

// The Llama 3 / Qwen2 pattern; `max_digits` 3 for \p{N}{1,3}, 1 for \p{N}.
size_t match_llama3(const Chars& c, size_t i, size_t max_digits) {
  const size_t n = c.size();
  if (size_t e = match_contraction(c, i, true)) return e;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (c.cls[i] == kLetter) return run_end(c, i, kLetter);
  if (c.cls[i] != kNumber && !is_cr_or_lf(c.cp[i]) && i + 1 < n && c.cls[i + 1] == kLetter)
    return run_end(c, i + 1, kLetter);
  // \p{N}{1,max_digits}
  if (c.cls[i] == kNumber) {
    size_t j = i;
    while (j < n && j - i < max_digits && c.cls[j] == kNumber) ++j;
    return j;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  if (size_t e = match_space_then_run(c, i, kOther)) {
    while (e < n && is_cr_or_lf(c.cp[e])) ++e;
    return e;
  }
  // \s*[\r\n]+ : the white-space run up to its last CR or LF.
  const size_t j = run_end(c, i, kSpace);
  for (size_t k = j; k > i; --k) {
    if (is_cr_or_lf(c.cp[k - 1])) return k;
  }
  return match_space_run(c, i);
}

constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Without their last alternative `|\s+` the patterns split the same way: the one white-space
// character it would match is a gap between matches, which HF's Split (Isolated) keeps as a
// piece of its own as well.
constexpr std::string_view kTrailingSpaceAlternative = R"(|\s+)";

}  // namespace

void regex_split(SplitRegex regex, std::string_view text,
                 std::vector<std::pair<size_t, size_t>>& out) {
  const Chars c = decode_chars(text);
  for (size_t i = 0; i < c.size();) {
    size_t e = 0;
    switch (regex) {
      case SplitRegex::kGpt2:
        e = match_gpt2(c, i);
        break;
      case SplitRegex::kLlama3:
        e = match_llama3(c, i, 3);
        break;
      case SplitRegex::kQwen2:
        e = match_llama3(c, i, 1);
        break;
    }
    if (e <= i) e = i + 1;  // unreachable: every character is in some alternative
    out.emplace_back(c.offset[i], c.offset[e]);
    i = e;
  }
}

std::optional<SplitRegex> known_split_regex(std::string_view pattern) {
  static const std::array<std::pair<std::string_view, SplitRegex>, 3> kKnown = {{
      {kGpt2Pattern, SplitRegex::kGpt2},
      {kLlama3Pattern, SplitRegex::kLlama3},
      {kQwen2Pattern, SplitRegex::kQwen2},
  }};
  for (const auto& [text, regex] : kKnown) {
    if (pattern == text) return regex;
    const std::string_view shorter = text.substr(0, text.size() - kTrailingSpaceAlternative.size());
    if (pattern == shorter) return regex;
  }
  return std::nullopt;
}

std::string_view split_regex_pattern(SplitRegex regex) {
  switch (regex) {
    case SplitRegex::kGpt2:
      return kGpt2Pattern;
    case SplitRegex::kLlama3:
      return kLlama3Pattern;
    case SplitRegex::kQwen2:
      return kQwen2Pattern;
  }
  return {};
}

}  // namespace cppnn::llm
