// The ONNX model edits of `cppnn compare`, on a ModelProto in memory (the file is never
// written): every node output made a graph output (for ONNX Runtime), a node's output perturbed
// by a constant (--perturb, the debugging aid that proves the report finds an injected error),
// and the graph inputs as ORT is fed them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/onnx_import.h"
#include "onnx/onnx_pb.h"

namespace cppnn::tool::compare {

// A node's label as the importer names it (NodeContext::label()): its name, or "<OpType>#<index>"
// when it has none.
std::string node_label(const onnx::NodeProto& node, size_t index);

// The index of the main-graph node labelled or named `node`; DataError naming the model's first
// few nodes when there is none.
size_t find_node(const onnx::GraphProto& graph, const std::string& node);

// Adds every output of every main-graph node that is not a graph output yet as a graph output
// (name only: ORT infers the type). Returns every node output in node order, the original graph
// outputs included (the names to fetch).
std::vector<std::string> expose_node_outputs(onnx::ModelProto& model);

// Node `index`'s first output X becomes `X + eps` for later nodes and the graph outputs: the
// node writes X__cppnn_unperturbed and an Add node right after it, labelled like the node,
// writes X. `float16` picks the constant's type (else float32).
void perturb_node(onnx::ModelProto& model, size_t index, double eps, bool float16);

// The ONNX element type and declared dimensions (-1 for a free one) of graph input `name`
// (type 0 and no dimensions when the model does not declare them).
struct DeclaredInput {
  int type = 0;
  std::vector<int64_t> dims;
};
DeclaredInput declared_input(const onnx::GraphProto& graph, const std::string& name);

// A --input-value as ORT is fed it: the value cast to the input's declared type (int64 for an
// undeclared one), shaped as declared when that shape is static and holds as many elements
// ([n] otherwise), as fixed_input_value of the importer does. NotSupportedError for a declared
// type without numbers.
struct FixedFeed {
  int type = 0;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;
};
FixedFeed fixed_feed(const onnx::GraphProto& graph, const std::string& name,
                     const OnnxInputValue& value);

}  // namespace cppnn::tool::compare
