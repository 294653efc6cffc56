// The text stages of the tokenizer pipeline around the model (HF `tokenizers` semantics):
// normalizer steps on a piece of text, pre-tokenizer steps that split it into pre-tokens, and
// decoder steps that turn the token strings of some ids back into text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/llm/tokenizer_model.h"

namespace cppnn::llm::detail {

// A piece of text between added tokens, or a pre-token; `at_start` is true when it begins at
// the first byte of the text being encoded (what Metaspace's prepend_scheme "first" tests).
struct Piece {
  std::string text;
  bool at_start = false;
};

// `text` with every non-overlapping occurrence of `from`, left to right, replaced by `to` (an
// empty `from` replaces nothing).
std::string replace_all(std::string_view text, std::string_view from, std::string_view to);

// `text` after each normalizer step in turn (Prepend applies to non-empty text only).
std::string normalize(const std::vector<NormalizerStep>& steps, std::string_view text);

// Splits `piece` with each pre-tokenizer step in turn and appends the non-empty pre-tokens.
void pre_tokenize(const std::vector<PreTokenizerStep>& steps, Piece piece, std::vector<Piece>& out);

// The text of the token strings `tokens` after each decoder step in turn, joined (without
// decoder steps: joined with spaces, as HF does). `at_text_start` false decodes tokens that
// continue a text: the steps that treat the start of the text apart (Strip's leading
// characters, Metaspace's first token) treat them as they would in the middle.
std::string decode_tokens(const std::vector<DecoderStep>& steps, std::vector<std::string> tokens,
                          bool at_text_start = true);

}  // namespace cppnn::llm::detail
