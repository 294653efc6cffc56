#include "src/export/coreml/target.h"

#include <algorithm>
#include <initializer_list>

#include "src/export/coreml/lower.h"

namespace cppnn::coreml_export {
namespace {

// The ops whose 8-bit operands MIL can carry (see target.h).
constexpr OpType kEightBitOps[] = {
    OpType::kCast,
    OpType::kConcat,
    OpType::kExpand,
    OpType::kGather,
    OpType::kGatherElements,
    OpType::kGatherND,
    OpType::kIdentity,
    OpType::kReshape,
    OpType::kReverse,
    OpType::kSlice,
    OpType::kSplit,
    OpType::kTile,
    OpType::kTranspose,
    OpType::kWhere,
    OpType::kQuantizeLinear,
    OpType::kDequantizeLinear,
    OpType::kLogicalNot,
    OpType::kLogicalAnd,
    OpType::kLogicalOr,
    OpType::kLogicalXor,
    OpType::kEqual,
    OpType::kNotEqual,
    OpType::kGreater,
    OpType::kGreaterOrEqual,
    OpType::kLesser,
    OpType::kLesserOrEqual,
    OpType::kScatterElements,
    OpType::kScatterND,
    OpType::kIsNaN,
    OpType::kIsInfinite,
    // Arithmetic on 8-bit data: the lowerings compute in int32 and wrap back (exact).
    OpType::kAbs,
    OpType::kNeg,
    OpType::kSign,
    OpType::kAdd,
    OpType::kSub,
    OpType::kMul,
    OpType::kDiv,
    OpType::kMax,
    OpType::kMin,
    OpType::kPow,
};

bool carries_eight_bit(OpType t) {
  return std::find(std::begin(kEightBitOps), std::end(kEightBitOps), t) != std::end(kEightBitOps);
}

// Removes `types` from every role of one op's limits (the op stays native when a type is left).
void narrow_op(std::optional<OpLimits>& limits, DataTypeMask types) {
  if (!limits) return;
  bool left = true;
  auto narrow = [&](RoleLimits& r) {
    if (r.allowed == 0 && r.same_as >= 0) return;
    const DataTypeMask allowed = r.allowed == 0 ? dt::kAny : r.allowed;
    r.allowed = allowed & static_cast<DataTypeMask>(~types);
    left = left && r.allowed != 0;
  };
  std::for_each(limits->inputs.begin(), limits->inputs.end(), narrow);
  std::for_each(limits->outputs.begin(), limits->outputs.end(), narrow);
  if (!left) limits.reset();
}

// The family lowering's own refinement (lower.h), dispatched by op type.
bool lowers(const Graph& graph, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return lowers_##F(graph, op);
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return false;
}

BackendDescriptor make_target() {
  BackendDescriptor d = BackendDescriptor::with_all_ops("coreml");
  d.remove_data_types(dt::kU32 | dt::kI64 | dt::kU64 | mask_of(MLOperandDataType::kInt4) |
                      mask_of(MLOperandDataType::kUint4));
  for (size_t i = 0; i < d.native.size(); ++i)
    if (!carries_eight_bit(static_cast<OpType>(i))) narrow_op(d.native[i], dt::kI8 | dt::kU8);
  d.runs_natively = &lowers;
  return d;
}

}  // namespace

const BackendDescriptor& coreml_target() {
  static const BackendDescriptor d = make_target();
  return d;
}

}  // namespace cppnn::coreml_export
