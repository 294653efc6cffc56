// PENDING scaffold: replaced by the real family file (src/ops/pooling.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_averagePool2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_averagePool2d(const InferInput& in, const AttrsOf<OpType::kAveragePool2d>&) { return OutputDescs{in[0]}; }
const OpLimits limits_l2Pool2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_l2Pool2d(const InferInput& in, const AttrsOf<OpType::kL2Pool2d>&) { return OutputDescs{in[0]}; }
const OpLimits limits_maxPool2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_maxPool2d(const InferInput& in, const AttrsOf<OpType::kMaxPool2d>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
