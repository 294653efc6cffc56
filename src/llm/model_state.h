// The state behind the LanguageModel and Generator handles (include/cppnn/llm.h).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/graph.h"
#include "cppnn/llm.h"
#include "src/llm/sampler.h"
#include "src/llm/step_interface.h"
#include "src/llm/tokenizer.h"

namespace cppnn::llm {
class ChatTemplate;
}

namespace cppnn::detail {

// A loaded model: the compiled step graph(s), the interface that drives them, the tokenizer and
// the chat template.
struct LanguageModelState {
  explicit LanguageModelState(MLContext c) : context(std::move(c)) {}
  MLContext context;
  LanguageModelInfo info;
  llm::StepInterface interface;
  // The graph that runs `interface.chunk` tokens and the one that runs 1: the same dynamic graph
  // (interface.token_dim set) or two graphs of fixed sizes (ONNX exports).
  std::optional<MLGraph> prefill;
  std::optional<MLGraph> decode;
  std::optional<llm::Tokenizer> tokenizer;
  std::shared_ptr<const llm::ChatTemplate> chat_template;  // null: ChatML
  std::string bos_text, eos_text;                          // the template's bos_token and eos_token
  std::vector<int32_t> stop_tokens;
  std::string template_error;  // why the model's chat template could not be parsed, if so
};

// LanguageModel::applyChatTemplate and tokenize on the state (the generator calls them too).
std::string apply_chat_template(const LanguageModelState& model,
                                const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt);
std::vector<int32_t> tokenize(const LanguageModelState& model, std::string_view text,
                              bool add_special, bool parse_special);

// The tensors of one step size: inputs and outputs of the step graph at `tokens` tokens, bound
// with the generator's cache tensors once.
struct StepTensors {
  uint32_t tokens = 0;
  std::optional<MLGraph> graph;
  MLTensor ids, positions, mask, logits, logits_index;
  std::vector<MLTensor> present;  // per interface.cache entry
  MLNamedTensors inputs, outputs;
};

// A generation in progress (Generator::start ... next).
struct ActiveGeneration {
  GenerationOptions options;
  llm::SamplingParams params;
  std::optional<llm::StreamDecoder> decoder;
  std::vector<float> logits;  // of the last token in the context
  std::string held;           // decoded text not yet given out (it may start a stop string)
  GenerationResult result;
  std::chrono::steady_clock::time_point start;
  bool finished = false;
};

// One conversation.
struct GeneratorState {
  std::shared_ptr<LanguageModelState> model;
  std::vector<MLTensor> cache;  // per interface.cache entry: the `past` inputs
  std::unique_ptr<StepTensors> prefill, decode;
  std::vector<int32_t> tokens;   // in the cache
  std::vector<int32_t> pending;  // sampled, not yet in the cache (the next append runs them)
  std::unique_ptr<llm::Sampler> sampler;
  ActiveGeneration active;
};

}  // namespace cppnn::detail
