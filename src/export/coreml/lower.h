// The lowering of each WebNN op to MIL operations (opset CoreML7, iOS17): lower_<method>()
// emits the MIL operations that compute the op's outputs, written to the variables
// Emitter::value(output) with their WebNN types, with WebNN's semantics exactly (layouts,
// padding, rounding, integer behaviour). Declared from ops.def; defined in the family files of
// this folder (lower_<family>.cpp). A lowering throws cppnn::NotSupportedError for a case MIL
// cannot express; the caller adds the op and its label to the message.
#pragma once

#include "cppnn/graph_model.h"
#include "cppnn/op_type.h"
#include "src/export/coreml/emitter.h"

namespace cppnn::coreml_export {

#define CPPNN_OP(E, m, S, O, F) \
  void lower_##m(Emitter& e, const Operation& op, const AttrsOf<OpType::k##E>& attrs);
#include "cppnn/ops.def"
#undef CPPNN_OP

// Per family (one each, defined in lower_<family>.cpp): whether its lowering expresses `op` of
// `graph` directly. False sends the operation through the shared decompositions first
// (src/passes/decompose.h), as for an op MIL has no form of.
bool lowers_activations(const Graph& graph, const Operation& op);
bool lowers_convolution(const Graph& graph, const Operation& op);
bool lowers_data_movement(const Graph& graph, const Operation& op);
bool lowers_elementwise_binary(const Graph& graph, const Operation& op);
bool lowers_elementwise_unary(const Graph& graph, const Operation& op);
bool lowers_gather_scatter(const Graph& graph, const Operation& op);
bool lowers_matrix(const Graph& graph, const Operation& op);
bool lowers_normalization(const Graph& graph, const Operation& op);
bool lowers_pooling(const Graph& graph, const Operation& op);
bool lowers_quantization(const Graph& graph, const Operation& op);
bool lowers_recurrent(const Graph& graph, const Operation& op);
bool lowers_reduction(const Graph& graph, const Operation& op);
bool lowers_resample(const Graph& graph, const Operation& op);

// Dispatches to lower_<method> by op type.
void lower_operation(Emitter& e, const Operation& op);

}  // namespace cppnn::coreml_export
