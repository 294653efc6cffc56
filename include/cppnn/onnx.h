// ONNX export (cppnn extension): a graph as an ONNX model (opset 17, IR 8) that ONNX Runtime and
// the ONNX checker accept on their own. The conversion keeps WebNN semantics exactly (see
// src/export/onnx/lower.h) and is deterministic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "cppnn/graph.h"
#include "cppnn/graph_model.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

struct OnnxExportOptions {
  // Constants of at least this many bytes go to the external-data file `<model>.data` (0: embed
  // every constant in the .onnx file).
  uint64_t externalDataThreshold = 1024;
};

// Converts `graph` and writes `path` plus, when any constant is external, `path` + ".data"
// beside it. Both files are written to temporary names in the destination folder and renamed
// once complete: on failure nothing is left behind. Throws NotSupportedError for an op or type
// ONNX cannot express (naming the op and its label), DataError for I/O failures.
void save_onnx(const Graph& graph, const std::filesystem::path& path,
               const OnnxExportOptions& options = {});
inline void save_onnx(const MLGraph& graph, const std::filesystem::path& path,
                      const OnnxExportOptions& options = {}) {
  save_onnx(graph.graph(), path, options);
}

// The serialized model with every constant embedded (for small graphs and tests).
std::string to_onnx_bytes(const Graph& graph);

// Runs ONNX's model checker (full check, opset ≤ 17) and strict shape inference on the
// conversion of `graph`; throws OperationError with the checker's message when it rejects it.
void check_onnx(const Graph& graph);

}  // namespace cppnn

#pragma GCC visibility pop
