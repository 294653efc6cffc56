// The hyper-parameters of a decoder-only transformer language model (the llama family: llama,
// qwen2), as a GGUF file's metadata gives them (llama.cpp's LLM_KV_* keys), independent of where
// the weights come from. The step graph (decoder_graph.h) is built from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cppnn::llm {

// How rotary position embedding pairs the dimensions of a head (llama.cpp's rope types):
// kNormal rotates adjacent pairs (2i, 2i+1) (LLAMA_ROPE_TYPE_NORM: llama, whose GGUF conversion
// permutes the q/k weights into this order); kNeox rotates (i, i + n/2) (LLAMA_ROPE_TYPE_NEOX:
// qwen2).
enum class RopeMode : uint8_t { kNormal, kNeox };

// The model: sizes, normalisation, rotary embedding.
struct DecoderConfig {
  std::string architecture;  // "llama" or "qwen2"
  std::string name;          // general.name, for messages and reports
  uint32_t n_layer = 0;
  uint32_t n_embd = 0;     // hidden size D
  uint32_t n_head = 0;     // query heads
  uint32_t n_head_kv = 0;  // key/value heads (grouped-query attention: n_head % n_head_kv == 0)
  uint32_t head_dim = 0;   // per head (n_embd / n_head unless the file says otherwise)
  uint32_t n_ff = 0;       // feed-forward (SwiGLU) width
  uint32_t n_vocab = 0;
  uint32_t n_ctx_train = 0;  // the context length the model was trained for
  float norm_eps = 1e-5f;    // RMSNorm epsilon
  RopeMode rope_mode = RopeMode::kNormal;
  uint32_t rope_dims = 0;        // rotated dimensions per head (<= head_dim)
  float rope_base = 10000.0f;    // theta base (rope.freq_base)
  float rope_freq_scale = 1.0f;  // 1 / linear scaling factor (rope.scaling.type = linear)
  // Per rotated pair divisors of theta (llama 3.x `rope_freqs.weight`), empty when absent.
  std::vector<float> rope_freq_factors;
  bool tied_embeddings = false;  // no output.weight: the token embedding is the output layer
  bool qkv_bias = false;         // biases on the q, k and v projections (qwen2)

  uint32_t group_size() const { return n_head / n_head_kv; }
};

}  // namespace cppnn::llm
