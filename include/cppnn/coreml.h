// CoreML export (cppnn extension): a graph as a CoreML ML Program package (`.mlpackage`:
// Manifest.json, Data/com.apple.CoreML/model.mlmodel, Data/com.apple.CoreML/weights/weight.bin),
// specification version 8, one MIL function `main` in opset CoreML7 (iOS17), with WebNN
// semantics exactly (src/export/coreml/lower.h) and deterministic bytes. The ops and data types
// MIL can express are listed in docs/coreml-export.md; running the package needs macOS, which
// this project cannot test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/graph.h"
#include "cppnn/graph_model.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// One graph input or output as the package declares it.
struct CoremlFeature {
  std::string name;     // the WebNN input or output name
  std::string feature;  // the package's feature name (a MIL identifier made from `name`)
  // The element type of the package's multi-array: the WebNN type, or int32 for int8/uint8
  // (CoreML's inputs and outputs have no 8-bit arrays; the program casts inside).
  MLOperandDataType packageType = MLOperandDataType::kFloat32;
  // The package's shape: the WebNN shape, or [1] for a scalar (CoreML's multi-arrays and MIL
  // function inputs have rank >= 1; the program reshapes inside).
  std::vector<uint32_t> packageShape;
};

// The features of a written package, in graph order (inputs) and name order (outputs).
struct CoremlPackageInfo {
  std::vector<CoremlFeature> inputs;
  std::vector<CoremlFeature> outputs;
};

// Converts `graph` and writes the package folder `path` (conventionally `NAME.mlpackage`). The
// package is written into a temporary folder beside `path` and renamed into place once complete;
// an existing package at `path` is replaced, any other existing file is a DataError. Throws
// NotSupportedError for an op or data type MIL cannot express (naming the op and its label).
CoremlPackageInfo save_coreml(const Graph& graph, const std::filesystem::path& path);
inline CoremlPackageInfo save_coreml(const MLGraph& graph, const std::filesystem::path& path) {
  return save_coreml(graph.graph(), path);
}

}  // namespace cppnn

#pragma GCC visibility pop
