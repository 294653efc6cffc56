// PENDING scaffold: replaced by the real family file (src/ops/activations.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_clamp{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_clamp(const InferInput& in, const AttrsOf<OpType::kClamp>&) { return OutputDescs{in[0]}; }
const OpLimits limits_elu{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_elu(const InferInput& in, const AttrsOf<OpType::kElu>&) { return OutputDescs{in[0]}; }
const OpLimits limits_gelu{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_gelu(const InferInput& in, const AttrsOf<OpType::kGelu>&) { return OutputDescs{in[0]}; }
const OpLimits limits_hardSigmoid{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_hardSigmoid(const InferInput& in, const AttrsOf<OpType::kHardSigmoid>&) { return OutputDescs{in[0]}; }
const OpLimits limits_hardSwish{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_hardSwish(const InferInput& in, const AttrsOf<OpType::kHardSwish>&) { return OutputDescs{in[0]}; }
const OpLimits limits_leakyRelu{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_leakyRelu(const InferInput& in, const AttrsOf<OpType::kLeakyRelu>&) { return OutputDescs{in[0]}; }
const OpLimits limits_linear{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_linear(const InferInput& in, const AttrsOf<OpType::kLinear>&) { return OutputDescs{in[0]}; }
const OpLimits limits_prelu{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}, {"operand1", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_prelu(const InferInput& in, const AttrsOf<OpType::kPrelu>&) { return OutputDescs{in[0]}; }
const OpLimits limits_relu{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_relu(const InferInput& in, const AttrsOf<OpType::kRelu>&) { return OutputDescs{in[0]}; }
const OpLimits limits_sigmoid{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_sigmoid(const InferInput& in, const AttrsOf<OpType::kSigmoid>&) { return OutputDescs{in[0]}; }
const OpLimits limits_softmax{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_softmax(const InferInput& in, const AttrsOf<OpType::kSoftmax>&) { return OutputDescs{in[0]}; }
const OpLimits limits_softplus{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_softplus(const InferInput& in, const AttrsOf<OpType::kSoftplus>&) { return OutputDescs{in[0]}; }
const OpLimits limits_softsign{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_softsign(const InferInput& in, const AttrsOf<OpType::kSoftsign>&) { return OutputDescs{in[0]}; }
const OpLimits limits_tanh{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_tanh(const InferInput& in, const AttrsOf<OpType::kTanh>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
