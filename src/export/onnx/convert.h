// Graph -> ONNX ModelProto (opset 17, IR 8): inputs, constants (small ones embedded, large ones
// as external data that the caller places: a file for save_onnx, the graph's own bytes for the
// ORT backend), the lowered operations and the named outputs. Deterministic: the same graph
// always gives the same bytes.
#pragma once

#include <memory>
#include <vector>

#include "cppnn/graph_model.h"
#include "onnx/onnx_pb.h"
#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

// A converted model and the constants it refers to as external data.
struct Conversion {
  onnx::ModelProto model;
  std::vector<ExternalConstant> externals;
  // The graph the model was converted from when onnx_target()'s passes rewrote `graph`
  // (operations without a direct lowering decomposed, batch normalization folded into a
  // convolution): it keeps the externals' bytes alive. Null otherwise.
  std::shared_ptr<const Graph> decomposed;
};

// Converts `graph`, first running onnx_target()'s passes (target.h: decompositions of what does
// not fit, batch-norm folding; no copy when nothing changes). Throws NotSupportedError or
// OperationError naming the op and its label.
Conversion convert_graph(const Graph& graph, const EmitOptions& options);

// Node name -> WebNN operation index ("conv2d#3.1" -> 3), or -1 when `name` is not ours.
long operation_of_node(std::string_view node_name);

}  // namespace cppnn::onnx_export
