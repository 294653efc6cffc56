// Tokenizer: indexing a loaded model, and the encode / decode pipelines (HF TokenizerImpl's
// encode_single_sequence + post_process, and decode).
#include "src/llm/tokenizer.h"

#include <mutex>
#include <shared_mutex>

#include "src/llm/tokenizer_bpe.h"
#include "src/llm/tokenizer_model.h"
#include "src/llm/tokenizer_pipeline.h"

namespace cppnn::llm {
namespace {

using detail::TokenizerModel;

ErrorInfo tokenizer_error(const std::string& what) {
  return ErrorInfo{ErrorKind::kDataError, "tokenizer error: " + what};
}

// An error unless every id of `ids` is below `n`.
Status check_special_ids(const SpecialTokenIds& ids, size_t n) {
  for (const std::optional<int32_t>* id : {&ids.bos, &ids.eos, &ids.eot, &ids.unk, &ids.pad}) {
    if (*id && (**id < 0 || size_t(**id) >= n))
      return tokenizer_error("special token id " + std::to_string(**id) + " is out of range");
  }
  return Ok{};
}

// The id of the "<0xXX>" token of each byte (HF byte_fallback, llama.cpp byte_to_token).
void index_byte_tokens(TokenizerModel& m) {
  static const char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    const std::string name = std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
    const auto it = m.vocab.find(name);
    m.byte_tokens[size_t(b)] = it == m.vocab.end() ? -1 : it->second;
  }
}

// The model's own tokenization of one pre-token, through the word cache.
void tokenize_word(const TokenizerModel& m, std::string_view word, std::vector<int32_t>& out) {
  if (m.ignore_merges) {
    if (const auto it = m.vocab.find(word); it != m.vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  const bool cacheable = word.size() <= detail::WordCache::kMaxWordBytes;
  if (cacheable) {
    std::shared_lock lock(m.cache.mutex);
    if (const auto it = m.cache.words.find(word); it != m.cache.words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> ids;
  if (m.merge_mode == detail::MergeMode::kScore) {
    detail::bpe_merge_by_score(m, word, ids);
  } else {
    detail::bpe_merge_by_rank(m, word, ids);
  }
  out.insert(out.end(), ids.begin(), ids.end());
  if (cacheable) {
    std::unique_lock lock(m.cache.mutex);
    if (m.cache.words.size() >= detail::WordCache::kMaxEntries) m.cache.words.clear();
    m.cache.words.emplace(std::string(word), std::move(ids));
  }
}

// Normalized text between added tokens: the normalized-content added tokens, then
// pre-tokenization and the model.
void encode_normalized(const TokenizerModel& m, const std::string& text, bool at_start,
                       bool parse_special, std::vector<int32_t>& out) {
  std::vector<detail::TextSegment> segments;
  if (m.normalized_matcher.empty()) {
    segments.push_back({0, text.size(), -1});
  } else {
    m.normalized_matcher.split(text, m.added, parse_special, segments);
  }
  std::vector<detail::Piece> pieces;
  for (const detail::TextSegment& seg : segments) {
    if (seg.token_id >= 0) {
      out.push_back(seg.token_id);
      continue;
    }
    pieces.clear();
    detail::pre_tokenize(m.pre_tokenizers,
                         {text.substr(seg.begin, seg.end - seg.begin), at_start && seg.begin == 0},
                         pieces);
    for (const detail::Piece& p : pieces) tokenize_word(m, p.text, out);
  }
}

}  // namespace

Result<Tokenizer> make_tokenizer(std::shared_ptr<TokenizerModel> model, SpecialTokenIds special) {
  TokenizerModel& m = *model;
  const size_t n = m.tokens.size();
  if (n == 0) return tokenizer_error("the vocabulary is empty");
  if (n > size_t{INT32_MAX}) return tokenizer_error("the vocabulary is too large");
  m.has_token.resize(n, 0);
  m.special.resize(n, 0);
  m.control.resize(n, 0);
  if (m.merge_mode == detail::MergeMode::kScore && m.scores.size() != n)
    return tokenizer_error("the scores do not cover the vocabulary");
  index_byte_tokens(m);
  for (const detail::AddedToken& t : m.added) {
    if (t.id < 0 || size_t(t.id) >= n)
      return tokenizer_error("added token '" + t.content + "' has id out of range");
    m.added_vocab.emplace(t.content, t.id);
    if (t.special) m.special[size_t(t.id)] = 1;
  }
  // HF matches the special tokens first, then the others (a repeated pattern keeps the first).
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < m.added.size(); ++k) {
      const detail::AddedToken& t = m.added[k];
      if (t.special != (pass == 0)) continue;
      if (t.normalized) {
        m.normalized_matcher.add(detail::normalize(m.normalizers, t.content), k);
      } else {
        m.raw_matcher.add(t.content, k);
      }
    }
  }
  CPPNN_RETURN_IF_ERROR(check_special_ids(special, n));
  return Tokenizer(std::move(model), special);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, EncodeOptions options) const {
  const TokenizerModel& m = *model_;
  std::vector<int32_t> ids;
  if (options.add_special) ids = m.prefix_ids;
  std::vector<detail::TextSegment> segments;
  if (m.raw_matcher.empty()) {
    segments.push_back({0, text.size(), -1});
  } else {
    m.raw_matcher.split(text, m.added, options.parse_special, segments);
  }
  for (const detail::TextSegment& seg : segments) {
    if (seg.token_id >= 0) {
      ids.push_back(seg.token_id);
      continue;
    }
    const std::string normalized =
        detail::normalize(m.normalizers, text.substr(seg.begin, seg.end - seg.begin));
    encode_normalized(m, normalized, seg.begin == 0, options.parse_special, ids);
  }
  if (options.add_special) ids.insert(ids.end(), m.suffix_ids.begin(), m.suffix_ids.end());
  return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, DecodeOptions options) const {
  return decode_part(ids, options, true);
}

std::string Tokenizer::decode_part(std::span<const int32_t> ids, DecodeOptions options,
                                   bool at_text_start) const {
  const TokenizerModel& m = *model_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    if (id < 0 || size_t(id) >= m.tokens.size() || !m.has_token[size_t(id)]) continue;
    if (options.skip_special && m.special[size_t(id)]) continue;
    tokens.push_back(m.tokens[size_t(id)]);
  }
  return detail::decode_tokens(m.decoders, std::move(tokens), at_text_start);
}

std::string Tokenizer::token_text(int32_t id) const {
  const TokenizerModel& m = *model_;
  if (id < 0 || size_t(id) >= m.tokens.size()) return {};
  return m.tokens[size_t(id)];
}

std::optional<int32_t> Tokenizer::token_id(std::string_view token) const {
  const TokenizerModel& m = *model_;
  if (const auto it = m.added_vocab.find(token); it != m.added_vocab.end()) return it->second;
  if (const auto it = m.vocab.find(token); it != m.vocab.end()) return it->second;
  return std::nullopt;
}

int32_t Tokenizer::vocab_size() const {
  return static_cast<int32_t>(model_->tokens.size());
}

Result<Tokenizer> Tokenizer::with_special_ids(SpecialTokenIds ids) const {
  CPPNN_RETURN_IF_ERROR(check_special_ids(ids, model_->tokens.size()));
  return Tokenizer(model_, ids);
}

bool Tokenizer::is_special(int32_t id) const {
  return id >= 0 && size_t(id) < model_->special.size() && model_->special[size_t(id)];
}

bool Tokenizer::is_control(int32_t id) const {
  return id >= 0 && size_t(id) < model_->control.size() && model_->control[size_t(id)];
}

}  // namespace cppnn::llm
