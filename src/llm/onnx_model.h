// An optimum-style ONNX export of a decoder (Hugging Face optimum / transformers.js layout) as a
// language model: inputs input_ids [batch, tokens], attention_mask [batch, past + tokens],
// position_ids [batch, tokens] (optional), past_key_values.N.key/value [batch, kv_heads, past,
// head_dim]; outputs logits [batch, tokens, vocabulary] and present.N.key/value [batch, kv_heads,
// past + tokens, head_dim]. The model is imported twice with every size fixed (past = the cache
// capacity, tokens = the prefill chunk, then 1): two graphs, each compiled once. The tokenizer is
// a Hugging Face tokenizer.json; the chat template and special tokens come from
// tokenizer_config.json beside the model when present.
#pragma once

#include <filesystem>

#include "cppnn/llm.h"
#include "src/llm/model_state.h"

namespace cppnn::llm {

// Fills `state` (graphs, interface, tokenizer, chat template, info) from the ONNX model at
// `path`. DataError for a model without the inputs and outputs above (naming what is missing),
// the importer's errors otherwise.
void load_onnx_model(cppnn::detail::LanguageModelState& state, const std::filesystem::path& path,
                     const LanguageModelOptions& options);

}  // namespace cppnn::llm
