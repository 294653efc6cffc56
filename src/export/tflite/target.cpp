#include "src/export/tflite/target.h"

#include <utility>

#include "src/export/tflite/lower.h"

namespace cppnn::tflite_export {
namespace {

// The family lowering's own refinement (lower.h), dispatched by op type.
bool lowers(const Graph& graph, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return lowers_##F(graph, op);
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return false;
}

}  // namespace

BackendDescriptor tflite_descriptor(std::string name) {
  BackendDescriptor d = BackendDescriptor::with_all_ops(std::move(name));
  d.runs_natively = &lowers;
  d.preferred_layout = MLInputOperandLayout::kNhwc;
  d.passes.fold_constants = true;
  d.passes.convert_layout = true;
  d.passes.fold_batch_norm = true;
  d.passes.recognize_activations = true;
  // conv2d, convTranspose2d, gemm and 2-D matmul take the constant add after them as their bias
  // (CONV_2D/TRANSPOSE_CONV bias, FULLY_CONNECTED bias); the activations after them are lowered
  // in place after the op (convert.cpp).
  d.passes.fuse = true;
  return d;
}

const BackendDescriptor& tflite_target() {
  static const BackendDescriptor d = tflite_descriptor("tflite");
  return d;
}

}  // namespace cppnn::tflite_export
