// The step graph of a llama-family decoder (llama, qwen2) recorded through an MLGraphBuilder:
// one graph, built once, that runs `tokens` positions at a time (a dynamic dimension, from 1 for
// a decode step to `chunk` for a prefill chunk) against a key/value cache of fixed capacity that
// lives in MLTensors outside the graph (step_interface.h, MaskKind::kCacheAdditive):
//
//   inputs   input_ids int32 [1, tokens], position_ids int32 [1, tokens],
//            cache_mask float32 [1, capacity] (0 for a filled slot, -inf for an empty one),
//            past_key_values.L.key float32 [1, kv_heads, head_dim, capacity] (keys transposed,
//            so attention multiplies by them without a transpose), past_key_values.L.value
//            float32 [1, kv_heads, capacity, head_dim]
//   outputs  logits float32 [1, tokens, vocabulary], present.L.key [1, kv_heads, head_dim,
//            tokens] and present.L.value [1, kv_heads, tokens, head_dim]: the step's own keys
//            and values, which the runtime copies into the cache at the write position.
//
// Each step attends to the cache (masked by cache_mask) and causally to its own tokens; RMSNorm,
// rotary embedding (llama.cpp's angles: theta = p * base^(-2i/n) computed in float32 as ggml
// does), grouped-query attention, SwiGLU. Weights stay in their WebNN forms: block-quantized
// ones as 4-/8-bit constants with dequantizeLinear where they are used (gguf_quant.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"
#include "src/core/result.h"
#include "src/import/gguf/gguf_quant.h"
#include "src/llm/decoder_config.h"
#include "src/llm/step_interface.h"

namespace cppnn::llm {

// The weights of a decoder by llama.cpp's tensor names (token_embd.weight, blk.N.attn_q.weight,
// output_norm.weight, ...), each in its WebNN form.
class DecoderWeights {
 public:
  virtual ~DecoderWeights() = default;
  // The tensor `name`; nullptr when the model has none; an error when it cannot be converted.
  virtual Result<const gguf::WebnnWeight*> find(const std::string& name) = 0;
};

// How a converter stores the model's weights: as the file has them (block-quantized ones kept
// 4- or 8-bit), or every weight dequantized to float32, or the matrices (rank 2 and up) as
// float16 and the vectors (norms, biases) as float32.
enum class WeightForm { kKeep, kFloat32, kFloat16 };

// The sizes of the step graph.
struct StepGraphOptions {
  uint32_t capacity = 2048;  // cache positions
  uint32_t chunk = 32;       // tokens per step at most (prefill chunk)
};

// What build_decoder_step() recorded.
struct DecoderStep {
  MLNamedOperands outputs;
  StepInterface interface;
  std::vector<std::string> notes;  // one per weight form used ("Q4_1 -> uint4 ...: 210 tensors")
};

// Records the step graph of `config` into `builder`. Constants are named after the tensors they
// come from (`blk.0.attn_q.weight.q`, `.scale`, `.offset`), so a saved graph's weights file reads
// like the model. Errors (DataError) name the missing or misshapen tensor.
Result<DecoderStep> build_decoder_step(MLGraphBuilder& builder, const DecoderConfig& config,
                                       DecoderWeights& weights, const StepGraphOptions& options);

// The rotary embedding tables [capacity, head_dim] of `config` (cos, sin; 1 and 0 outside the
// rotated dimensions), computed as ggml's rope cache: theta starts at the position and is
// multiplied by base^(-2/rope_dims) once per pair in float32, divided by the pair's frequency
// factor and scaled by rope_freq_scale; cosf/sinf of it.
void rope_tables(const DecoderConfig& config, uint32_t capacity, std::vector<float>& cos_table,
                 std::vector<float>& sin_table);

}  // namespace cppnn::llm
