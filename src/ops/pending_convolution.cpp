// PENDING scaffold: replaced by the real family file (src/ops/convolution.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_conv2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand2", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, true}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_conv2d(const InferInput& in, const AttrsOf<OpType::kConv2d>&) { return OutputDescs{in[0]}; }
const OpLimits limits_convTranspose2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand2", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, true}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_convTranspose2d(const InferInput& in, const AttrsOf<OpType::kConvTranspose2d>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
