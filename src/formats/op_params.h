// How a node's positional parameters travel in a file (webnn-graph-format.md "cppnn: from a
// file to the graph model"): as named options with the spec's parameter names, beside the
// options dictionary's own fields.
#pragma once

#include <string_view>
#include <vector>

#include "cppnn/op_type.h"

namespace cppnn::formats {

// The spec names of op `t`'s non-operand positional parameters, in call order: `axis`
// (argMin, argMax, cumulativeSum, softmax, concat), `dataType` (cast), `newShape`
// (expand, reshape), `repetitions` (tile), `beginningPadding`/`endingPadding` (pad),
// `starts`/`sizes` (slice), `splits` (split), `steps`/`hiddenSize` (gru, lstm), `hiddenSize`
// (gruCell, lstmCell).
std::vector<std::string_view> positional_param_names(OpType t);

// The number of positional operands of op `t` (-1: a list, concat).
int positional_operand_count(OpType t);

// The names of op `t`'s operand-valued options (bias, scale, c, ...), in field order.
std::vector<std::string_view> operand_option_names(OpType t);

}  // namespace cppnn::formats
