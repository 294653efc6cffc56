// Generator (include/cppnn/llm.h): prefill in chunks, the decode loop, sampling, stop tokens
// and strings, streaming, and chat turns that keep the cached prefix.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "cppnn/errors.h"
#include "cppnn/llm.h"
#include "src/llm/model_state.h"
#include "src/llm/step_runner.h"

namespace cppnn {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The length of the longest prefix of `text` that is also a prefix of one of `stops` and runs
// to the end of `text` (text that may still become a stop string).
size_t held_back(std::string_view text, const std::vector<std::string>& stops) {
  size_t hold = 0;
  for (const std::string& s : stops) {
    for (size_t k = std::min(s.size() - 1, text.size()); k > hold; --k)
      if (text.substr(text.size() - k) == std::string_view(s).substr(0, k)) {
        hold = k;
        break;
      }
  }
  return hold;
}

}  // namespace

std::string_view finish_reason_name(FinishReason r) noexcept {
  switch (r) {
    case FinishReason::kStopToken:
      return "stop";
    case FinishReason::kStopString:
      return "stop-string";
    case FinishReason::kMaxTokens:
      return "length";
    case FinishReason::kContextFull:
      return "context-full";
    case FinishReason::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

Generator::Generator(const LanguageModel& model)
    : state_(std::make_unique<detail::GeneratorState>()) {
  state_->model = model.state();
  state_->cache = llm::make_cache(*state_->model);
  state_->sampler = std::make_unique<llm::Sampler>(0);
}

Generator::~Generator() = default;
Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;

std::vector<int32_t> Generator::tokens() const {
  std::vector<int32_t> all = state_->tokens;
  all.insert(all.end(), state_->pending.begin(), state_->pending.end());
  return all;
}

void Generator::rewind(size_t length) {
  detail::GeneratorState& g = *state_;
  // Pending tokens are not in the cache: keep those within `length`.
  const size_t total = g.tokens.size() + g.pending.size();
  if (length >= total) return;
  if (length <= g.tokens.size()) {
    g.tokens.resize(length);
    g.pending.clear();
  } else {
    g.pending.resize(length - g.tokens.size());
  }
}

std::vector<float> Generator::append(std::span<const int32_t> tokens, bool all_logits) {
  detail::GeneratorState& g = *state_;
  const detail::LanguageModelState& m = *g.model;
  const uint32_t vocab = m.info.vocabularySize;
  for (int32_t t : tokens)
    if (t < 0 || static_cast<uint32_t>(t) >= vocab)
      throw TypeError("Generator::append: token " + std::to_string(t) +
                      " is outside the vocabulary (" + std::to_string(vocab) + " tokens)");
  // The pending tokens run first (their logits are not returned).
  std::vector<int32_t> run = g.pending;
  const size_t skip = run.size();
  run.insert(run.end(), tokens.begin(), tokens.end());
  if (run.empty()) throw TypeError("Generator::append: no tokens");
  if (g.tokens.size() + run.size() > m.interface.capacity)
    throw TypeError("Generator::append: " + std::to_string(run.size()) + " tokens after " +
                    std::to_string(g.tokens.size()) + " exceed the context of " +
                    std::to_string(m.interface.capacity) + " tokens");
  std::vector<float> out;
  size_t done = 0;
  while (done < run.size()) {
    const size_t left = run.size() - done;
    // A graph giving the last token's logits alone gives every position's one token at a time
    // (from the first token whose logits are wanted).
    const bool one = left == 1 || (all_logits && !m.interface.logits_index.empty() &&
                                   done + std::min<size_t>(left, m.interface.chunk) > skip);
    std::unique_ptr<detail::StepTensors>& step = one ? g.decode : g.prefill;
    if (!step)
      step = llm::make_step_tensors(m, one ? *m.decode : *m.prefill, one ? 1 : m.interface.chunk,
                                    g.cache);
    const size_t n = std::min<size_t>(left, step->tokens);
    const bool want_all = all_logits && done + n > skip;
    std::vector<float> logits = llm::run_step(m, *step, g.cache, std::span(run).subspan(done, n),
                                              static_cast<uint32_t>(g.tokens.size()), want_all);
    g.tokens.insert(g.tokens.end(), run.begin() + static_cast<std::ptrdiff_t>(done),
                    run.begin() + static_cast<std::ptrdiff_t>(done + n));
    if (want_all) {
      const size_t first = done >= skip ? 0 : skip - done;  // rows of pending tokens dropped
      out.insert(out.end(), logits.begin() + static_cast<std::ptrdiff_t>(first * vocab),
                 logits.end());
    } else if (done + n == run.size()) {
      out = std::move(logits);
    }
    done += n;
  }
  g.pending.clear();
  return out;
}

namespace {

// TypeError for options no generation can follow (the bindings and the CLI check them too).
void check_options(const GenerationOptions& o) {
  if (!(o.temperature >= 0.0f) || !std::isfinite(o.temperature))
    throw TypeError("generate: temperature " + std::to_string(o.temperature) +
                    " must be a finite number >= 0");
  if (!(o.topP > 0.0f && o.topP <= 1.0f))
    throw TypeError("generate: topP " + std::to_string(o.topP) + " must be in (0, 1]");
  if (!(o.repetitionPenalty > 0.0f) || !std::isfinite(o.repetitionPenalty))
    throw TypeError("generate: repetitionPenalty " + std::to_string(o.repetitionPenalty) +
                    " must be a finite number > 0");
  for (const std::string& s : o.stop)
    if (s.empty()) throw TypeError("generate: a stop string is empty");
}

// Starts a generation after `prompt` tokens (`reused` of the context kept from before).
void begin(Generator& gen, detail::GeneratorState& g, std::span<const int32_t> prompt,
           const GenerationOptions& options, uint32_t reused) {
  check_options(options);
  detail::ActiveGeneration& a = g.active;
  a = detail::ActiveGeneration{};
  a.options = options;
  a.params = {options.temperature, options.topK, options.topP, options.repetitionPenalty,
              options.repetitionWindow};
  a.result.stats.reusedTokens = reused;
  a.result.stats.promptTokens = static_cast<uint32_t>(prompt.size() + g.pending.size());
  a.finished = true;  // until the prefill succeeds
  g.sampler = std::make_unique<llm::Sampler>(options.seed ? *options.seed : std::random_device{}());
  const Clock::time_point start = Clock::now();
  a.logits = gen.append(prompt);
  a.result.stats.promptSeconds = seconds_since(start);
  a.decoder.emplace(*g.model->tokenizer, llm::DecodeOptions{.skip_special = true});
  a.start = Clock::now();
  a.finished = false;
}

// Ends the generation: the held-back text is given out unless a stop string or a cancel ended it.
std::optional<std::string> finish(detail::ActiveGeneration& a, FinishReason reason) {
  a.finished = true;
  a.result.finishReason = reason;
  std::string rest;
  if (reason != FinishReason::kStopString && reason != FinishReason::kCancelled)
    rest = a.held + a.decoder->finish();
  a.held.clear();
  a.result.text += rest;
  a.result.stats.generatedTokens = static_cast<uint32_t>(a.result.tokens.size());
  a.result.stats.generateSeconds = seconds_since(a.start);
  if (rest.empty()) return std::nullopt;
  return rest;
}

}  // namespace

void Generator::start(std::string_view prompt, const GenerationOptions& options) {
  detail::GeneratorState& g = *state_;
  const bool empty = g.tokens.empty() && g.pending.empty();
  std::vector<int32_t> ids = g.model->tokenizer->encode(
      prompt, llm::EncodeOptions{.parse_special = true, .add_special = empty});
  if (ids.empty() && g.pending.empty()) {
    if (g.tokens.empty()) throw TypeError("generate: the prompt is empty");
    // Nothing new: continue from the last token's logits by running it again.
    ids.push_back(g.tokens.back());
    g.tokens.pop_back();
  }
  begin(*this, g, ids, options, 0);
}

void Generator::startChat(const std::vector<ChatMessage>& messages,
                          const GenerationOptions& options) {
  detail::GeneratorState& g = *state_;
  const std::string prompt = detail::apply_chat_template(*g.model, messages, true);
  std::vector<int32_t> ids = detail::tokenize(*g.model, prompt, true, true);
  if (ids.empty()) throw TypeError("chat: the conversation renders to no tokens");
  // Keep the longest common prefix of the context (cached and pending tokens) and the prompt;
  // at least one prompt token is run, for its logits.
  std::vector<int32_t> context = g.tokens;
  context.insert(context.end(), g.pending.begin(), g.pending.end());
  size_t common = 0;
  while (common < context.size() && common < ids.size() && context[common] == ids[common]) ++common;
  common = std::min(common, ids.size() - 1);
  rewind(common);
  const size_t cached = std::min(common, g.tokens.size());
  begin(*this, g, std::span(ids).subspan(common), options, static_cast<uint32_t>(cached));
}

std::optional<std::string> Generator::next() {
  detail::GeneratorState& g = *state_;
  detail::ActiveGeneration& a = g.active;
  if (!a.decoder) throw InvalidStateError("Generator::next: no generation was started");
  const detail::LanguageModelState& m = *g.model;
  while (!a.finished) {
    if (a.result.tokens.size() >= a.options.maxTokens) return finish(a, FinishReason::kMaxTokens);
    if (g.tokens.size() + g.pending.size() >= m.interface.capacity)
      return finish(a, FinishReason::kContextFull);
    if (!a.result.tokens.empty()) a.logits = append({});  // the last sampled token's logits
    const int32_t token = g.sampler->sample(a.logits, g.tokens, a.params);
    a.result.tokens.push_back(token);
    g.pending.push_back(token);
    if (!a.options.ignoreEos &&
        std::find(m.stop_tokens.begin(), m.stop_tokens.end(), token) != m.stop_tokens.end())
      return finish(a, FinishReason::kStopToken);
    a.held += a.decoder->push(token);
    size_t stop_at = std::string::npos;
    for (const std::string& s : a.options.stop) stop_at = std::min(stop_at, a.held.find(s));
    if (stop_at != std::string::npos) {
      std::string piece = a.held.substr(0, stop_at);
      a.result.text += piece;
      a.held.clear();
      finish(a, FinishReason::kStopString);
      if (piece.empty()) return std::nullopt;
      return piece;
    }
    const size_t keep = held_back(a.held, a.options.stop);
    if (a.held.size() > keep) {
      std::string piece = a.held.substr(0, a.held.size() - keep);
      a.held.erase(0, piece.size());
      a.result.text += piece;
      return piece;
    }
  }
  return std::nullopt;
}

void Generator::cancel() {
  detail::ActiveGeneration& a = state_->active;
  if (!a.finished && a.decoder) finish(a, FinishReason::kCancelled);
}

const GenerationResult& Generator::result() const {
  return state_->active.result;
}

namespace {

// Runs a started generation to its end, giving each piece to `callback`.
GenerationResult drain(Generator& gen, const TextCallback& callback) {
  while (std::optional<std::string> piece = gen.next()) {
    if (callback && !callback(*piece)) {
      gen.cancel();
      break;
    }
  }
  return gen.result();
}

}  // namespace

GenerationResult Generator::generate(std::string_view prompt, const GenerationOptions& options,
                                     const TextCallback& callback) {
  start(prompt, options);
  return drain(*this, callback);
}

GenerationResult Generator::chat(const std::vector<ChatMessage>& messages,
                                 const GenerationOptions& options, const TextCallback& callback) {
  startChat(messages, options);
  return drain(*this, callback);
}

}  // namespace cppnn
