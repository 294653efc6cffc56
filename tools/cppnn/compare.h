// `cppnn compare` (compare.cpp): a converted ONNX model against ONNX Runtime on the original, or
// one graph on two backends, with every intermediate value exposed, reported per node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/onnx_import.h"
#include "tools/cppnn/cli_args.h"

namespace cppnn::tool::compare {

// The parsed command line.
struct Options {
  ParsedArgs args;  // as given (graph loading reads --weights, --override-dim from it)
  std::string path, backend, against;
  std::optional<double> atol, rtol;
  std::vector<std::pair<std::string, std::string>> input_files;  // NAME, FILE.npy
  OnnxImportOptions import;  // --override-dim, --input-shape, --input-value
  std::optional<std::filesystem::path> report;
  bool all = false;
  uint64_t seed = 1;
  std::optional<std::pair<std::string, double>> perturb;  // NODE, EPS
};

// MODEL.onnx converted and run on o.backend against ONNX Runtime on the original file.
int compare_onnx_model(const Options& o);
// GRAPH on o.backend against o.against.
int compare_backends(const Options& o);

// The bytes of every input of a built graph: --input NAME=FILE.npy where given (dtype and shape
// checked), else the generated values of `cppnn run --inputs random --seed N`. `aliases` maps
// other accepted names (ONNX names) to graph input names.
std::map<std::string, std::vector<std::byte>> input_values(
    const std::map<std::string, MLOperandDescriptor>& graph_inputs, const Options& o,
    const std::map<std::string, std::string>& aliases = {});

}  // namespace cppnn::tool::compare
