// PENDING scaffold: replaced by the real family file (src/ops/elementwise_unary.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_logicalNot{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_logicalNot(const InferInput& in, const AttrsOf<OpType::kLogicalNot>&) { return OutputDescs{in[0]}; }
const OpLimits limits_isNaN{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_isNaN(const InferInput& in, const AttrsOf<OpType::kIsNaN>&) { return OutputDescs{in[0]}; }
const OpLimits limits_isInfinite{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_isInfinite(const InferInput& in, const AttrsOf<OpType::kIsInfinite>&) { return OutputDescs{in[0]}; }
const OpLimits limits_abs{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_abs(const InferInput& in, const AttrsOf<OpType::kAbs>&) { return OutputDescs{in[0]}; }
const OpLimits limits_ceil{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_ceil(const InferInput& in, const AttrsOf<OpType::kCeil>&) { return OutputDescs{in[0]}; }
const OpLimits limits_cos{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_cos(const InferInput& in, const AttrsOf<OpType::kCos>&) { return OutputDescs{in[0]}; }
const OpLimits limits_erf{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_erf(const InferInput& in, const AttrsOf<OpType::kErf>&) { return OutputDescs{in[0]}; }
const OpLimits limits_exp{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_exp(const InferInput& in, const AttrsOf<OpType::kExp>&) { return OutputDescs{in[0]}; }
const OpLimits limits_floor{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_floor(const InferInput& in, const AttrsOf<OpType::kFloor>&) { return OutputDescs{in[0]}; }
const OpLimits limits_identity{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_identity(const InferInput& in, const AttrsOf<OpType::kIdentity>&) { return OutputDescs{in[0]}; }
const OpLimits limits_log{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_log(const InferInput& in, const AttrsOf<OpType::kLog>&) { return OutputDescs{in[0]}; }
const OpLimits limits_neg{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_neg(const InferInput& in, const AttrsOf<OpType::kNeg>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reciprocal{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reciprocal(const InferInput& in, const AttrsOf<OpType::kReciprocal>&) { return OutputDescs{in[0]}; }
const OpLimits limits_roundEven{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_roundEven(const InferInput& in, const AttrsOf<OpType::kRoundEven>&) { return OutputDescs{in[0]}; }
const OpLimits limits_sin{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_sin(const InferInput& in, const AttrsOf<OpType::kSin>&) { return OutputDescs{in[0]}; }
const OpLimits limits_sign{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_sign(const InferInput& in, const AttrsOf<OpType::kSign>&) { return OutputDescs{in[0]}; }
const OpLimits limits_sqrt{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_sqrt(const InferInput& in, const AttrsOf<OpType::kSqrt>&) { return OutputDescs{in[0]}; }
const OpLimits limits_tan{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_tan(const InferInput& in, const AttrsOf<OpType::kTan>&) { return OutputDescs{in[0]}; }
const OpLimits limits_cast{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_cast(const InferInput& in, const AttrsOf<OpType::kCast>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
