// Output descriptor inference with the spec's validation, one pure function per op:
//   Result<OutputDescs> infer_<method>(const InferInput&, const AttrsOf<OpType::k...>&)
// declared from ops.def and defined in the family files of src/ops/. The generic recorder has
// already checked, before calling one: that every operand belongs to the builder, each input's
// data type against its role's allowed set and same_as role, and each input's rank against its
// role's range (op_limits.h). The function checks everything else the spec says for the op
// (option lengths, ranges, duplicates, divisibility, shape agreement, finite doubles) and returns
// the output descriptors; the recorder then runs "check dimensions" on every output.
// Messages name the offending operand or option, without the op name (the recorder prefixes
// "<op> [<label>]: ").
#pragma once

#include <span>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/op_type.h"
#include "src/core/result.h"

namespace cppnn {

using OutputDescs = std::vector<MLOperandDescriptor>;

// The operand descriptors of one call in Operation::inputs order; nullptr for an absent
// optional operand.
struct InferInput {
  std::span<const MLOperandDescriptor* const> operands;

  size_t size() const { return operands.size(); }
  // A required operand (never null).
  const MLOperandDescriptor& operator[](size_t i) const { return *operands[i]; }
  // An optional operand, or nullptr.
  const MLOperandDescriptor* optional(size_t i) const {
    return i < operands.size() ? operands[i] : nullptr;
  }
};

#define CPPNN_OP(E, m, S, O, F) \
  Result<OutputDescs> infer_##m(const InferInput& in, const AttrsOf<OpType::k##E>& attrs);
#include "cppnn/ops.def"
#undef CPPNN_OP

// Dispatches to infer_<method> by op type.
Result<OutputDescs> infer_op(OpType t, const InferInput& in, const OpAttributes& attrs);

}  // namespace cppnn
