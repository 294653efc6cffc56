// A GGUF file read as a language model (llama.cpp's metadata keys, LLM_KV_*): the decoder's
// hyper-parameters, its tokenizer, its chat template, and its tensors in their WebNN forms for
// the step graph (src/llm/decoder_graph.h). Architectures: llama (SmolLM, TinyLlama, Llama 2/3,
// Mistral) and qwen2; any other is a NotSupportedError naming it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "src/core/result.h"
#include "src/import/gguf/gguf_file.h"
#include "src/import/gguf/gguf_quant.h"
#include "src/llm/decoder_config.h"
#include "src/llm/decoder_graph.h"
#include "src/llm/tokenizer_spec.h"

namespace cppnn::gguf {

// The decoder's hyper-parameters from `{arch}.*` keys and the tensors' shapes: block_count,
// embedding_length, feed_forward_length, attention.head_count(_kv), attention.key_length,
// context_length, attention.layer_norm_rms_epsilon, rope.freq_base, rope.dimension_count,
// rope.scaling.type/factor (none, linear; yarn and longrope are NotSupportedErrors), the
// `rope_freqs.weight` tensor (llama 3.x frequency factors), tied embeddings (no output.weight),
// q/k/v biases (qwen2). Per-layer head counts and mixtures of experts are NotSupportedErrors.
Result<llm::DecoderConfig> read_decoder_config(const GgufFile& file);

// The tokenizer's `tokenizer.ggml.*` keys.
Result<llm::TokenizerSpec> read_tokenizer_spec(const GgufFile& file);

// `tokenizer.chat_template`, when present.
Result<std::optional<std::string>> read_chat_template(const GgufFile& file);

// The file's tensors in their WebNN forms, converted on first use and kept.
class GgufDecoderWeights : public llm::DecoderWeights {
 public:
  explicit GgufDecoderWeights(std::shared_ptr<const GgufFile> file,
                              llm::WeightForm form = llm::WeightForm::kKeep)
      : file_(std::move(file)), form_(form) {}
  Result<const WebnnWeight*> find(const std::string& name) override;
  // Tensors of the file that find() never asked for (reported by the conversion).
  std::vector<std::string> unused() const;

 private:
  std::shared_ptr<const GgufFile> file_;
  llm::WeightForm form_;
  std::map<std::string, std::unique_ptr<WebnnWeight>> converted_;
};

}  // namespace cppnn::gguf
