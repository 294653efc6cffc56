// The C API's text-generation handles (include/cppnn/cppnn.h "Text generation"): each wraps the
// C++ object of cppnn/llm.h it stands for, and the conversions shared by src/capi/llm*.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/cppnn.h"
#include "cppnn/llm.h"

// A model handle: the shared LanguageModel (its info's strings are returned as const char*) and
// its stop tokens (returned as a pointer).
struct cppnn_language_model {
  cppnn::LanguageModel model;
  std::vector<int32_t> stop_tokens;
};

// A generator handle: the Generator, its model's vocabulary size (to size append()'s logits),
// whether a generation was started (next() and result() need one) and the last piece next()
// returned (valid until the next call).
struct cppnn_generator {
  cppnn::Generator generator;
  uint32_t vocabulary_size = 0;
  bool started = false;
  std::string piece;
};

// A result handle: a copy of a GenerationResult.
struct cppnn_generation_result {
  cppnn::GenerationResult result;
};

namespace cppnn::capi {

// The conversation of `count` parallel role/content strings; TypeError naming `function` for a
// NULL array or entry.
std::vector<ChatMessage> chat_messages(const char* const* roles, const char* const* contents,
                                       size_t count, const char* function);
// GenerationOptions from the C struct (NULL: the defaults); TypeError naming `function` for a
// value the options do not allow (include/cppnn/cppnn.h cppnn_generation_options).
GenerationOptions generation_options(const cppnn_generation_options* options, const char* function);
// Copies `ids` out with the size convention of cppnn_language_model_tokenize: *count receives
// their number; `out` NULL with capacity 0 asks for the size only.
void copy_ids(const std::vector<int32_t>& ids, int32_t* out, size_t capacity, size_t* count,
              const char* function);

}  // namespace cppnn::capi
