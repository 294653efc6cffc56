// TokenizerSpec: a tokenizer described the way GGUF metadata describes it (llama.cpp's
// `tokenizer.ggml.*` keys), as plain data, so that the GGUF importer fills it without the
// tokenizer depending on GGUF code, and Tokenizer::from_spec (src/llm/tokenizer.h) builds the
// tokenizer from it with llama.cpp's rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cppnn::llm {

// GGUF `tokenizer.ggml.token_type` values (llama.cpp's llama_token_type).
enum class TokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

struct TokenizerSpec {
  // `tokenizer.ggml.model`: "gpt2" (byte-level BPE with merges) or "llama" (SentencePiece-style
  // BPE merged by token score, with <0xXX> byte fallback). Anything else is an error naming it.
  std::string model;
  // `tokenizer.ggml.pre` (gpt2 models only): the pre-tokenizer name, mapped to a regex family as
  // llama.cpp maps it ("smollm", "llama-bpe", "qwen2", "gpt-2", ...); empty or unknown is an error.
  std::string pre;
  // `tokenizer.ggml.tokens`: the vocabulary, id = index.
  std::vector<std::string> tokens;
  // `tokenizer.ggml.scores` (empty: all 0). The llama model merges by these.
  std::vector<float> scores;
  // `tokenizer.ggml.token_type` (empty: all normal); values as in TokenType.
  std::vector<int32_t> token_types;
  // `tokenizer.ggml.merges` (gpt2 models): "left right", rank = index.
  std::vector<std::string> merges;
  // `tokenizer.ggml.{bos,eos,unknown,padding,eot}_token_id`, when present.
  std::optional<int64_t> bos_id, eos_id, unk_id, pad_id, eot_id;
  // `tokenizer.ggml.add_bos_token`, `add_eos_token`, `add_space_prefix`, when present (absent:
  // llama.cpp's default for the model and pre-tokenizer).
  std::optional<bool> add_bos, add_eos, add_space_prefix;
};

}  // namespace cppnn::llm
