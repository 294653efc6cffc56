// The generic data type and rank checks of an op's operand roles (op_limits.h): the spec's
// limits at every builder call, and a context's narrower limits (webnn-spec.md §1
// opSupportLimits: a type outside them is a TypeError at the call).
#pragma once

#include <span>
#include <string>

#include "cppnn/descriptor.h"
#include "src/core/result.h"
#include "src/ops/op_limits.h"

namespace cppnn {

// "float32, int32": the types of a mask.
std::string data_type_list(DataTypeMask m);
// Checks the input operands `descs` (Operation::inputs order; null for an absent optional
// operand) against `limits.inputs`. `list`: one role for every element (concat). `whose`
// qualifies the message ("" for the spec, " by the minimal backend" for a context).
Status check_input_roles(const OpLimits& limits, std::span<const MLOperandDescriptor* const> descs,
                         bool list, std::string_view whose = "");
// Checks the output descriptors against `limits.outputs` (one role for every output of split).
Status check_output_roles(const OpLimits& limits, std::span<const MLOperandDescriptor> outputs,
                          std::string_view whose = "");

}  // namespace cppnn
