// Element-wise binary, comparison and logical operations (webnn-spec.md §2 rows 10-26):
// bidirectional broadcasting of a and b; comparisons and logical ops produce uint8.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// a: any [f32,f16,i32], b: same as a, output: same.
const OpLimits kArithmeticLimits{{{"a", kAny, kFloat | kI32}, {"b", 0, 0, 0, kRankN, 0}},
                                 {{"output", kAny, kFloat | kI32}}};
// Comparisons: inputs like arithmetic, output uint8.
const OpLimits kComparisonLimits{{{"a", kAny, kFloat | kI32}, {"b", 0, 0, 0, kRankN, 0}},
                                 {{"output", kU8, kU8}}};
// logicalAnd/Or/Xor: uint8 only.
const OpLimits kLogicalLimits{{{"a", kU8, kU8}, {"b", 0, 0, 0, kRankN, 0}}, {{"output", kU8, kU8}}};

// Output of a broadcasting binary op with data type `type`.
Result<OutputDescs> broadcast_binary(const InferInput& in, MLOperandDataType type) {
  auto shape = broadcast_bidirectional(in[0].shape, in[1].shape);
  if (!shape) return shape.error();
  return OutputDescs{{type, std::move(*shape)}};
}

}  // namespace

#define CPPNN_ARITHMETIC(E, m)                                                        \
  const OpLimits limits_##m = kArithmeticLimits;                                      \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>&) { \
    return broadcast_binary(in, in[0].dataType);                                      \
  }
CPPNN_ARITHMETIC(Add, add)
CPPNN_ARITHMETIC(Sub, sub)
CPPNN_ARITHMETIC(Mul, mul)
CPPNN_ARITHMETIC(Div, div)
CPPNN_ARITHMETIC(Max, max)
CPPNN_ARITHMETIC(Min, min)
CPPNN_ARITHMETIC(Pow, pow)
#undef CPPNN_ARITHMETIC

#define CPPNN_UINT8_RESULT(E, m, L)                                                   \
  const OpLimits limits_##m = L;                                                      \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>&) { \
    return broadcast_binary(in, MLOperandDataType::kUint8);                           \
  }
CPPNN_UINT8_RESULT(Equal, equal, kComparisonLimits)
CPPNN_UINT8_RESULT(NotEqual, notEqual, kComparisonLimits)
CPPNN_UINT8_RESULT(Greater, greater, kComparisonLimits)
CPPNN_UINT8_RESULT(GreaterOrEqual, greaterOrEqual, kComparisonLimits)
CPPNN_UINT8_RESULT(Lesser, lesser, kComparisonLimits)
CPPNN_UINT8_RESULT(LesserOrEqual, lesserOrEqual, kComparisonLimits)
CPPNN_UINT8_RESULT(LogicalAnd, logicalAnd, kLogicalLimits)
CPPNN_UINT8_RESULT(LogicalOr, logicalOr, kLogicalLimits)
CPPNN_UINT8_RESULT(LogicalXor, logicalXor, kLogicalLimits)
#undef CPPNN_UINT8_RESULT

}  // namespace cppnn
