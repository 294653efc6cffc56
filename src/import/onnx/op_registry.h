// The ONNX operator table: which ai.onnx operators the importer maps, each to one handler
// `import_<OpType>(NodeContext&)`. The list lives in the ops_<family>.def files (one X-macro line
// `CPPNN_ONNX_OP(OpType)` per operator, next to the family's handlers in ops_<family>.cpp): a
// listed operator without a handler fails the link.
#pragma once

#include <string_view>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

#define CPPNN_ONNX_OP(name) void import_##name(NodeContext& c);
#include "src/import/onnx/ops_activations.def"
#include "src/import/onnx/ops_control.def"
#include "src/import/onnx/ops_elementwise.def"
#include "src/import/onnx/ops_loss.def"
#include "src/import/onnx/ops_misc.def"
#include "src/import/onnx/ops_nn.def"
#include "src/import/onnx/ops_reduce.def"
#include "src/import/onnx/ops_shape.def"
#include "src/import/onnx/ops_signal.def"
#undef CPPNN_ONNX_OP

// The handler of ai.onnx operator `op_type`, nullptr when it is not supported.
OpHandler find_handler(std::string_view op_type);

}  // namespace cppnn::onnx_import
