// A TokenizerSpec written as JSON: one object with the GGUF metadata keys of the tokenizer
// ("tokenizer.ggml.model", "tokenizer.ggml.tokens", ...; other keys are ignored). The tests use
// it to run Tokenizer::from_spec on a GGUF vocabulary dumped by llama.cpp's gguf-py, and
// `cppnn tokenize --spec-json` reads it.
#pragma once

#include <string_view>

#include "src/core/result.h"
#include "src/llm/tokenizer_spec.h"

namespace cppnn::llm {

// Parses the spec; wrong types are DataErrors naming the key.
Result<TokenizerSpec> tokenizer_spec_from_json(std::string_view json, std::string_view file_name);

}  // namespace cppnn::llm
