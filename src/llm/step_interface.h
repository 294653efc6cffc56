// The interface of a language model's step graph: which inputs take the tokens, their positions
// and the attention mask, which output gives the logits, and how each key/value cache tensor is
// read (a graph input of fixed capacity) and extended (the rows a step's output adds). The
// generation runtime (generator.h) drives any graph through it: the graphs cppnn builds from
// GGUF files (decoder_graph.h) and optimum-style ONNX exports (past_key_values.N.* -> present.*).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cppnn::llm {

// How the graph takes the attention mask.
enum class MaskKind : uint8_t {
  // float32 [1, capacity]: 0 for a cache slot holding a token, -inf for an empty one; causal
  // masking among the step's own tokens is inside the graph (cppnn's GGUF graphs).
  kCacheAdditive,
  // integer [1, capacity + tokens]: 1 where a token may be attended, 0 elsewhere, the cache's
  // slots first, then the step's own tokens (Hugging Face / optimum exports, int64 or int32).
  kAttentionMask,
};

// One cache tensor: a graph input `past` holding `capacity` positions along `seq_axis`, and a
// graph output `present` whose positions [present_offset, present_offset + tokens) along the same
// axis are the step's new rows (present_offset 0: the output holds only the new rows; capacity:
// the output is past and new rows concatenated, as optimum exports write it).
struct CacheBinding {
  std::string past;
  std::string present;
  uint32_t seq_axis = 2;
  uint32_t present_offset = 0;
};

// The whole interface of a step graph.
struct StepInterface {
  uint32_t capacity = 0;  // cache positions (the longest conversation, prompt included)
  uint32_t chunk = 0;     // tokens per prefill step (the step graph's largest token count)
  std::string input_ids = "input_ids";        // int32/int64 [1, tokens]
  std::string position_ids = "position_ids";  // int32/int64 [1, tokens]; empty when absent
  std::string mask = "cache_mask";
  MaskKind mask_kind = MaskKind::kCacheAdditive;
  std::string logits = "logits";  // float32 [1, tokens or 1, vocabulary]
  // int32 [1]: the position of the step whose logits the graph computes (the last token's: a
  // prefill step's vocabulary projection is one row, logits [1, 1, vocabulary]); empty when the
  // graph computes the logits of every position (optimum exports, graphs converted before it).
  // Every position's logits then come from steps of one token.
  std::string logits_index;
  std::vector<CacheBinding> cache;
  // The graph's dynamic token dimension (one graph serves every step: prefill at `chunk`
  // tokens, decode at 1); empty when prefill and decode are separate graphs of fixed sizes.
  std::string token_dim = "seq";
};

}  // namespace cppnn::llm
