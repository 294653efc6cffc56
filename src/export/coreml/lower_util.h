// Small helpers shared by the CoreML lowering family files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/export/coreml/emitter.h"

namespace cppnn::coreml_export {

// The variable name of the op's i-th input operand.
inline const std::string& in(const Emitter& e, const Operation& op, size_t i) {
  return e.value(op.inputs.at(i));
}
// Whether the op's i-th input operand is present.
inline bool has(const Operation& op, size_t i) {
  return i < op.inputs.size() && op.inputs[i] != kNoOperand;
}
// A list of WebNN integers (dims, axes, ...) as int64.
template <class T>
std::vector<int64_t> to_i64(const std::vector<T>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}
// The MIL type of the op's i-th output.
inline MilType out_type(const Emitter& e, const Operation& op, size_t i = 0) {
  return e.mil_type(op.outputs.at(i));
}

}  // namespace cppnn::coreml_export
