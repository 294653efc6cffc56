// The C API's language models (include/cppnn/cppnn.h "Text generation"): loading, the model's
// info, tokenize/detokenize and the chat template, over cppnn::LanguageModel (cppnn/llm.h).
#include <cstring>
#include <string>

#include "cppnn/errors.h"
#include "src/capi/handles.h"
#include "src/capi/llm_handles.h"

using cppnn::capi::guard;
using cppnn::capi::require;

namespace cppnn::capi {

std::vector<ChatMessage> chat_messages(const char* const* roles, const char* const* contents,
                                       size_t count, const char* function) {
  std::vector<ChatMessage> out;
  if (count == 0) return out;
  require(roles, function, "the roles");
  require(contents, function, "the contents");
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string index = "[" + std::to_string(i) + "]";
    require(roles[i], function, ("roles" + index).c_str());
    require(contents[i], function, ("contents" + index).c_str());
    out.push_back({roles[i], contents[i]});
  }
  return out;
}

void copy_ids(const std::vector<int32_t>& ids, int32_t* out, size_t capacity, size_t* count,
              const char* function) {
  require(count, function, "the count pointer");
  *count = ids.size();
  if (!out) {
    if (capacity != 0)
      throw TypeError(std::string(function) + ": the ids are NULL with a capacity of " +
                      std::to_string(capacity));
    return;
  }
  if (capacity < ids.size())
    throw TypeError(std::string(function) + ": " + std::to_string(ids.size()) +
                    " ids do not fit in a capacity of " + std::to_string(capacity));
  if (!ids.empty()) std::memcpy(out, ids.data(), ids.size() * sizeof(int32_t));
}

}  // namespace cppnn::capi

namespace {

// The model's info, or nullptr for a NULL handle.
const cppnn::LanguageModelInfo* info_of(const cppnn_language_model* model) noexcept {
  return model ? &model->model.info() : nullptr;
}

}  // namespace

extern "C" {

void cppnn_language_model_options_init(cppnn_language_model_options* options) {
  if (!options) return;
  *options = cppnn_language_model_options{nullptr, 0, 0, 0, nullptr, nullptr};
}

cppnn_status cppnn_language_model_load(const char* path,
                                       const cppnn_language_model_options* options,
                                       cppnn_language_model** out, cppnn_error** error) {
  return guard(error, [&] {
    require(path, __func__, "the path");
    require(out, __func__, "the result pointer");
    cppnn::LanguageModelOptions o;
    if (options) {
      if (options->backend) o.backend = options->backend;
      o.numThreads = options->num_threads;
      o.contextLength = options->context_length;
      o.prefillChunk = options->prefill_chunk;
      if (options->tokenizer_path) o.tokenizer = options->tokenizer_path;
      if (options->chat_template_path) o.chatTemplate = options->chat_template_path;
    }
    cppnn::LanguageModel model = cppnn::LanguageModel::load(path, o);
    std::vector<int32_t> stops = model.stopTokens();
    *out = new cppnn_language_model{std::move(model), std::move(stops)};
  });
}

void cppnn_language_model_destroy(cppnn_language_model* model) {
  delete model;
}

const char* cppnn_language_model_name(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->name.c_str() : nullptr;
}

const char* cppnn_language_model_architecture(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->architecture.c_str() : nullptr;
}

const char* cppnn_language_model_backend(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->backend.c_str() : nullptr;
}

uint32_t cppnn_language_model_layers(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->layers : 0;
}

uint32_t cppnn_language_model_vocabulary_size(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->vocabularySize : 0;
}

uint32_t cppnn_language_model_context_length(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->contextLength : 0;
}

uint32_t cppnn_language_model_prefill_chunk(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->prefillChunk : 0;
}

size_t cppnn_language_model_note_count(const cppnn_language_model* model) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info ? info->notes.size() : 0;
}

const char* cppnn_language_model_note(const cppnn_language_model* model, size_t index) {
  const cppnn::LanguageModelInfo* info = info_of(model);
  return info && index < info->notes.size() ? info->notes[index].c_str() : nullptr;
}

const int32_t* cppnn_language_model_stop_tokens(const cppnn_language_model* model, size_t* count) {
  if (count) *count = model ? model->stop_tokens.size() : 0;
  return model && !model->stop_tokens.empty() ? model->stop_tokens.data() : nullptr;
}

cppnn_status cppnn_language_model_tokenize(const cppnn_language_model* model, const char* text,
                                           bool add_special, bool parse_special, int32_t* ids,
                                           size_t capacity, size_t* count, cppnn_error** error) {
  return guard(error, [&] {
    require(model, __func__, "the model");
    require(text, __func__, "the text");
    require(count, __func__, "the count pointer");
    cppnn::capi::copy_ids(model->model.tokenize(text, add_special, parse_special), ids, capacity,
                          count, __func__);
  });
}

cppnn_status cppnn_language_model_detokenize(const cppnn_language_model* model, const int32_t* ids,
                                             size_t count, bool skip_special, char** text,
                                             size_t* length, cppnn_error** error) {
  return guard(error, [&] {
    require(model, __func__, "the model");
    require(text, __func__, "the result pointer");
    if (count > 0) require(ids, __func__, "the ids");
    const std::string s =
        model->model.detokenize(std::span<const int32_t>(ids, count), skip_special);
    *text = cppnn::capi::copy_string(s);
    if (length) *length = s.size();
  });
}

cppnn_status cppnn_language_model_apply_chat_template(const cppnn_language_model* model,
                                                      const char* const* roles,
                                                      const char* const* contents, size_t count,
                                                      bool add_generation_prompt, char** text,
                                                      cppnn_error** error) {
  return guard(error, [&] {
    require(model, __func__, "the model");
    require(text, __func__, "the result pointer");
    const std::string s = model->model.applyChatTemplate(
        cppnn::capi::chat_messages(roles, contents, count, __func__), add_generation_prompt);
    *text = cppnn::capi::copy_string(s);
  });
}

}  // extern "C"
