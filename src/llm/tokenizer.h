// The text tokenizer of the language-model runtime: token ids identical to Hugging Face
// `tokenizers` on a tokenizer.json, and to llama.cpp on a GGUF vocabulary (TokenizerSpec).
//
// Models: byte-level BPE (GPT-2's byte-to-unicode map, merges by rank) with the pre-tokenizers
// of real models (GPT-2, SmolLM/StarCoder digits + GPT-2, Llama 3, Qwen2 regexes, written as
// scanners over Unicode categories), and SentencePiece-style BPE (merges by rank from a
// tokenizer.json, or by token score from GGUF, with <0xXX> byte fallback). Added/special tokens
// are split out first with HF's rules (leftmost-longest, lstrip/rstrip/single_word/normalized).
// Decoding reverses the byte map or the ▁/byte-fallback spelling; StreamDecoder decodes one id at
// a time and holds back a UTF-8 character split across tokens.
//
// A Tokenizer is immutable after loading and cheap to copy (shared state); every method is const
// and may be called from several threads at once (the word cache is guarded).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/llm/tokenizer_spec.h"

namespace cppnn::llm {

namespace detail {
struct TokenizerModel;
}

// Options of Tokenizer::encode.
struct EncodeOptions {
  // Match special (control) tokens written in the text, such as "<|im_start|>", as one token.
  // Off, they are tokenized as plain text; non-special added tokens are matched either way.
  bool parse_special = true;
  // Add the model's special tokens around the text: BOS/EOS as the GGUF add_bos/add_eos flags
  // say, or the tokenizer.json post-processor (TemplateProcessing, Roberta, Bert).
  bool add_special = true;
};

// Options of Tokenizer::decode.
struct DecodeOptions {
  // Leave special tokens (HF added tokens with "special": true; GGUF control and unknown-type
  // tokens) out of the text.
  bool skip_special = false;
};

// The ids of the model's special tokens, where the model names them.
struct SpecialTokenIds {
  std::optional<int32_t> bos, eos, eot, unk, pad;
};

class Tokenizer {
 public:
  // Loads a Hugging Face tokenizer.json. Malformed JSON, wrong types, unknown or unsupported
  // components (named: "normalizer NFKC", "model WordPiece", "Split pattern ..."), duplicate
  // tokens or ids, a merge naming an unknown token, ids out of range: a DataError
  // "tokenizer.json error: <file>: <JSON path>: <what>". Special ids come from the
  // post-processor (BOS) and the well-known contents of the special added tokens.
  static Result<Tokenizer> from_hf_json(std::string_view json, std::string_view file_name);
  // Builds the tokenizer a GGUF file describes (src/llm/tokenizer_spec.h), with llama.cpp's
  // defaults and pre-tokenizer names. Inconsistent data is a DataError naming the field.
  static Result<Tokenizer> from_spec(TokenizerSpec spec);

  // The ids of `text` (bytes; ill-formed UTF-8 is tokenized as its bytes, never an error).
  std::vector<int32_t> encode(std::string_view text, EncodeOptions options = {}) const;
  // The text of `ids` (well-formed UTF-8; invalid bytes become U+FFFD as HF does). Ids that are
  // not in the vocabulary are skipped.
  std::string decode(std::span<const int32_t> ids, DecodeOptions options = {}) const;

  // The vocabulary entry of `id` as stored ("Ġhello", "▁the", "<0x0A>", "<|im_start|>"); ""
  // for an id that has none.
  std::string token_text(int32_t id) const;
  // The id of the vocabulary entry `token` (added tokens first, as HF looks them up).
  std::optional<int32_t> token_id(std::string_view token) const;
  // One more than the largest id.
  int32_t vocab_size() const;

  const SpecialTokenIds& special_ids() const { return special_; }
  std::optional<int32_t> bos_id() const { return special_.bos; }
  std::optional<int32_t> eos_id() const { return special_.eos; }
  std::optional<int32_t> eot_id() const { return special_.eot; }
  // A copy whose special ids are `ids` (for a caller that reads them elsewhere, such as HF's
  // tokenizer_config.json); the vocabulary is shared. An id out of range is a DataError.
  Result<Tokenizer> with_special_ids(SpecialTokenIds ids) const;

  // True for ids that DecodeOptions::skip_special leaves out.
  bool is_special(int32_t id) const;
  // True for control tokens (GGUF token type 3; HF special added tokens).
  bool is_control(int32_t id) const;

 private:
  Tokenizer(std::shared_ptr<const detail::TokenizerModel> model, SpecialTokenIds special)
      : model_(std::move(model)), special_(special) {}
  // decode(), for ids that start the text or (at_text_start false) continue it.
  std::string decode_part(std::span<const int32_t> ids, DecodeOptions options,
                          bool at_text_start) const;
  friend class StreamDecoder;
  friend Result<Tokenizer> make_tokenizer(std::shared_ptr<detail::TokenizerModel> model,
                                          SpecialTokenIds special);

  std::shared_ptr<const detail::TokenizerModel> model_;
  SpecialTokenIds special_;
};

// Decodes a stream of ids one at a time (as HF's DecodeStream): push() returns the text that is
// complete once the id is added; a UTF-8 character split across byte tokens is held back until
// its last byte arrives (while the text so far ends in U+FFFD). The concatenation of every
// push() and finish() is the decode() of all the ids, except where that holds U+FFFD: a run of
// <0xXX> tokens that turns out invalid only after part of it was shown. Each push() decodes the
// few ids since the previous emission; the start-of-text rules (a leading space stripped, the
// first Metaspace token) apply only while that window starts the text.
class StreamDecoder {
 public:
  explicit StreamDecoder(Tokenizer tokenizer, DecodeOptions options = {})
      : tokenizer_(std::move(tokenizer)), options_(options) {}

  // Adds `id`; returns the newly completed text ("" while a character is incomplete).
  std::string push(int32_t id);
  // The text still held back (an incomplete character at the end becomes U+FFFD); starts over.
  std::string finish();

 private:
  Tokenizer tokenizer_;
  DecodeOptions options_;
  std::vector<int32_t> window_;  // ids since the previous emission's start
  std::string prefix_;           // decode of window_[0, prefix_count_)
  size_t prefix_count_ = 0;
  bool window_at_start_ = true;  // window_ begins with the first id of the text
};

// Builds a Tokenizer from a loaded model (the loaders' last step: indexes and checks).
Result<Tokenizer> make_tokenizer(std::shared_ptr<detail::TokenizerModel> model,
                                 SpecialTokenIds special);

}  // namespace cppnn::llm
