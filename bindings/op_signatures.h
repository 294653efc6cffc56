// The JavaScript/Python signature of each MLGraphBuilder operation, from ops.def: its positional
// parameters with the spec's names and kinds, its option names (the options struct's
// reflection) and its snake_case alias. Shared by the Python and Node.js bindings and their type
// stub generators, which must not depend on Python or Node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cppnn/op_type.h"

namespace cppnn::bindings {

// What a positional parameter takes.
enum class ParamKind {
  kOperand,           // MLOperand
  kOperandList,       // sequence<MLOperand> (concat)
  kUnsignedLong,      // unsigned long (axis, steps, hiddenSize)
  kDataType,          // MLOperandDataType (cast)
  kUnsignedLongList,  // sequence<unsigned long> (newShape, starts ...)
  kSplits,            // unsigned long or sequence<unsigned long> (split)
};

// One positional parameter.
struct Param {
  std::string name;  // the spec's (camelCase) name
  ParamKind kind;
};

// One operation's signature.
struct OpSignature {
  OpType type;
  std::string name;        // the spec method name ("batchNormalization")
  std::string snake_name;  // "batch_normalization" (equal to name when it has no capitals)
  std::vector<Param> params;
  std::vector<std::string> options;  // the option fields, camelCase, in declaration order
  bool returns_list = false;         // split, gru, lstm, lstmCell
};

// Every operation in ops.def order (95).
const std::vector<OpSignature>& op_signatures();

// "batchNormalization" -> "batch_normalization" ("isNaN" -> "is_nan").
std::string camel_to_snake(std::string_view name);

}  // namespace cppnn::bindings
