// The BPE model on one pre-token (a "word"): its characters become symbols, then adjacent pairs
// merge until no rule applies. Both loops use a priority queue of candidate pairs with lazy
// deletion, O(n log n) in the word's length.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "src/llm/tokenizer_model.h"

namespace cppnn::llm::detail {

// HF BPE (model.rs merge_word + word.rs merge_all): each character is its vocabulary id, else
// its <0xXX> byte tokens (byte_fallback), else the unknown token (fused when fuse_unk), else
// dropped; then the pair of lowest merge rank merges first, the leftmost on a tie. Appends the
// ids to `out`.
void bpe_merge_by_rank(const TokenizerModel& model, std::string_view word,
                       std::vector<int32_t>& out);

// llama.cpp's SentencePiece BPE (llm_tokenizer_spm_session): the adjacent pair whose
// concatenation is a vocabulary token of the highest score merges first, the leftmost on a tie;
// a final symbol that is no token becomes its <0xXX> byte tokens (or the unknown token when a
// byte token is missing). Special tokens never form by merging. Appends the ids to `out`.
void bpe_merge_by_score(const TokenizerModel& model, std::string_view text,
                        std::vector<int32_t>& out);

}  // namespace cppnn::llm::detail
