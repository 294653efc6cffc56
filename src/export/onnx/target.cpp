#include "src/export/onnx/target.h"

#include <utility>

#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {
namespace {

// Operation::inputs index of peepholeWeight (positional operands, then the operand-valued
// options in field order): lstm's x, W, R, bias, recurrentBias, peepholeWeight; lstmCell's x, W,
// R, hiddenState, cellState, bias, recurrentBias, peepholeWeight.
constexpr size_t kLstmPeephole = 5;
constexpr size_t kLstmCellPeephole = 7;

}  // namespace

// The peepholeWeight operand of lstm/lstmCell, by its Operation::inputs index.
bool has_peephole(const Operation& op) {
  return (op.type == OpType::kLstm && has(op, kLstmPeephole)) ||
         (op.type == OpType::kLstmCell && has(op, kLstmCellPeephole));
}

// lstm/lstmCell with peepholes decompose (see target.h); everything else lowers directly.
bool runs_natively(const Graph&, const Operation& op) {
  return !has_peephole(op);
}

// Every op with the spec's limits, refined by runs_natively. Batch normalization after a
// convolution with constant parameters folds into the convolution (src/passes/
// batch_norm_folding.h), as ONNX Runtime's Conv+BatchNormalization fusion would: the standalone
// float32 BatchNormalization lowering subtracts the mean first (lower_normalization.cpp), which
// would otherwise keep ONNX Runtime from fusing it.
BackendDescriptor onnx_descriptor(std::string name) {
  BackendDescriptor d = BackendDescriptor::with_all_ops(std::move(name));
  d.runs_natively = &runs_natively;
  d.passes.fold_batch_norm = true;
  return d;
}

// Built on first use, shared by every conversion.
const BackendDescriptor& onnx_target() {
  static const BackendDescriptor d = onnx_descriptor("onnx");
  return d;
}

}  // namespace cppnn::onnx_export
