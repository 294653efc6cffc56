// ONNX import (cppnn extension): an ONNX model (ai.onnx opset 7 and newer) turned into a WebNN
// graph recorded into an MLGraphBuilder, so it runs on every backend. Shape computations on
// constants (Shape, Gather, Slice, Concat, Cast, Unsqueeze, ConstantOfShape, Range, arithmetic
// ...) are folded while converting, so every reshape and resize size is static; free dimensions
// come from the options (see OnnxImportOptions). Unsupported models fail before anything is
// recorded with one NotSupportedError listing every unsupported operator with its count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// The value of a graph input fixed at conversion time: descriptor (the input's type) and bytes.
struct OnnxInputValue {
  MLOperandDescriptor descriptor;
  std::vector<std::byte> bytes;
};

// How free (symbolic or missing) dimensions and the model's inputs are resolved.
struct OnnxImportOptions {
  // Symbolic dimension name -> value (`--override-dim name=value`): looked up by exact name,
  // then lowercase name. Unresolved names fall back to batch-like defaults (batch_size, batch,
  // n, b -> 1; sequence_length, seq_len, seq, s, t -> 128; the leading dimension of an input of
  // rank >= 2 -> 1, with a warning), else the import fails with
  // "Dynamic dimensions require explicit overrides:" and one line per dimension.
  std::map<std::string, uint32_t> freeDimensions;
  // Graph input (ONNX name) -> its full static shape; beats freeDimensions for that input.
  std::map<std::string, std::vector<uint32_t>> inputShapes;
  // Graph input (ONNX name) -> its value, fixed at conversion time: the input leaves the graph
  // and is folded like an initializer. For inputs WebNN needs when the graph is built (axes,
  // target shapes, pads, k ...): a node that needs one at run time fails with "graph input 'x'
  // must be fixed at conversion". Values of another type are cast to the input's; a value with
  // as many elements as a static declared shape takes that shape.
  std::map<std::string, OnnxInputValue> inputValues;
  // Constant folding materialises results up to this many bytes; bigger results stay ops.
  uint64_t foldLimitBytes = uint64_t{64} << 20;
  // Record every node output in OnnxImportResult::values (`cppnn compare`); the recorded graph
  // is the same either way.
  bool recordValues = false;
};

// One ONNX node output as converted (OnnxImportOptions::recordValues): the operand of the
// model's builder that holds it at run time, or its value when it was folded at conversion.
struct OnnxImportedValue {
  MLOperandDescriptor descriptor;
  std::optional<MLOperand> operand;  // a run-time value (may be an input or shared by values)
  bool folded = false;               // computed at conversion: `constant` holds it
  ConstantData constant;
};

// What an import recorded.
struct OnnxImportResult {
  std::string graphName;    // the ONNX graph name, "graph" when it has none
  MLNamedOperands outputs;  // graph outputs by their (sanitized) names, for builder.build()
  // ONNX name -> name in the WebNN graph, in the model's order, without fixed inputs (names are
  // sanitized:
  // "::" -> "__", ":" -> "_", "." -> "_", other characters outside [A-Za-z0-9_/] -> "_").
  std::vector<std::pair<std::string, std::string>> inputNames, outputNames;
  std::vector<std::string> warnings;  // non-fatal findings (ignored attributes, ...)
  // With OnnxImportOptions::recordValues: ONNX value name -> every node output's conversion.
  std::map<std::string, OnnxImportedValue> values;
};

// Imports the model file `model` (external data resolved beside it) into `builder`. Throws
// DataError for a malformed or unreadable file, NotSupportedError listing unsupported operators
// or naming the node whose attributes WebNN cannot express, TypeError (from the builder) naming
// the node for an inconsistent model.
OnnxImportResult import_onnx(MLGraphBuilder& builder, const std::filesystem::path& model,
                             const OnnxImportOptions& options = {});
// The same for a serialized model; external data files are looked up in `base_dir`.
OnnxImportResult import_onnx_bytes(MLGraphBuilder& builder, std::span<const std::byte> model,
                                   const OnnxImportOptions& options = {},
                                   const std::filesystem::path& base_dir = {});

// The converted graph directly (the library form of `cppnn convert-onnx`): imported on a
// reference-backend builder and pruned to its outputs, with operand names kept for printing.
Graph onnx_to_graph(const std::filesystem::path& model, const OnnxImportOptions& options = {},
                    OnnxImportResult* result = nullptr);

// The name an ONNX value gets in a WebNN graph file (see OnnxImportResult).
std::string sanitize_onnx_name(const std::string& name);

}  // namespace cppnn

#pragma GCC visibility pop
