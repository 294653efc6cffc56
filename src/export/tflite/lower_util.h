// Helpers every TFLite lowering family uses: operand types and shapes, booleans (WebNN's uint8
// 0/1 <-> TFLite's BOOL), computing narrow integer types in a wider one and wrapping back, and
// reading constant operands. Family-specific helpers live in their own lower_<family>_util.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/graph_model.h"
#include "src/export/tflite/emitter.h"

namespace cppnn::tflite_export {

// The WebNN data type of operand `id`.
inline MLOperandDataType data_type_of(const Graph& g, OperandId id) {
  return g.descriptor(id).dataType;
}
// The WebNN shape of operand `id` as TFLite's int32 shape.
inline std::vector<int32_t> shape_of(const Graph& g, OperandId id) {
  return tflite_shape(g.descriptor(id).shape);
}
// Whether the operation's input `i` is present (optional operands are kNoOperand when absent).
inline bool has_input(const Operation& op, size_t i) {
  return i < op.inputs.size() && op.inputs[i] != kNoOperand;
}
inline bool is_float(MLOperandDataType t) {
  return t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16;
}

// A WebNN boolean (uint8, 0 false, anything else true) as a TFLite BOOL tensor: CAST, which
// gives x != 0 (a uint8 NOT_EQUAL would be a quantized comparison, which aborts without
// quantization parameters).
inline TensorIndex to_bool(Emitter& e, TensorIndex t) {
  return e.cast(t, tfl::TensorType::BOOL);
}
// A TFLite BOOL tensor as WebNN's uint8 0/1 (CAST).
inline TensorIndex from_bool(Emitter& e, TensorIndex t) {
  return e.cast(t, tfl::TensorType::UINT8);
}

// The type an integer arithmetic op of WebNN type `t` is computed in so that the result, wrapped
// back to `t` by CAST (two's-complement truncation), is exact: int8/uint8 in int32 (TFLite's
// int8/uint8 arithmetic is quantized arithmetic), uint32 in int64; others themselves.
inline tfl::TensorType wide_type_of(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      return tfl::TensorType::INT32;
    case MLOperandDataType::kUint32:
      return tfl::TensorType::INT64;
    default:
      return compute_type_of(t);
  }
}

// The constant bytes of operand `id` as a vector of T (nullopt when not a constant).
template <class T>
std::optional<std::vector<T>> constant_values(const Graph& g, OperandId id) {
  if (g.operand(id).kind != OperandKind::kConstant) return std::nullopt;
  const auto bytes = g.constant(id).bytes();
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

// A std::vector<uint32_t> of WebNN (axes, sizes, ...) as int32.
inline std::vector<int32_t> to_i32(const std::vector<uint32_t>& v) {
  return std::vector<int32_t>(v.begin(), v.end());
}

}  // namespace cppnn::tflite_export
