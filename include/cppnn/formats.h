// Graph files (cppnn extension): the .webnn text DSL and GraphJson of webnn-graph
// (webnn-graph-format.md), read into an MLGraphBuilder through the same validation as API calls,
// and any Graph printed back. Every function throws cppnn::DataError for a malformed file
// ("parse error: <file>:<line>:<col>: ..." for text, "JSON error: <file>: <json path>: ..." for
// JSON) and the builder's own errors (TypeError ...) prefixed with the node for invalid graphs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// Supplies the bytes of a `@weights("ref")` constant `name` declared as `descriptor` (4-bit
// types packed, ceil(n/2) bytes). Throws DataError when it cannot.
using WeightLoader = std::function<ConstantData(const std::string& name, const std::string& ref,
                                                const MLOperandDescriptor& descriptor)>;

// Non-fatal findings (a repeated declaration, a dropped positional literal, an alias node
// written as text), one message each.
using FormatWarnings = std::vector<std::string>;

// `webnn-graph parse`: .webnn text -> canonical GraphJson (§4.2, no trailing newline).
std::string webnn_text_to_json(std::string_view text, std::string_view file_name = "<text>",
                               FormatWarnings* warnings = nullptr);
// `webnn-graph serialize`: GraphJson -> canonical .webnn text (§5.1). `force_quantized` writes
// `@quantized`. Throws DataError for what text cannot express (§5.3).
std::string graph_json_to_webnn_text(std::string_view json, std::string_view file_name = "<json>",
                                     bool force_quantized = false,
                                     FormatWarnings* warnings = nullptr);
// A text or JSON graph file (auto-detected, §8) -> canonical .webnn text.
std::string format_webnn_text(std::string_view content, std::string_view file_name = "<input>",
                              FormatWarnings* warnings = nullptr);
// A text or JSON graph file (auto-detected) -> canonical GraphJson.
std::string format_graph_json(std::string_view content, std::string_view file_name = "<input>",
                              FormatWarnings* warnings = nullptr);
// `webnn-graph validate`: parses (auto-detected) and runs the structural checks of §6.1.
void validate_graph_file(std::string_view content, std::string_view file_name = "<input>",
                         FormatWarnings* warnings = nullptr);

// Records a text or JSON graph file into `builder` (inputs, constants, then every node through
// the builder's validation) and returns its named outputs for builder.build(). `weights`
// supplies `@weights` constants; without it they are an error.
MLNamedOperands load_graph_file(MLGraphBuilder& builder, std::string_view content,
                                std::string_view file_name = "<input>",
                                const WeightLoader& weights = {},
                                FormatWarnings* warnings = nullptr);

// What printing a Graph writes where the Graph records nothing.
struct GraphFileOptions {
  std::string name = "graph";         // the header's graph name
  uint32_t version = 0;               // 0: 2 when an input has a dynamic dimension, else 1
  std::optional<bool> quantized;      // absent: true when an operand is int4/uint4
  uint64_t max_inline_bytes = 65536;  // bigger constants without a weight ref: @weights(name)
};

// Any Graph (built, or recorded through the API) as canonical .webnn text or GraphJson. Operands
// without a name get deterministic ones; options are written where they differ from the spec
// defaults.
std::string graph_to_webnn_text(const Graph& graph, const GraphFileOptions& options = {},
                                FormatWarnings* warnings = nullptr);
std::string graph_to_graph_json(const Graph& graph, const GraphFileOptions& options = {});

// Saves `graph` as a graph file with its weights: `path` as .webnn text (GraphJson when it ends
// in `.json`), every constant over options.max_inline_bytes or loaded from a weights file as
// `@weights("<name>")` in `<stem>.safetensors` beside it, where loading finds it again (§7.1).
// Both files are written atomically and land together, or neither does (DataError).
void save_graph_file(const Graph& graph, const std::filesystem::path& path,
                     const GraphFileOptions& options = {});

}  // namespace cppnn

#pragma GCC visibility pop
