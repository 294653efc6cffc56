// ONNX Runtime for `cppnn compare`: a serialized model (the original with every intermediate
// value made a graph output, compare_proto.h) run once in its own session with ORT's graph
// optimizations off, so each node's value is the one its own kernel computes; ORT allocates the
// outputs, so their shapes and types come back as ORT computed them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace cppnn::tool::compare {

// Whether this build has ONNX Runtime.
bool ort_available();

// An input fed to ORT: ONNX element type, shape and bytes.
struct OrtFeed {
  int type = 0;
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;
};

// A tensor ORT returned: ONNX element type, shape and bytes.
struct OrtTensor {
  int type = 0;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;
};

// Runs `model` (external data looked up in `base_dir`) with `inputs` and returns each of
// `outputs` that came back as a numeric tensor (sequences, optionals and string tensors are
// left out). Throws std::runtime_error with ORT's message.
std::map<std::string, OrtTensor> run_ort(std::span<const std::byte> model,
                                         const std::filesystem::path& base_dir,
                                         const std::map<std::string, OrtFeed>& inputs,
                                         const std::vector<std::string>& outputs);

}  // namespace cppnn::tool::compare
