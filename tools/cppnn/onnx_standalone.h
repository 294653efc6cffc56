// Runs an ONNX file in ONNX Runtime directly (its own session, no cppnn backend): the check that
// models written by save_onnx stand on their own. Available when the tool is built with ORT.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
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
// returns the bytes of each of `outputs`. Throws std::runtime_error with ORT's message.
std::map<std::string, std::vector<std::byte>> run_onnx_file(
    const std::filesystem::path& path, const std::map<std::string, NamedBytes>& inputs,
    const std::map<std::string, MLOperandDescriptor>& outputs);

}  // namespace cppnn::tool
