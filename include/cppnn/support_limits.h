// MLOpSupportLimits (webnn-spec.md §1): what a context supports, per op and per operand role.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/enums.h"
#include "cppnn/op_type.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// MLRankRange.
struct MLRankRange {
  uint32_t min = 0;
  uint32_t max = 0;
  friend bool operator==(const MLRankRange&, const MLRankRange&) = default;
};

// MLTensorLimits: supported data types and ranks of one operand role.
struct MLTensorLimits {
  std::vector<MLOperandDataType> dataTypes;
  MLRankRange rankRange;
  friend bool operator==(const MLTensorLimits&, const MLTensorLimits&) = default;
};

// The per-op member of MLOpSupportLimits (MLBinarySupportLimits, MLConv2dSupportLimits, ...):
// its roles in the spec's member order ("a", "b", "output"; "input", "filter", "bias", ...).
struct MLOpLimits {
  OpType op = OpType::kIdentity;
  std::vector<std::pair<std::string, MLTensorLimits>> roles;
  // The limits of a role by member name; throws TypeError for an unknown role.
  const MLTensorLimits& operator[](std::string_view role) const;
};

// MLOpSupportLimits: global limits plus one member per operator (95), named like the method.
struct MLOpSupportLimits {
  MLInputOperandLayout preferredInputLayout = MLInputOperandLayout::kNchw;
  uint64_t maxTensorByteLength = 0;
  MLTensorLimits input;
  MLTensorLimits constant;
  MLTensorLimits output;
  std::vector<MLOpLimits> operators;  // indexed by OpType

  const MLOpLimits& op(OpType t) const { return operators.at(static_cast<size_t>(t)); }
  // Looks up by method name ("conv2d"); throws TypeError for an unknown op.
  const MLOpLimits& op(std::string_view method) const;
  // The spec's dictionary as JSON text (member names as in the IDL).
  std::string to_json() const;
};

}  // namespace cppnn

#pragma GCC visibility pop
