// Runs an ONNX file in ONNX Runtime directly (its own session, no cppnn backend): the check that
// models written by save_onnx stand on their own. Available when the tool is built with ORT.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cppnn/descriptor.h"

namespace cppnn::tool {

// Whether this build can run ONNX files standalone.
bool standalone_ort_available();

// A named tensor for run_onnx_file: descriptor and bytes.
struct NamedBytes {
  MLOperandDescriptor descriptor;
  std::span<const std::byte> bytes;
};

// Loads `path` (with its external data) in a new ORT session, runs it once with `inputs` and
// returns the bytes of each of `outputs`. ORT allocates the outputs, so a model whose declared
// output shape is wrong (another rank than it computes) still runs; an output whose element
// count or type differs from the descriptor's is an error. Throws std::runtime_error with ORT's
// message.
std::map<std::string, std::vector<std::byte>> run_onnx_file(
    const std::filesystem::path& path, const std::map<std::string, NamedBytes>& inputs,
    const std::map<std::string, MLOperandDescriptor>& outputs);

// An input of an ONNX file as ORT reads it: its type (nullopt for one WebNN has no type for,
// such as bool or double) and declared dimensions (-1 for a free one).
struct OnnxFileInput {
  std::string name;
  std::optional<MLOperandDataType> dataType;
  std::vector<int64_t> dims;
};

// The inputs of `path` in the model's order (an ORT session's view, initializers excluded).
std::vector<OnnxFileInput> onnx_file_inputs(const std::filesystem::path& path);

}  // namespace cppnn::tool
