// The C API's generators and results (include/cppnn/cppnn.h "Text generation"): generate/chat
// with a callback, the pull-style start/next/cancel, append/tokens/rewind, over cppnn::Generator
// (cppnn/llm.h).
#include <cstring>
#include <optional>
#include <string>

#include "cppnn/errors.h"
#include "src/capi/handles.h"
#include "src/capi/llm_handles.h"
#include "src/core/checked_math.h"

using cppnn::capi::guard;
using cppnn::capi::require;

namespace {

// Runs the generation `g` has started to its end, giving each piece to `callback` (stopping as
// cancelled when it returns 0), and stores a copy of the result in *result when asked.
void drain(cppnn_generator& g, cppnn_text_callback callback, void* user_data,
           cppnn_generation_result** result) {
  while (std::optional<std::string> piece = g.generator.next()) {
    if (callback && callback(piece->c_str(), piece->size(), user_data) == 0) {
      g.generator.cancel();
      break;
    }
  }
  if (result) *result = new cppnn_generation_result{g.generator.result()};
}

// start() or startChat() through `begin`, recording whether it succeeded.
template <class F>
void start(cppnn_generator& g, F&& begin) {
  g.started = false;  // a failed start leaves no generation to continue
  g.piece.clear();
  begin();
  g.started = true;
}

// The number of logits append() returns for `count` tokens.
size_t logits_needed(const cppnn_generator& g, size_t count, bool all_logits,
                     const char* function) {
  if (!all_logits || count == 0) return g.vocabulary_size;
  const std::optional<uint64_t> n = cppnn::checked_mul(count, g.vocabulary_size);
  if (!n || *n > SIZE_MAX)
    throw cppnn::TypeError(std::string(function) + ": " + std::to_string(count) +
                           " tokens' logits overflow the address space");
  return static_cast<size_t>(*n);
}

}  // namespace

extern "C" {

cppnn_status cppnn_generator_create(cppnn_language_model* model, cppnn_generator** out,
                                    cppnn_error** error) {
  return guard(error, [&] {
    require(model, __func__, "the model");
    require(out, __func__, "the result pointer");
    *out = new cppnn_generator{
        cppnn::Generator(model->model), model->model.info().vocabularySize, false, {}};
  });
}

void cppnn_generator_destroy(cppnn_generator* generator) {
  delete generator;
}

cppnn_status cppnn_generator_generate(cppnn_generator* generator, const char* prompt,
                                      const cppnn_generation_options* options,
                                      cppnn_text_callback callback, void* user_data,
                                      cppnn_generation_result** result, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    require(prompt, __func__, "the prompt");
    const cppnn::GenerationOptions o = cppnn::capi::generation_options(options, __func__);
    start(*generator, [&] { generator->generator.start(prompt, o); });
    drain(*generator, callback, user_data, result);
  });
}

cppnn_status cppnn_generator_chat(cppnn_generator* generator, const char* const* roles,
                                  const char* const* contents, size_t count,
                                  const cppnn_generation_options* options,
                                  cppnn_text_callback callback, void* user_data,
                                  cppnn_generation_result** result, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    const std::vector<cppnn::ChatMessage> messages =
        cppnn::capi::chat_messages(roles, contents, count, __func__);
    const cppnn::GenerationOptions o = cppnn::capi::generation_options(options, __func__);
    start(*generator, [&] { generator->generator.startChat(messages, o); });
    drain(*generator, callback, user_data, result);
  });
}

cppnn_status cppnn_generator_start(cppnn_generator* generator, const char* prompt,
                                   const cppnn_generation_options* options, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    require(prompt, __func__, "the prompt");
    const cppnn::GenerationOptions o = cppnn::capi::generation_options(options, __func__);
    start(*generator, [&] { generator->generator.start(prompt, o); });
  });
}

cppnn_status cppnn_generator_start_chat(cppnn_generator* generator, const char* const* roles,
                                        const char* const* contents, size_t count,
                                        const cppnn_generation_options* options,
                                        cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    const std::vector<cppnn::ChatMessage> messages =
        cppnn::capi::chat_messages(roles, contents, count, __func__);
    const cppnn::GenerationOptions o = cppnn::capi::generation_options(options, __func__);
    start(*generator, [&] { generator->generator.startChat(messages, o); });
  });
}

