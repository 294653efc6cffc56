// Converting a GGUF language model into files every cppnn tool loads (`cppnn convert-gguf`):
// OUT.webnn (the step graph, decoder_graph.h, with its token dimension dyn("seq", chunk)),
// OUT.safetensors (its weights: block-quantized tensors as packed 4-bit or 8-bit integers with
// float32 scales) and OUT.llm.json (interface, tokenizer, chat template: llm_package.h), written
// together: all three land or none does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "src/llm/decoder_graph.h"

namespace cppnn::llm {

// The step graph's sizes (0: the defaults, min(trained context, 2048) and 32).
struct GgufConversionOptions {
  uint32_t capacity = 0;
  uint32_t chunk = 0;
  WeightForm weights = WeightForm::kKeep;  // --weights keep|float32|float16
};

// What a conversion wrote.
struct GgufConversionReport {
  std::string name, architecture;
  uint32_t layers = 0, capacity = 0, chunk = 0;
  std::vector<std::string> notes;   // the weight forms used, with tensor counts
  std::vector<std::string> unused;  // tensors of the file the graph does not use
  uint64_t gguf_bytes = 0, weights_bytes = 0;
  std::filesystem::path graph, weights, package;
};

// Converts `gguf` into `out` (.webnn text, or GraphJson when it ends in .json) and its sidecars.
// Throws DataError/NotSupportedError (naming the file and the tensor or key) for a model it
// cannot convert and DataError when a file cannot be written or an output is the input.
GgufConversionReport convert_gguf_file(const std::filesystem::path& gguf,
                                       const std::filesystem::path& out,
                                       const GgufConversionOptions& options);

}  // namespace cppnn::llm
