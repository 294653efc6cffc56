// The lowering of each WebNN op to ONNX nodes (opset 17): lower_<method>() emits the nodes that
// compute the op's outputs, named by Emitter::value(output), with WebNN's semantics exactly
// (data types ONNX Runtime lacks are computed through casts; what ONNX lacks is decomposed).
// Declared from ops.def; defined in the family files of this folder (lower_<family>.cpp).
// A lowering throws cppnn::NotSupportedError for a case ONNX cannot express; the caller adds
// the op and its label to the message.
#pragma once

#include "cppnn/graph_model.h"
#include "cppnn/op_type.h"
#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

#define CPPNN_OP(E, m, S, O, F) \
  void lower_##m(Emitter& e, const Operation& op, const AttrsOf<OpType::k##E>& attrs);
#include "cppnn/ops.def"
#undef CPPNN_OP

// Dispatches to lower_<method> by op type.
void lower_operation(Emitter& e, const Operation& op);

}  // namespace cppnn::onnx_export
