// PENDING scaffold: replaced by the real family file (src/ops/matrix.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_gemm{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand2", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, true}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_gemm(const InferInput& in, const AttrsOf<OpType::kGemm>&) { return OutputDescs{in[0]}; }
const OpLimits limits_matmul{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_matmul(const InferInput& in, const AttrsOf<OpType::kMatmul>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
