// PENDING scaffold: replaced by the real family file (src/ops/resample.cpp). Delete when done.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
namespace cppnn {
const OpLimits limits_resample2d{{{"operand0", dt::kAny | mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4), 0, 0, kRankN, kNoRole, false}}, {{"output", dt::kAny}}};
Result<OutputDescs> infer_resample2d(const InferInput& in, const AttrsOf<OpType::kResample2d>&) { return OutputDescs{in[0]}; }
}  // namespace cppnn
