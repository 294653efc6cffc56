// The two merge loops.
#include "src/llm/tokenizer_bpe.h"

#include <queue>
#include <string>

#include "src/llm/unicode_utf8.h"

namespace cppnn::llm::detail {
namespace {

// A symbol of the word: a token id (rank mode) over bytes [begin, begin + length) of the word,
// linked to its neighbours; length 0 once merged into its left neighbour.
struct Symbol {
  int32_t id;
  int64_t prev;
  int64_t next;
  size_t begin;
  size_t length;
};

uint64_t pair_key(int32_t left, int32_t right) {
  return (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
}

// A candidate merge of the rank mode: the pair at `pos` and its successor.
struct RankCandidate {
  uint32_t rank;
  int64_t pos;
  int32_t merged_id;
  // Lowest rank first, then leftmost: the top of a std::priority_queue (a max-heap).
  bool operator<(const RankCandidate& o) const {
    return rank != o.rank ? rank > o.rank : pos > o.pos;
  }
};

// The word's initial symbols per HF merge_word.
std::vector<Symbol> initial_symbols(const TokenizerModel& m, std::string_view word) {
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](int32_t id, size_t begin, size_t length) {
    const auto index = static_cast<int64_t>(symbols.size());
    symbols.push_back({id, index - 1, -1, begin, length});
  };
  // An unknown token not yet added (fuse_unk grows it): its start and length.
  bool unk_pending = false;
  size_t unk_begin = 0, unk_length = 0;
  for (size_t i = 0; i < word.size();) {
    const size_t length = decode_utf8(word, i).length;
    const std::string_view ch = word.substr(i, length);
    if (auto it = m.vocab.find(ch); it != m.vocab.end()) {
      if (unk_pending) add(*m.unk_id, unk_begin, unk_length);
      unk_pending = false;
      add(it->second, i, length);
    } else if (m.byte_fallback && [&] {
                 for (char b : ch) {
                   if (m.byte_tokens[static_cast<uint8_t>(b)] < 0) return false;
                 }
                 return true;
               }()) {
      // As HF: the byte tokens go in at once, a pending unknown token stays pending.
      for (size_t k = 0; k < length; ++k) add(m.byte_tokens[static_cast<uint8_t>(ch[k])], i + k, 1);
    } else if (m.unk_id) {
      if (unk_pending && m.fuse_unk) {
        unk_length += length;
      } else {
        if (unk_pending) add(*m.unk_id, unk_begin, unk_length);
        unk_pending = true;
        unk_begin = i;
        unk_length = length;
      }
    }
    i += length;
  }
  if (unk_pending) add(*m.unk_id, unk_begin, unk_length);
  for (size_t k = 0; k + 1 < symbols.size(); ++k) symbols[k].next = static_cast<int64_t>(k + 1);
  return symbols;
}

}  // namespace

void bpe_merge_by_rank(const TokenizerModel& m, std::string_view word, std::vector<int32_t>& out) {
  std::vector<Symbol> s = initial_symbols(m, word);
  std::priority_queue<RankCandidate> queue;
  auto consider = [&](int64_t pos) {
    const int64_t next = s[size_t(pos)].next;
    if (next < 0) return;
    const auto it = m.merges.find(pair_key(s[size_t(pos)].id, s[size_t(next)].id));
    if (it != m.merges.end()) queue.push({it->second.rank, pos, it->second.merged_id});
  };
  for (size_t k = 0; k + 1 < s.size(); ++k) consider(static_cast<int64_t>(k));
  while (!queue.empty()) {
    const RankCandidate top = queue.top();
    queue.pop();
    Symbol& left = s[size_t(top.pos)];
    if (left.length == 0 || left.next < 0) continue;
    Symbol& right = s[size_t(left.next)];
    // A stale candidate: the pair there now merges into something else, or not at all.
    const auto it = m.merges.find(pair_key(left.id, right.id));
    if (it == m.merges.end() || it->second.merged_id != top.merged_id) continue;
    left.id = top.merged_id;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) s[size_t(right.next)].prev = top.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(top.pos);
  }
  for (const Symbol& sym : s) {
    if (sym.length != 0) out.push_back(sym.id);
  }
}

namespace {

// A candidate merge of the score mode: symbols `left` and `right` whose concatenation (of
// `size` bytes) is a token of score `score`.
struct ScoreCandidate {
  float score;
  int64_t left;
  int64_t right;
  size_t size;
  // Highest score first, then leftmost (llama.cpp's llm_bigram_spm::comparator).
  bool operator<(const ScoreCandidate& o) const {
    return score < o.score || (score == o.score && left > o.left);
  }
};

// The id of vocabulary token `text`, or -1. Special tokens (control and unknown-type) are left
// out: llama.cpp would let a text such as "<s>" merge into its control token even when special
// tokens are not parsed; HF, whose converted merges never produce one, does not.
int32_t lookup(const TokenizerModel& m, std::string_view text) {
  const auto it = m.vocab.find(text);
  return it == m.vocab.end() || m.special[size_t(it->second)] ? -1 : it->second;
}

}  // namespace

void bpe_merge_by_score(const TokenizerModel& m, std::string_view text, std::vector<int32_t>& out) {
  std::vector<Symbol> s;
  s.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = decode_utf8(text, i).length;
    const auto index = static_cast<int64_t>(s.size());
    s.push_back({-1, index - 1, i + length < text.size() ? index + 1 : -1, i, length});
    i += length;
  }
  std::priority_queue<ScoreCandidate> queue;
  auto consider = [&](int64_t left, int64_t right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = s[size_t(left)];
    const Symbol& r = s[size_t(right)];
    const int32_t id = lookup(m, text.substr(l.begin, l.length + r.length));
    if (id < 0) return;
    queue.push({m.scores[size_t(id)], left, right, l.length + r.length});
  };
  for (size_t k = 1; k < s.size(); ++k)
    consider(static_cast<int64_t>(k - 1), static_cast<int64_t>(k));
  while (!queue.empty()) {
    const ScoreCandidate top = queue.top();
    queue.pop();
    Symbol& left = s[size_t(top.left)];
    Symbol& right = s[size_t(top.right)];
    if (left.length == 0 || right.length == 0 || left.length + right.length != top.size) continue;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) s[size_t(right.next)].prev = top.left;
    consider(left.prev, top.left);
    consider(top.left, left.next);
  }
  for (int64_t i = s.empty() ? -1 : 0; i >= 0; i = s[size_t(i)].next) {
    const Symbol& sym = s[size_t(i)];
    const std::string_view piece = text.substr(sym.begin, sym.length);
    const int32_t id = lookup(m, piece);
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    for (char b : piece) {
      const int32_t byte_id = m.byte_tokens[static_cast<uint8_t>(b)];
      if (byte_id >= 0) {
        out.push_back(byte_id);
      } else if (m.unk_id) {
        out.push_back(*m.unk_id);
      }
    }
  }
}

}  // namespace cppnn::llm::detail