cppnn_status cppnn_generator_next(cppnn_generator* generator, const char** piece, size_t* length,
                                  bool* done, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    require(piece, __func__, "the piece pointer");
    require(length, __func__, "the length pointer");
    require(done, __func__, "the done pointer");
    if (!generator->started)
      throw cppnn::InvalidStateError(std::string(__func__) +
                                     ": no generation was started (cppnn_generator_start)");
    std::optional<std::string> next = generator->generator.next();
    generator->piece = next ? std::move(*next) : std::string();
    *piece = generator->piece.c_str();
    *length = generator->piece.size();
    *done = !next.has_value();
  });
}

cppnn_status cppnn_generator_cancel(cppnn_generator* generator, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    generator->generator.cancel();
  });
}

cppnn_status cppnn_generator_result(const cppnn_generator* generator, cppnn_generation_result** out,
                                    cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    require(out, __func__, "the result pointer");
    if (!generator->started)
      throw cppnn::InvalidStateError(std::string(__func__) + ": no generation was started");
    *out = new cppnn_generation_result{generator->generator.result()};
  });
}

cppnn_status cppnn_generator_append(cppnn_generator* generator, const int32_t* tokens, size_t count,
                                    bool all_logits, float* logits, size_t capacity,
                                    size_t* logits_count, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    if (count > 0) require(tokens, __func__, "the tokens");
    if (!logits && capacity != 0)
      throw cppnn::TypeError(std::string(__func__) + ": the logits are NULL with a capacity of " +
                             std::to_string(capacity));
    const size_t needed = logits_needed(*generator, count, all_logits, __func__);
    if (logits && capacity < needed)
      throw cppnn::TypeError(std::string(__func__) + ": " + std::to_string(needed) +
                             " logits do not fit in a capacity of " + std::to_string(capacity));
    const std::vector<float> out =
        generator->generator.append(std::span<const int32_t>(tokens, count), all_logits);
    if (logits) {
      if (out.size() > capacity)  // cannot happen: `needed` is what append() returns
        throw cppnn::UnknownError(std::string(__func__) + ": append returned " +
                                  std::to_string(out.size()) + " logits, more than expected");
      if (!out.empty()) std::memcpy(logits, out.data(), out.size() * sizeof(float));
    }
    if (logits_count) *logits_count = out.size();
  });
}

cppnn_status cppnn_generator_tokens(const cppnn_generator* generator, int32_t* ids, size_t capacity,
                                    size_t* count, cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    cppnn::capi::copy_ids(generator->generator.tokens(), ids, capacity, count, __func__);
  });
}

cppnn_status cppnn_generator_rewind(cppnn_generator* generator, size_t length,
                                    cppnn_error** error) {
  return guard(error, [&] {
    require(generator, __func__, "the generator");
    generator->generator.rewind(length);
  });
}

const char* cppnn_generation_result_text(const cppnn_generation_result* result, size_t* length) {
  if (length) *length = result ? result->result.text.size() : 0;
  return result ? result->result.text.c_str() : "";
}

const int32_t* cppnn_generation_result_tokens(const cppnn_generation_result* result,
                                              size_t* count) {
  if (count) *count = result ? result->result.tokens.size() : 0;
  return result && !result->result.tokens.empty() ? result->result.tokens.data() : nullptr;
}

const char* cppnn_generation_result_finish_reason(const cppnn_generation_result* result) {
  // The names are string literals (NUL-terminated string_views).
  return result ? cppnn::finish_reason_name(result->result.finishReason).data() : "";
}

cppnn_generation_stats cppnn_generation_result_stats(const cppnn_generation_result* result) {
  if (!result) return cppnn_generation_stats{0, 0, 0, 0.0, 0.0};
  const cppnn::GenerationStats& s = result->result.stats;
  return cppnn_generation_stats{s.promptTokens, s.reusedTokens, s.generatedTokens, s.promptSeconds,
                                s.generateSeconds};
}

void cppnn_generation_result_destroy(cppnn_generation_result* result) {
  delete result;
}

}  // extern "C"
