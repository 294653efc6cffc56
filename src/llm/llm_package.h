// MODEL.llm.json: what `cppnn convert-gguf` writes beside a converted step graph (MODEL.webnn +
// MODEL.safetensors) so that the model runs again without its GGUF file: the model's name and
// sizes, the step graph's interface (step_interface.h), the tokenizer (its GGUF metadata keys,
// tokenizer_spec_json.h) and the chat template.
//
//   {"format": "cppnn-llm", "version": 1, "name": "...", "architecture": "llama",
//    "layers": 30, "vocabulary": 49152, "notes": ["..."],
//    "interface": {"capacity": 2048, "chunk": 32, "token_dim": "seq", "input_ids": "input_ids",
//                  "position_ids": "position_ids", "mask": "cache_mask",
//                  "mask_kind": "cache-additive", "logits": "logits",
//                  "logits_index": "logits_index",  (optional)
//                  "cache": [{"past": "...", "present": "...", "seq_axis": 3,
//                             "present_offset": 0}, ...]},
//    "tokenizer": {"tokenizer.ggml.model": "gpt2", ...}, "chat_template": "..."}
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/llm/step_interface.h"
#include "src/llm/tokenizer_spec.h"

namespace cppnn::llm {

// The contents of an llm.json file.
struct LlmPackage {
  std::string name;
  std::string architecture;
  uint32_t layers = 0;
  uint32_t vocabulary = 0;
  std::vector<std::string> notes;
  StepInterface interface;
  TokenizerSpec tokenizer;
  std::optional<std::string> chat_template;
};

// The JSON text of `package` (deterministic: the same package gives the same bytes).
std::string llm_package_json(const LlmPackage& package);

// Parses an llm.json file (untrusted): DataError "llm.json error: <file>: <what>" for malformed
// JSON, a wrong format or version, missing or mistyped fields, or an inconsistent interface.
Result<LlmPackage> parse_llm_package(std::string_view json, std::string_view file_name);

// The llm.json path of a converted graph file: `model.webnn` -> `model.llm.json`.
std::string llm_package_path_for(const std::string& graph_path);

}  // namespace cppnn::llm
