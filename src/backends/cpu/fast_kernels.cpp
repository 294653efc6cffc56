// The cpu backend's kernel table: which family compiler handles which op (fast_kernel.h). Ops
// not listed run on the reference kernels.
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/quantized_weights.h"

namespace cppnn::cpu {

std::optional<FastKernel> compile_fast_kernel(const CompileContext& cc, const Operation& op) {
  using enum OpType;
  switch (op.type) {
    case kConv2d:
      if (auto k = compile_fast_depthwise_conv2d(cc, op)) return k;
      return compile_fast_conv2d(cc, op);
    case kConvTranspose2d:
      return compile_fast_conv_transpose2d(cc, op);
    case kAveragePool2d:
    case kMaxPool2d:
      return compile_fast_pool2d(cc, op);
    case kSoftmax:
      return compile_fast_softmax(cc, op);
    case kGather:
      return compile_fast_gather(cc, op);
    case kResample2d:
      return compile_fast_resample2d(cc, op);
    case kGemm:
      if (is_quantized_gemm(cc.graph, op)) return compile_fast_quantized_gemm(cc, op);
      return compile_fast_matrix(cc, op);
    case kMatmul:
      return compile_fast_matrix(cc, op);
    case kAdd:
    case kSub:
    case kMul:
    case kDiv:
    case kMax:
    case kMin:
      return compile_fast_binary(cc, op);
    case kRelu:
    case kClamp:
    case kLeakyRelu:
    case kHardSwish:
    case kHardSigmoid:
    case kLinear:
      return compile_fast_unary(cc, op);
    case kExp:
    case kLog:
    case kSigmoid:
    case kTanh:
    case kErf:
    case kGelu:
    case kAbs:
    case kNeg:
    case kFloor:
    case kCeil:
    case kReciprocal:
    case kSqrt:
    case kPow:
      return compile_fast_math(cc, op);
    case kLayerNormalization:
      return compile_fast_layer_normalization(cc, op);
    case kBatchNormalization:
      return compile_fast_batch_normalization(cc, op);
    case kReduceL1:
    case kReduceL2:
    case kReduceMean:
    case kReduceSum:
    case kReduceSumSquare:
    case kReduceMax:
    case kReduceMin:
      return compile_fast_reduction(cc, op);
    case kLstm:
    case kLstmCell:
    case kGru:
    case kGruCell:
      return compile_fast_recurrent(cc, op);
    case kPad:
    case kConcat:
    case kExpand:
    case kReshape:
    case kReverse:
    case kSlice:
    case kSplit:
    case kTile:
    case kTranspose:
      return compile_fast_copy(cc, op);
    default:
      return std::nullopt;
  }
}

}  // namespace cppnn::cpu
