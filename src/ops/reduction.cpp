// Reductions, argMin/argMax and cumulativeSum (webnn-spec.md §2 rows 1-2, 9 and 69-78): reduce
// or scan an input along validated axes.
#include <cstdint>
#include <limits>

#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/reduction_params.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// f32, f16, i32, u32, i64, u64: the numeric types without the 8-bit integers.
constexpr DataTypeMask kNoInt8 = kFloat | kI32 | kU32 | kI64 | kU64;

// A reduction's input and output: any rank, the output has the input's data type.
OpLimits reduce_limits(DataTypeMask allowed, DataTypeMask required) {
  return {{{"input", allowed, required}}, {{"output", allowed, required}}};
}

// The output of a reduction: absent axes reduce every dimension, [] reduces none.
Result<OutputDescs> reduce(const InferInput& in, const MLReduceOptions& options) {
  const MLOperandDescriptor& input = in[0];
  const std::vector<uint32_t> axes = reduction_axes(options, input.shape.size());
  CPPNN_RETURN_IF_ERROR(validate_axes(axes, input.shape.size(), "axes"));
  return OutputDescs{{input.dataType, reduce_shape(input.shape, axes, options.keepDimensions)}};
}

// argMin/argMax: input any [f32,f16,i32] of rank >= 1; output int32 or int64 [int32].
const OpLimits kArgMinMaxLimits{{{"input", kAny, kFloat | kI32, 1}},
                                {{"output", kI32 | kI64, kI32}}};

// The output of argMin/argMax: the input shape without `axis` (kept as 1 with keepDimensions),
// with outputDataType, which must be able to hold every index along the axis.
Result<OutputDescs> arg_min_max(const InferInput& in, uint32_t axis,
                                const MLArgMinMaxOptions& options) {
  const MLOperandDescriptor& input = in[0];
  if (axis >= input.shape.size())
    return type_error("axis ", axis, " is out of range for input rank ", input.shape.size());
  uint64_t max_index = 0;
  switch (options.outputDataType) {
    case MLOperandDataType::kInt32:
      max_index = std::numeric_limits<int32_t>::max();
      break;
    case MLOperandDataType::kInt64:
      max_index = std::numeric_limits<int64_t>::max();
      break;
    default:
      return type_error("outputDataType ", data_type_name(options.outputDataType),
                        " is not supported (allowed: int32, int64)");
  }
  if (input.shape[axis] > max_index)
    return type_error("input dimension ", input.shape[axis], " at axis ", axis,
                      " exceeds the largest value of outputDataType ",
                      data_type_name(options.outputDataType));
  return OutputDescs{
      {options.outputDataType, reduce_shape(input.shape, {axis}, options.keepDimensions)}};
}

}  // namespace

// The 10 reductions share one inference; they differ in their data types (rows 69-78).
#define CPPNN_REDUCE(E, m, allowed, required)                                               \
  const OpLimits limits_##m = reduce_limits(allowed, required);                             \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>& attrs) { \
    return reduce(in, attrs.options);                                                       \
  }
// reduceL1: Σ|x| (row 69).
CPPNN_REDUCE(ReduceL1, reduceL1, kNoInt8, kFloat | kI32)
// reduceL2: √Σx² (row 70).
CPPNN_REDUCE(ReduceL2, reduceL2, kFloat, kFloat)
// reduceLogSum: log Σx (row 71).
CPPNN_REDUCE(ReduceLogSum, reduceLogSum, kFloat, kFloat)
// reduceLogSumExp: log Σ exp(x) (row 72).
CPPNN_REDUCE(ReduceLogSumExp, reduceLogSumExp, kFloat, kFloat)
// reduceMax: the largest value (row 73).
CPPNN_REDUCE(ReduceMax, reduceMax, kAny, kFloat | kI32)
// reduceMean: Σx / count (row 74).
CPPNN_REDUCE(ReduceMean, reduceMean, kFloat, kFloat)
// reduceMin: the smallest value (row 75).
CPPNN_REDUCE(ReduceMin, reduceMin, kAny, kFloat | kI32)
// reduceProduct: Πx (row 76).
CPPNN_REDUCE(ReduceProduct, reduceProduct, kNoInt8, kFloat)
// reduceSum: Σx (row 77).
CPPNN_REDUCE(ReduceSum, reduceSum, kNoInt8, kFloat | kI32)
// reduceSumSquare: Σx² (row 78).
CPPNN_REDUCE(ReduceSumSquare, reduceSumSquare, kNoInt8, kFloat | kI32)
#undef CPPNN_REDUCE

// argMin: index of the smallest value along axis (row 1).
const OpLimits limits_argMin = kArgMinMaxLimits;
Result<OutputDescs> infer_argMin(const InferInput& in, const AttrsOf<OpType::kArgMin>& attrs) {
  return arg_min_max(in, attrs.params.axis, attrs.options);
}

// argMax: index of the largest value along axis (row 2).
const OpLimits limits_argMax = kArgMinMaxLimits;
Result<OutputDescs> infer_argMax(const InferInput& in, const AttrsOf<OpType::kArgMax>& attrs) {
  return arg_min_max(in, attrs.params.axis, attrs.options);
}

// cumulativeSum: running sum along axis, same shape as the input (row 9).
const OpLimits limits_cumulativeSum{{{"input", kNoInt8, kFloat | kI32, 1}},
                                    {{"output", kNoInt8, kFloat | kI32, 1}}};
Result<OutputDescs> infer_cumulativeSum(const InferInput& in,
                                        const AttrsOf<OpType::kCumulativeSum>& attrs) {
  const MLOperandDescriptor& input = in[0];
  if (attrs.params.axis >= input.shape.size())
    return type_error("axis ", attrs.params.axis, " is out of range for input rank ",
                      input.shape.size());
  return OutputDescs{input};
}

}  // namespace cppnn
