// TFLite export (cppnn extension): a graph as a TFLite flatbuffer model (`.tflite`, schema
// version 3) that LiteRT/TFLite runs with its builtin operators (XNNPACK where it applies), with
// WebNN semantics (src/export/tflite/lower.h) and deterministic bytes. The litert backend runs
// the same conversion at build(). docs/tflite-export.md lists the operators per WebNN op.
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

// One model input or output: its name (the WebNN name, also the signature's name), WebNN type
// and shape. The model's tensor has the same shape ([1] for a scalar: LiteRT's compiled model does
// not bind rank-0 signature tensors) and the type's TFLite element type (int8 / uint8 for int4 /
// uint4, unpacked one element per byte).
struct TfliteTensor {
  std::string name;
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;
};

// The inputs (graph order) and outputs (name order) of a written model.
struct TfliteModelInfo {
  std::vector<TfliteTensor> inputs;
  std::vector<TfliteTensor> outputs;
};

// Converts `graph` and writes the model to `path` atomically (a temporary file renamed into
// place). Throws NotSupportedError for an op or data type TFLite cannot express (naming the op
// and its label), DataError when the file cannot be written.
TfliteModelInfo save_tflite(const Graph& graph, const std::filesystem::path& path);
inline TfliteModelInfo save_tflite(const MLGraph& graph, const std::filesystem::path& path) {
  return save_tflite(graph.graph(), path);
}

}  // namespace cppnn

#pragma GCC visibility pop
