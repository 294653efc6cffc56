// The lowering of each WebNN op to TFLite builtin operators: lower_<method>() adds the operators
// that compute the op's outputs into the tensors Emitter::output(output) creates (the compute
// types of emitter.h: float16 as float32), with WebNN's semantics exactly (layouts, padding,
// rounding, integer wrap-around, booleans as uint8 0/1). Declared from ops.def; defined in the
// family files of this folder (lower_<family>.cpp). A lowering throws cppnn::NotSupportedError
// for a case it cannot express; the caller adds the op and its label to the message.
#pragma once

#include "cppnn/graph_model.h"
#include "cppnn/op_type.h"
#include "src/export/tflite/emitter.h"

namespace cppnn::tflite_export {

#define CPPNN_OP(E, m, S, O, F) \
  void lower_##m(Emitter& e, const Operation& op, const AttrsOf<OpType::k##E>& attrs);
#include "cppnn/ops.def"
#undef CPPNN_OP

// Per family (one each, defined in lower_<family>.cpp): whether its lowering expresses `op` of
// `graph` directly (its data types and option values). False sends the operation through the
// shared decompositions (src/passes/decompose.h) before conversion; an op with neither is a
// NotSupportedError at build().
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

}  // namespace cppnn::tflite_export
