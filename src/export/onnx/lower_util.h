// Small helpers shared by the lowering family files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

// The ONNX name of the op's i-th input operand ("" when that optional operand is absent).
inline const std::string& in(const Emitter& e, const Operation& op, size_t i) {
  return i < op.inputs.size() ? e.value(op.inputs[i]) : e.value(kNoOperand);
}
// The ONNX name of the op's i-th output operand.
inline const std::string& out(const Emitter& e, const Operation& op, size_t i = 0) {
  return e.value(op.outputs.at(i));
}
// Whether the op's i-th input operand is present.
inline bool has(const Operation& op, size_t i) {
  return i < op.inputs.size() && op.inputs[i] != kNoOperand;
}
// A list of uint32 (WebNN dims, axes, ...) as int64 (ONNX attributes).
template <class T>
std::vector<int64_t> to_i64(const std::vector<T>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

}  // namespace cppnn::onnx_export
