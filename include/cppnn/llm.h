// Text generation with language models (cppnn extension): a decoder-only model loaded as WebNN
// graphs on an MLContext, its tokenizer and chat template, and generation with a key/value cache
// that stays in MLTensors between steps (docs/text-generation.md).
//
//   LanguageModel model = LanguageModel::load("SmolLM2-135M-Instruct.Q4_1.gguf");
//   Generator chat(model);
//   chat.chat({{"user", "What is the capital of France?"}}, {.maxTokens = 64},
//             [](std::string_view piece) { std::cout << piece << std::flush; return true; });
//
// A model is a GGUF file (llama and qwen2 architectures; converted when loaded), a graph converted
// by `cppnn convert-gguf` (MODEL.webnn + MODEL.safetensors + MODEL.llm.json), or an optimum-style
// ONNX export (input_ids, attention_mask, position_ids, past_key_values.N.key/value -> logits,
// present.N.key/value) with a Hugging Face tokenizer.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/context.h"
#include "cppnn/profile.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace detail {
struct LanguageModelState;
struct GeneratorState;
}  // namespace detail

// How LanguageModel::load() sets the model up.
struct LanguageModelOptions {
  // The context's backend and threads, as MLContextOptions (empty: CPPNN_BACKEND, else the
  // default backend).
  std::string backend;
  uint32_t numThreads = 0;
  // Cache positions, the longest conversation (prompt included) a Generator holds. GGUF and ONNX
  // models: 0 takes min(the model's training context, 2048); a converted model has its own
  // (fixed at conversion), and another value is a TypeError.
  uint32_t contextLength = 0;
  // Tokens per prefill step (GGUF and ONNX models; 0: 32; converted models: fixed at conversion).
  uint32_t prefillChunk = 0;
  // The Hugging Face tokenizer.json of an ONNX model (empty: tokenizer.json beside the model).
  std::filesystem::path tokenizer;
  // The chat template of an ONNX model (a Jinja file; empty: tokenizer_config.json's beside the
  // model, else ChatML).
  std::filesystem::path chatTemplate;
  // Time every operation of the step graphs (MLContextOptions::profile; LanguageModel::profile()).
  bool profile = false;
};

// The per-operation profiles of a model's step graphs (LanguageModelOptions::profile): the prefill
// step (LanguageModelInfo::prefillChunk tokens) and the decode step (one token), over every
// generator of the model so far.
struct LanguageModelProfile {
  MLGraphProfile prefill;
  MLGraphProfile decode;
};

// One message of a conversation.
struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

// What a model is.
struct LanguageModelInfo {
  std::string name;          // the model's name (GGUF general.name, else the file name)
  std::string architecture;  // "llama", "qwen2", "onnx"
  std::string backend;       // the context's backend
  uint32_t layers = 0;
  uint32_t vocabularySize = 0;
  uint32_t contextLength = 0;      // cache positions
  uint32_t prefillChunk = 0;       // tokens per prefill step
  std::vector<std::string> notes;  // how the weights were converted (quantized forms kept, ...)
};

// How generate() and chat() choose tokens. Temperature 0 is greedy decoding (the most likely
// token, the lowest id among equals); otherwise the logits, after the repetition penalty, are
// divided by the temperature, cut to the topK most likely (0: all) and to the smallest set whose
// probability reaches topP (1: all), and a token is drawn with the seeded generator.
struct GenerationOptions {
  uint32_t maxTokens = 256;  // tokens to generate at most
  float temperature = 0.0f;
  uint32_t topK = 0;
  float topP = 1.0f;
  // Logits of the tokens among the last `repetitionWindow` of the context divided by the penalty
  // when positive, multiplied when negative (1: off).
  float repetitionPenalty = 1.0f;
  uint32_t repetitionWindow = 64;
  std::optional<uint64_t> seed;   // absent: a random seed
  std::vector<std::string> stop;  // stop strings (not included in the text)
  bool ignoreEos = false;         // keep going past end-of-generation tokens
};

// Why generation stopped.
enum class FinishReason {
  kStopToken,    // an end-of-generation token (EOS, <|im_end|>, ...)
  kStopString,   // one of GenerationOptions::stop
  kMaxTokens,    // GenerationOptions::maxTokens reached
  kContextFull,  // the cache is full (LanguageModelOptions::contextLength)
  kCancelled,    // the callback returned false
};
std::string_view finish_reason_name(FinishReason r) noexcept;  // "stop", "length", ...

// Timings of one generate()/chat() call.
struct GenerationStats {
  uint32_t promptTokens = 0;  // tokens prefilled (after the reused prefix)
  uint32_t reusedTokens = 0;  // tokens of the cache that the prompt shared and kept
  uint32_t generatedTokens = 0;
  double promptSeconds = 0;    // prefill time, to the first generated token's logits
  double generateSeconds = 0;  // decode time of the generated tokens
  double promptTokensPerSecond() const {
    return promptSeconds > 0 ? promptTokens / promptSeconds : 0;
  }
  double generatedTokensPerSecond() const {
    return generateSeconds > 0 ? generatedTokens / generateSeconds : 0;
  }
};

