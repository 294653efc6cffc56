// The pre-tokenizer scanners (src/llm/tokenizer_regex.h) and steps
// (src/llm/tokenizer_pipeline.h) on tricky strings: contractions in any case, digit runs, white
// space before words, tabs and newlines, emoji, CJK, combining marks. The expected splits are
// what Hugging Face `tokenizers` (Oniguruma) gives for the same patterns.
#include "src/llm/tokenizer_regex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/llm/tokenizer_pipeline.h"

namespace cppnn::llm {
namespace {

using Pieces = std::vector<std::string>;

Pieces split(SplitRegex regex, const std::string& text) {
  std::vector<std::pair<size_t, size_t>> ranges;
  regex_split(regex, text, ranges);
  Pieces out;
  size_t expected_begin = 0;
  for (const auto& [b, e] : ranges) {
    EXPECT_EQ(b, expected_begin) << "the matches must cover the text";
    out.push_back(text.substr(b, e - b));
    expected_begin = e;
  }
  EXPECT_EQ(expected_begin, text.size());
  return out;
}

TEST(TokenizerRegex, Gpt2) {
  const auto r = SplitRegex::kGpt2;
  EXPECT_EQ(split(r, "Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(split(r, "it's I'LL they'Re"),
            (Pieces{"it", "'s", " I", "'", "LL", " they", "'", "Re"}));
  EXPECT_EQ(split(r, "  leading"), (Pieces{" ", " leading"}));
  EXPECT_EQ(split(r, "a \tb"), (Pieces{"a", " ", "\t", "b"}));
  EXPECT_EQ(split(r, "x\n\n  y"), (Pieces{"x", "\n\n ", " y"}));
  EXPECT_EQ(split(r, "12345 abc"), (Pieces{"12345", " abc"}));
  EXPECT_EQ(split(r, "trailing  "), (Pieces{"trailing", "  "}));
  EXPECT_EQ(split(r, "\t\tfoo"), (Pieces{"\t", "\t", "foo"}));
  EXPECT_EQ(split(r, "(foo) $bar"), (Pieces{"(", "foo", ")", " $", "bar"}));
  EXPECT_EQ(split(r, "a\r\nb"), (Pieces{"a", "\r", "\n", "b"}));
  EXPECT_EQ(split(r, " \u00BFqu\u00E9?\n"), (Pieces{" \u00BF", "qu\u00E9", "?", "\n"}));
  EXPECT_EQ(split(r, "\u65E5\u672C\u8A9E\u306E"), (Pieces{"\u65E5\u672C\u8A9E\u306E"}));
  // A combining mark is neither a letter nor white space.
  EXPECT_EQ(split(r, "e\u0301t\u00E9"), (Pieces{"e", "\u0301", "t\u00E9"}));
  EXPECT_EQ(split(r, "\U0001F600\U0001F44D\U0001F3FD!"),
            (Pieces{"\U0001F600\U0001F44D\U0001F3FD!"}));
  EXPECT_EQ(split(r, "x  'll"), (Pieces{"x", " ", " '", "ll"}));
  EXPECT_EQ(split(r, "'x"), (Pieces{"'", "x"}));
  EXPECT_EQ(split(r, "'sup"), (Pieces{"'s", "up"}));
  EXPECT_EQ(split(r, ""), Pieces{});
  // An ill-formed byte is a character of its own class.
  EXPECT_EQ(split(r, "ab\xFF\xFE cd"), (Pieces{"ab", "\xFF\xFE", " cd"}));
}

TEST(TokenizerRegex, Llama3) {
  const auto r = SplitRegex::kLlama3;
  EXPECT_EQ(split(r, "it's I'LL they'Re"), (Pieces{"it", "'s", " I", "'LL", " they", "'Re"}));
  // (?i:'s) also matches U+017F LONG S, which case-folds to s.
  EXPECT_EQ(split(r, "'\u017Ft"), (Pieces{"'\u017F", "t"}));
  EXPECT_EQ(split(r, "'rE'"), (Pieces{"'rE", "'"}));
  EXPECT_EQ(split(r, "'Kx"), (Pieces{"'Kx"}));
  EXPECT_EQ(split(r, "a \tb"), (Pieces{"a", " ", "\tb"}));
  EXPECT_EQ(split(r, "x\n\n  y"), (Pieces{"x", "\n\n", " ", " y"}));
  EXPECT_EQ(split(r, "12345 abc"), (Pieces{"123", "45", " abc"}));
  EXPECT_EQ(split(r, "1234567"), (Pieces{"123", "456", "7"}));
  EXPECT_EQ(split(r, "\t\tfoo"), (Pieces{"\t", "\tfoo"}));
  EXPECT_EQ(split(r, "(foo) $bar"), (Pieces{"(foo", ")", " $", "bar"}));
  EXPECT_EQ(split(r, "a\r\nb"), (Pieces{"a", "\r\n", "b"}));
  EXPECT_EQ(split(r, " \u00BFqu\u00E9?\n"), (Pieces{" \u00BF", "qu\u00E9", "?\n"}));
  EXPECT_EQ(split(r, "e\u0301t\u00E9"), (Pieces{"e", "\u0301t\u00E9"}));
  EXPECT_EQ(split(r, "'x"), (Pieces{"'x"}));
  EXPECT_EQ(split(r, "a  \n \n  b"), (Pieces{"a", "  \n \n", " ", " b"}));
  EXPECT_EQ(split(r, "end \n"), (Pieces{"end", " \n"}));
}

TEST(TokenizerRegex, Qwen2SplitsEveryDigit) {
  const auto r = SplitRegex::kQwen2;
  EXPECT_EQ(split(r, "12345 abc"), (Pieces{"1", "2", "3", "4", "5", " abc"}));
  EXPECT_EQ(split(r, "x\u00B2\u00BD"), (Pieces{"x", "\u00B2", "\u00BD"}));
  EXPECT_EQ(split(r, "it'S"), (Pieces{"it", "'S"}));
}

TEST(TokenizerRegex, KnownPatterns) {
  for (SplitRegex r : {SplitRegex::kGpt2, SplitRegex::kLlama3, SplitRegex::kQwen2}) {
    const std::string_view p = split_regex_pattern(r);
    EXPECT_EQ(known_split_regex(p), r);
    // Without the last `|\s+`, the same split.
    EXPECT_EQ(known_split_regex(p.substr(0, p.size() - 4)), r);
  }
  EXPECT_EQ(known_split_regex(R"(\p{N}+)"), std::nullopt);
  EXPECT_EQ(known_split_regex(""), std::nullopt);
}

std::vector<std::string> pre_tokens(const std::vector<detail::PreTokenizerStep>& steps,
                                    const std::string& text, bool at_start = true) {
  std::vector<detail::Piece> pieces;
  detail::pre_tokenize(steps, {text, at_start}, pieces);
  std::vector<std::string> out;
  for (const auto& p : pieces) out.push_back(p.text);
  return out;
}

TEST(TokenizerPreTokenize, DigitsThenByteLevel) {
  detail::PreTokenizerStep digits{.kind = detail::PreTokenizerStep::Kind::kDigits};
  digits.individual_digits = true;
  detail::PreTokenizerStep byte_level{.kind = detail::PreTokenizerStep::Kind::kByteLevel};
  byte_level.add_prefix_space = false;
  // SmolLM: each digit alone, then GPT-2's split and the byte map (space -> Ġ).
  EXPECT_EQ(pre_tokens({digits, byte_level}, "ab 123x"),
            (Pieces{"ab", "\u0120", "1", "2", "3", "x"}));
  digits.individual_digits = false;
  EXPECT_EQ(pre_tokens({digits}, "ab 123x\u0663\u0664"),
            (Pieces{"ab ", "123", "x", "\u0663\u0664"}));
  byte_level.add_prefix_space = true;
  EXPECT_EQ(pre_tokens({byte_level}, "hi"), (Pieces{"\u0120hi"}));
  EXPECT_EQ(pre_tokens({byte_level}, " hi"), (Pieces{"\u0120hi"}));
}

TEST(TokenizerPreTokenize, Metaspace) {
  detail::PreTokenizerStep m{.kind = detail::PreTokenizerStep::Kind::kMetaspace};
  m.replacement = "\u2581";
  m.prepend_scheme = detail::PrependScheme::kAlways;
  m.split = true;
  EXPECT_EQ(pre_tokens({m}, "Hey  friend"), (Pieces{"\u2581Hey", "\u2581", "\u2581friend"}));
  m.split = false;
  m.prepend_scheme = detail::PrependScheme::kFirst;
  EXPECT_EQ(pre_tokens({m}, "a b", true), (Pieces{"\u2581a\u2581b"}));
  EXPECT_EQ(pre_tokens({m}, "a b", false), (Pieces{"a\u2581b"}));
  m.prepend_scheme = detail::PrependScheme::kNever;
  EXPECT_EQ(pre_tokens({m}, "a b"), (Pieces{"a\u2581b"}));
}

TEST(TokenizerNormalizeSteps, PrependReplaceNfc) {
  using K = detail::NormalizerStep::Kind;
  const std::vector<detail::NormalizerStep> llama = {{K::kPrepend, "\u2581", ""},
                                                     {K::kReplace, " ", "\u2581"}};
  EXPECT_EQ(detail::normalize(llama, "Hello world"), "\u2581Hello\u2581world");
  EXPECT_EQ(detail::normalize(llama, ""), "");  // Prepend skips empty text
  EXPECT_EQ(detail::normalize({{K::kNfc, "", ""}}, "cafe\u0301"), "caf\u00E9");
  EXPECT_EQ(detail::normalize({{K::kReplace, "aa", "b"}}, "aaaaa"), "bba");
}

}  // namespace
}  // namespace cppnn::llm
