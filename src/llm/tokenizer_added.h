// Added tokens (HF `tokenizers` AddedVocabulary, tokenizer.json "added_tokens"; GGUF control,
// user-defined and unknown-type tokens): finding them in text before the model runs.
// Matching is HF's: leftmost-longest over all patterns at once (its Aho-Corasick
// MatchKind::LeftmostLongest), non-overlapping, the search resuming after each match; then per
// match, single_word drops it when a \w character touches it, lstrip / rstrip widen it over
// the \s run before / after it, and a special token the caller does not parse is left in the
// text (HF's encode_special_tokens).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cppnn::llm::detail {

// An added token and its flags (HF AddedToken).
struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A piece of text after splitting: bytes [begin, end) of the text, and the added token it is
// (-1: plain text).
struct TextSegment {
  size_t begin = 0;
  size_t end = 0;
  int32_t token_id = -1;
};

// A byte trie over the patterns of some added tokens.
class AddedTokenMatcher {
 public:
  // Adds `pattern` (non-empty) for added token `token_index`; a repeated pattern keeps the first.
  void add(std::string_view pattern, size_t token_index);
  bool empty() const { return patterns_ == 0; }

  // Splits `text` into plain and token segments covering it (empty segments left out).
  // `tokens` are the added tokens the indices given to add() refer to.
  void split(std::string_view text, const std::vector<AddedToken>& tokens, bool parse_special,
             std::vector<TextSegment>& out) const;

 private:
  struct Match {
    size_t begin;
    size_t end;
    size_t token_index;
  };
  // The leftmost-longest match in `text` at or after `from`; false when there is none.
  bool find(std::string_view text, size_t from, Match& match) const;

  static constexpr int32_t kNoToken = -1;
  // Node 0 is the root; a node's children are in edges_ under node << 8 | byte.
  std::vector<int32_t> node_token_;  // the token index ending at each node, or kNoToken
  std::unordered_map<uint64_t, uint32_t> edges_;
  bool first_byte_[256] = {};
  size_t patterns_ = 0;
};

}  // namespace cppnn::llm::detail
