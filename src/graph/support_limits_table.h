// opSupportLimits generated from the op table (webnn-spec.md §1).
#pragma once

#include "cppnn/support_limits.h"

namespace cppnn {

// Everything the spec allows for every op (the op table's allowed types and ranks, with
// "N" reported as kMaxRank).
MLOpSupportLimits spec_support_limits();

}  // namespace cppnn
