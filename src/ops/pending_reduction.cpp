// PENDING scaffold: replaced by the real family file (src/ops/reduction.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_reduceL1{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceL1(const InferInput& in, const AttrsOf<OpType::kReduceL1>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceL2{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceL2(const InferInput& in, const AttrsOf<OpType::kReduceL2>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceLogSum{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceLogSum(const InferInput& in, const AttrsOf<OpType::kReduceLogSum>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceLogSumExp{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceLogSumExp(const InferInput& in, const AttrsOf<OpType::kReduceLogSumExp>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceMax{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceMax(const InferInput& in, const AttrsOf<OpType::kReduceMax>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceMean{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceMean(const InferInput& in, const AttrsOf<OpType::kReduceMean>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceMin{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceMin(const InferInput& in, const AttrsOf<OpType::kReduceMin>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceProduct{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceProduct(const InferInput& in, const AttrsOf<OpType::kReduceProduct>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceSum{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceSum(const InferInput& in, const AttrsOf<OpType::kReduceSum>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reduceSumSquare{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reduceSumSquare(const InferInput& in, const AttrsOf<OpType::kReduceSumSquare>&) { return OutputDescs{in[0]}; }
const OpLimits limits_argMin{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_argMin(const InferInput& in, const AttrsOf<OpType::kArgMin>&) { return OutputDescs{in[0]}; }
const OpLimits limits_argMax{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_argMax(const InferInput& in, const AttrsOf<OpType::kArgMax>&) { return OutputDescs{in[0]}; }
const OpLimits limits_cumulativeSum{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_cumulativeSum(const InferInput& in, const AttrsOf<OpType::kCumulativeSum>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
