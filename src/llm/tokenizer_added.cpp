// HF AddedVocabulary::find_matches over a byte trie.
#include "src/llm/tokenizer_added.h"

#include <algorithm>

#include "src/llm/unicode.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm::detail {
namespace {

// The byte where the character that ends at byte `end` (> 0) of `text` begins.
size_t previous_char_start(std::string_view text, size_t end) {
  size_t begin = end - 1;
  while (begin > 0 && end - begin < 4 && (static_cast<uint8_t>(text[begin]) & 0xC0) == 0x80)
    --begin;
  const Utf8Char c = decode_utf8(text, begin);
  return begin + c.length == end ? begin : end - 1;  // an ill-formed byte stands alone
}

// The code point that ends at byte `end` (> 0) of `text` (U+FFFD for an ill-formed byte).
char32_t code_point_before(std::string_view text, size_t end) {
  return decode_utf8(text, previous_char_start(text, end)).cp;
}

// The regex crate's `\w$` on text[0, end): the last character is a word character.
bool ends_with_word(std::string_view text, size_t end) {
  return end > 0 && is_word_char(code_point_before(text, end));
}

// `^\w` on text[begin, ...).
bool starts_with_word(std::string_view text, size_t begin) {
  return begin < text.size() && is_word_char(decode_utf8(text, begin).cp);
}

// The start of the run of \s characters that ends at `end` (`\s*$` on text[0, end)).
size_t white_space_run_start(std::string_view text, size_t end) {
  while (end > 0 && is_white_space(code_point_before(text, end)))
    end = previous_char_start(text, end);
  return end;
}

// The end of the run of \s characters that starts at `begin` (`^\s*` on text[begin, ...)).
size_t white_space_run_end(std::string_view text, size_t begin) {
  while (begin < text.size()) {
    const Utf8Char c = decode_utf8(text, begin);
    if (!c.valid || !is_white_space(c.cp)) break;
    begin += c.length;
  }
  return begin;
}

}  // namespace

void AddedTokenMatcher::add(std::string_view pattern, size_t token_index) {
  if (pattern.empty()) return;
  if (node_token_.empty()) node_token_.push_back(kNoToken);
  uint32_t node = 0;
  for (char ch : pattern) {
    const uint64_t key = (uint64_t{node} << 8) | static_cast<uint8_t>(ch);
    auto it = edges_.find(key);
    if (it == edges_.end()) {
      const auto child = static_cast<uint32_t>(node_token_.size());
      node_token_.push_back(kNoToken);
      it = edges_.emplace(key, child).first;
    }
    node = it->second;
  }
  if (node_token_[node] == kNoToken) {
    node_token_[node] = static_cast<int32_t>(token_index);
    ++patterns_;
  }
  first_byte_[static_cast<uint8_t>(pattern[0])] = true;
}

bool AddedTokenMatcher::find(std::string_view text, size_t from, Match& match) const {
  if (patterns_ == 0) return false;
  for (size_t i = from; i < text.size(); ++i) {
    if (!first_byte_[static_cast<uint8_t>(text[i])]) continue;
    uint32_t node = 0;
    int32_t best = kNoToken;
    size_t best_end = i;
    for (size_t j = i; j < text.size(); ++j) {
      const auto it = edges_.find((uint64_t{node} << 8) | static_cast<uint8_t>(text[j]));
      if (it == edges_.end()) break;
      node = it->second;
      if (node_token_[node] != kNoToken) {
        best = node_token_[node];
        best_end = j + 1;
      }
    }
    if (best != kNoToken) {
      match = {i, best_end, static_cast<size_t>(best)};
      return true;
    }
  }
  return false;
}

void AddedTokenMatcher::split(std::string_view text, const std::vector<AddedToken>& tokens,
                              bool parse_special, std::vector<TextSegment>& out) const {
  size_t start_offset = 0;  // where the text not yet assigned to a segment begins
  size_t search = 0;        // where the next match search begins (after the previous match)
  Match m{};
  while (find(text, search, m)) {
    search = m.end;
    const AddedToken& token = tokens[m.token_index];
    if (token.special && !parse_special) continue;
    if (token.single_word && (ends_with_word(text, m.begin) || starts_with_word(text, m.end)))
      continue;
    size_t begin = m.begin;
    size_t end = m.end;
    if (token.lstrip) begin = std::max(white_space_run_start(text, begin), start_offset);
    if (token.rstrip) end = white_space_run_end(text, end);
    begin = std::max(begin, start_offset);
    if (start_offset < begin) out.push_back({start_offset, begin, -1});
    out.push_back({begin, end, token.id});
    start_offset = end;
    search = std::max(search, end);
  }
  if (start_offset < text.size()) out.push_back({start_offset, text.size(), -1});
}

}  // namespace cppnn::llm::detail
