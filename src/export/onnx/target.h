// The ONNX export's native support as a BackendDescriptor (design.md "Capabilities are data"):
// every op with the spec's limits, except the operations whose WebNN semantics the one ONNX node
// would get wrong. convert_graph() decomposes those first (src/passes/decompose.h), and the ORT
// backend, which runs the converted model, declares the same support.
#pragma once

#include <string>

#include "cppnn/graph_model.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::onnx_export {

// Whether `op` is an lstm or lstmCell with a peepholeWeight.
bool has_peephole(const Operation& op);

// Whether `op` has a direct lowering with WebNN's semantics: false for lstm and lstmCell with a
// peepholeWeight (WebNN's output gate reads the previous cell state, ONNX LSTM's the new one;
// webnn-spec.md §2 rows 61, 62), which the shared decompositions unroll instead.
bool runs_natively(const Graph& graph, const Operation& op);

// A descriptor named `name` with the ONNX export's support: every op, runs_natively above.
BackendDescriptor onnx_descriptor(std::string name);

// The ONNX export's own descriptor ("onnx"), built once.
const BackendDescriptor& onnx_target();

}  // namespace cppnn::onnx_export
