// Helpers shared by the data movement, gather/scatter and quantization lowerings
// (lower_data_movement.cpp, lower_gather_scatter.cpp, lower_quantization.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

// The bytes of operand `id` when it is a graph constant (as the graph stores them: int4/uint4
// packed), or nullptr when it is an input or an operation's result.
inline const ConstantData* constant_data(const Emitter& e, OperandId id) {
  if (id == kNoOperand) return nullptr;
  const OperandInfo& info = e.graph().operand(id);
  if (info.kind != OperandKind::kConstant) return nullptr;
  return &e.graph().constants.at(info.producer);
}

// Writes `input` to `output` unchanged (an op that moves no element, e.g. a slice of everything).
inline void identity_to(Emitter& e, const std::string& input, const std::string& output) {
  e.node_to("Identity", {input}, {output});
}

// `value` reshaped to `shape` (a "Reshape" node; ONNX Runtime folds it for initializers).
inline std::string reshaped(Emitter& e, const std::string& value, std::span<const int64_t> shape) {
  return e.node("Reshape", {value, e.const_i64(shape)});
}

// Product of `dims` (shapes are validated by the builder, so it cannot overflow int64).
inline int64_t element_count(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace cppnn::onnx_export
