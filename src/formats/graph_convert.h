// Document <-> cppnn Graph (webnn-graph-format.md "cppnn: from a file to the graph model").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"
#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// Validates `doc` (§6.1) and records it into `builder`: inputs (dynamic dims at their maximum,
// with their names kept), constants (inline inits here, `weights` inits from `weights`), then
// each node through call_builder_method, so every builder error surfaces with the node's id and
// position prefixed ("<file>:3:5: node 'y': conv2d: ..." for text, "node 'y' (nodes[2]): ..."
// for JSON). Operands get the document's names. `weights` may be null when the document has no
// `weights` initializers. Returns the named outputs, ready for builder.build(). Errors keep the
// builder's error kind (TypeError ...); document errors are DataErrors.
Result<MLNamedOperands> record_graph_doc(const GraphDoc& doc, MLGraphBuilder& builder,
                                         WeightsSource* weights, std::string_view file_name = {});

// How graph_to_doc() writes what a Graph does not record.
struct GraphToDocOptions {
  std::string name = "graph";
  uint32_t version = 0;               // 0: 2 when an input has a dynamic dimension, else 1
  std::optional<bool> quantized;      // absent: true when an operand is int4/uint4
  uint64_t max_inline_bytes = 65536;  // larger constants without a weight ref: @weights(name)
};

// A document for any Graph (built, or recorded through the API): unnamed operands get
// deterministic names (`<op>_<index>`, constants `const_<index>`); options are written only where
// they differ from the spec defaults; positional parameters use the spec's parameter names.
Result<GraphDoc> graph_to_doc(const Graph& graph, const GraphToDocOptions& options = {});

}  // namespace cppnn::formats
