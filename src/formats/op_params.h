// How a node's positional parameters travel in a file (webnn-graph-format.md "cppnn: from a
// file to the graph model"): as named options with the spec's parameter names, beside the
// options dictionary's own fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/op_type.h"
#include "src/formats/graph_doc.h"

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

// The option keys a graph file may give op `t`: its positional parameters (above) and the
// members of its options dictionary (the spec's names, label included), in field order.
std::vector<std::string_view> known_option_keys(OpType t);

// "unknown option 'stride' for conv2d (known: padding, strides, ...)" for the first key of
// `options` that op `t` does not know, or nullopt. A misspelled option must never be ignored.
std::optional<std::string> unknown_option_message(OpType t, const DocValue::Object& options);

}  // namespace cppnn::formats
