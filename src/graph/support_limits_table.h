// opSupportLimits generated from the op table (webnn-spec.md §1).
#pragma once

#include <span>

#include "cppnn/support_limits.h"
#include "src/ops/op_limits.h"

namespace cppnn {

// Everything the spec allows for every op (the op table's allowed types and ranks, with
// "N" reported as kMaxRank).
MLOpSupportLimits spec_support_limits();
// The dictionary of a context: per op (by OpType) its limits, or null when unsupported (its
// members then list no data types); `tensor_types` for input/constant/output.
MLOpSupportLimits make_support_limits(std::span<const OpLimits* const> per_op,
                                      MLInputOperandLayout layout, uint64_t max_tensor_bytes,
                                      DataTypeMask tensor_types);

}  // namespace cppnn
