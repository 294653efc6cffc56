// PENDING scaffold: replaced by the real family file (src/ops/data_movement.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_concat{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_concat(const InferInput& in, const AttrsOf<OpType::kConcat>&) { return OutputDescs{in[0]}; }
const OpLimits limits_split{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_split(const InferInput& in, const AttrsOf<OpType::kSplit>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reshape{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reshape(const InferInput& in, const AttrsOf<OpType::kReshape>&) { return OutputDescs{in[0]}; }
const OpLimits limits_expand{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_expand(const InferInput& in, const AttrsOf<OpType::kExpand>&) { return OutputDescs{in[0]}; }
const OpLimits limits_pad{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_pad(const InferInput& in, const AttrsOf<OpType::kPad>&) { return OutputDescs{in[0]}; }
const OpLimits limits_slice{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_slice(const InferInput& in, const AttrsOf<OpType::kSlice>&) { return OutputDescs{in[0]}; }
const OpLimits limits_tile{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_tile(const InferInput& in, const AttrsOf<OpType::kTile>&) { return OutputDescs{in[0]}; }
const OpLimits limits_transpose{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_transpose(const InferInput& in, const AttrsOf<OpType::kTranspose>&) { return OutputDescs{in[0]}; }
const OpLimits limits_triangular{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_triangular(const InferInput& in, const AttrsOf<OpType::kTriangular>&) { return OutputDescs{in[0]}; }
const OpLimits limits_reverse{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_reverse(const InferInput& in, const AttrsOf<OpType::kReverse>&) { return OutputDescs{in[0]}; }
const OpLimits limits_where{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand2", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_where(const InferInput& in, const AttrsOf<OpType::kWhere>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
