// Element-wise unary operations (webnn-spec.md §2 rows 4, 23, 27-43): logicalNot, isNaN and
// isInfinite produce uint8; cast produces its `dataType` (erratum §6.14); the others copy the
// input descriptor. Only the data type limits differ between the ops.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// Input "input" with `allowed` [`required`] types and any rank; output the same types.
OpLimits unary_limits(DataTypeMask allowed, DataTypeMask required) {
  return {{{"input", allowed, required}}, {{"output", allowed, required}}};
}
// Input "a" with `allowed` [`required`] types and any rank; output uint8.
OpLimits predicate_limits(DataTypeMask allowed, DataTypeMask required) {
  return {{{"a", allowed, required}}, {{"output", kU8, kU8}}};
}

// f32, f16 and the signed integer types abs/neg/sign accept.
constexpr DataTypeMask kSignedNumeric = kFloat | kI64 | kI32 | kI8;

}  // namespace

#define CPPNN_COPY_UNARY(E, m, allowed, required)                                     \
  const OpLimits limits_##m = unary_limits(allowed, required);                        \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>&) { \
    return OutputDescs{in[0]};                                                        \
  }
#define CPPNN_U8_UNARY(E, m, allowed)                                                 \
  const OpLimits limits_##m = predicate_limits(allowed, allowed);                     \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>&) { \
    return OutputDescs{{MLOperandDataType::kUint8, in[0].shape}};                     \
  }

// logicalNot: nonzero -> 0, zero -> 1, uint8 only (row 23).
CPPNN_U8_UNARY(LogicalNot, logicalNot, kU8)
// isNaN: 1 where NaN; f32/f16 only as the algorithm says (row 27, erratum §6.5).
CPPNN_U8_UNARY(IsNaN, isNaN, kFloat)
// isInfinite: 1 where +-Inf; f32/f16 only (row 28, erratum §6.5).
CPPNN_U8_UNARY(IsInfinite, isInfinite, kFloat)
// abs: |x| (row 29).
CPPNN_COPY_UNARY(Abs, abs, kSignedNumeric, kFloat | kI32)
// ceil (row 30).
CPPNN_COPY_UNARY(Ceil, ceil, kFloat, kFloat)
// cos (row 31).
CPPNN_COPY_UNARY(Cos, cos, kFloat, kFloat)
// erf (row 32).
CPPNN_COPY_UNARY(Erf, erf, kFloat, kFloat)
// exp (row 33).
CPPNN_COPY_UNARY(Exp, exp, kFloat, kFloat)
// floor (row 34).
CPPNN_COPY_UNARY(Floor, floor, kFloat, kFloat)
// identity: any type (row 35).
CPPNN_COPY_UNARY(Identity, identity, kAny, kFloat | kI32)
// log (row 36).
CPPNN_COPY_UNARY(Log, log, kFloat, kFloat)
// neg: -x (row 37).
CPPNN_COPY_UNARY(Neg, neg, kSignedNumeric, kFloat | kI32)
// reciprocal: 1/x (row 38).
CPPNN_COPY_UNARY(Reciprocal, reciprocal, kFloat, kFloat)
// roundEven: halves to the even neighbour (row 39).
CPPNN_COPY_UNARY(RoundEven, roundEven, kFloat, kFloat)
// sin (row 40).
CPPNN_COPY_UNARY(Sin, sin, kFloat, kFloat)
// sign: -1/0/1 (row 41).
CPPNN_COPY_UNARY(Sign, sign, kSignedNumeric, kFloat | kI32)
// sqrt (row 42).
CPPNN_COPY_UNARY(Sqrt, sqrt, kFloat, kFloat)
// tan (row 43).
CPPNN_COPY_UNARY(Tan, tan, kFloat, kFloat)
#undef CPPNN_COPY_UNARY
#undef CPPNN_U8_UNARY

// cast: any spec type to any spec type; output dtype = dataType (row 4, erratum §6.14).
const OpLimits limits_cast = unary_limits(kAny, kFloat | kI32 | kI8 | kU8);
Result<OutputDescs> infer_cast(const InferInput& in, const AttrsOf<OpType::kCast>& attrs) {
  const MLOperandDataType to = attrs.params.dataType;
  if (!is_spec_data_type(to))
    return type_error("dataType ", data_type_name(to), " is not an operand data type");
  return OutputDescs{{to, in[0].shape}};
}

}  // namespace cppnn