// The result of generate()/chat().
struct GenerationResult {
  std::string text;             // the generated text (stop strings and tokens excluded)
  std::vector<int32_t> tokens;  // the generated tokens (a stop token included)
  FinishReason finishReason = FinishReason::kMaxTokens;
  GenerationStats stats;
};

// Receives each piece of generated text as soon as it is complete UTF-8 (and cannot be the start
// of a stop string); returns false to stop generating.
using TextCallback = std::function<bool(std::string_view piece)>;

// A loaded model: its step graph(s) compiled on a context, its tokenizer and chat template.
// Copies share the model; generators hold it alive. Thread-safe for concurrent generators.
class LanguageModel {
 public:
  // Loads a .gguf, a converted .webnn (with MODEL.llm.json beside it) or an .onnx model. Throws
  // DataError for a malformed or unsupported model (naming the file and the tensor or key),
  // NotSupportedError for an architecture or tensor kind cppnn cannot run, and the context's
  // errors.
  static LanguageModel load(const std::filesystem::path& path,
                            const LanguageModelOptions& options = {});

  const LanguageModelInfo& info() const;
  MLContext context() const;
  // Token ids of `text`: special tokens written in the text (<|im_start|>) are recognised when
  // `parseSpecial`; the model's BOS/EOS are added when `addSpecial` and the model asks for them.
  std::vector<int32_t> tokenize(std::string_view text, bool addSpecial = true,
                                bool parseSpecial = true) const;
  // The text of `tokens` (special tokens skipped when `skipSpecial`).
  std::string detokenize(std::span<const int32_t> tokens, bool skipSpecial = false) const;
  // The prompt the model's chat template makes of `messages` (ChatML when it has none), ending
  // with the assistant's turn when `addGenerationPrompt`.
  std::string applyChatTemplate(const std::vector<ChatMessage>& messages,
                                bool addGenerationPrompt = true) const;
  // The ids that end generation (EOS, end-of-turn).
  std::vector<int32_t> stopTokens() const;
  // The step graphs' per-operation timings so far (available with LanguageModelOptions::profile
  // on the cpu and reference backends; cppnn/profile.h).
  LanguageModelProfile profile() const;

  const std::shared_ptr<detail::LanguageModelState>& state() const { return state_; }

 private:
  explicit LanguageModel(std::shared_ptr<detail::LanguageModelState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::LanguageModelState> state_;
};

// One conversation: the key/value cache (MLTensors of the model's context), the tokens in it, a
// sampler. Not thread-safe; use one generator per thread.
class Generator {
 public:
  explicit Generator(const LanguageModel& model);
  ~Generator();
  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;

  // Continues the context with `prompt` (tokenized with the model's special tokens; BOS when the
  // context is empty and the model asks for one) and generates.
  GenerationResult generate(std::string_view prompt, const GenerationOptions& options = {},
                            const TextCallback& callback = {});
  // The conversation `messages` through the chat template; the cached tokens it shares with the
  // context are kept (a follow-up turn prefills only what is new), then generates the reply.
  GenerationResult chat(const std::vector<ChatMessage>& messages,
                        const GenerationOptions& options = {}, const TextCallback& callback = {});

  // Pull-style generation (what the Python iterator, Node's async iterator and the C API use):
  // start() tokenizes and prefills like generate() (startChat() like chat()); each next()
  // returns the next piece of text, at least one character, or nullopt once generation has
  // finished (InvalidStateError before any start()); result() holds the text, tokens, finish
  // reason and timings so far. Starting again abandons a generation in progress (its tokens
  // stay in the context). generate(), chat(), start() and startChat() throw TypeError for a
  // negative or non-finite temperature, topP outside (0, 1], a repetition penalty <= 0, or an
  // empty stop string.
  void start(std::string_view prompt, const GenerationOptions& options = {});
  void startChat(const std::vector<ChatMessage>& messages, const GenerationOptions& options = {});
  std::optional<std::string> next();
  // Ends the generation in progress as cancelled (next() then returns nullopt).
  void cancel();
  const GenerationResult& result() const;

  // Lower level: appends `tokens` to the context (prefill) and returns the logits of every
  // appended position, [tokens.size(), vocabularySize] row-major (`all_logits`) or of the last
  // one only. TypeError when the tokens do not fit in the cache or an id is out of range.
  std::vector<float> append(std::span<const int32_t> tokens, bool all_logits = false);
  // The tokens of the context: the prompts and the generated tokens so far.
  std::vector<int32_t> tokens() const;
  // Forgets everything after the first `length` tokens (0: an empty context).
  void rewind(size_t length);

 private:
  std::unique_ptr<detail::GeneratorState> state_;
};

}  // namespace cppnn

#pragma GCC visibility pop
