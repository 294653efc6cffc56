// Helpers shared by the elementwise, activation and data movement lowerings
// (lower_elementwise_binary.cpp, lower_elementwise_unary.cpp, lower_activations.cpp,
// lower_data_movement.cpp, ...): writing a node to a given name or a fresh one, the data type
// classes, bool <-> uint8 for comparisons and logical ops, and a Where over every WebNN data type
// (ONNX Runtime's CPU Where has no int8/uint32/uint64 kernel: those select in int32/int64,
// exactly).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/number.h"
#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

using DT = MLOperandDataType;

// float32 or float16.
inline bool is_float_type(DT t) {
  return t == DT::kFloat32 || t == DT::kFloat16;
}
// int8, int32, int64 (and int4, which graphs only use unpacked through dequantizeLinear).
inline bool is_signed_int_type(DT t) {
  return t == DT::kInt8 || t == DT::kInt32 || t == DT::kInt64 || t == DT::kInt4;
}

// Adds a node writing `out` when it is not empty, else a fresh value; returns the value's name.
inline std::string emit(Emitter& e, std::string_view op_type, std::vector<std::string> inputs,
                        const std::string& out, std::vector<Attr> attrs = {}) {
  if (out.empty()) return e.node(op_type, std::move(inputs), std::move(attrs));
  e.node_to(op_type, std::move(inputs), {out}, std::move(attrs));
  return out;
}

// ONNX Cast of `input` to `to` writing `out` (or a fresh value), even when the types match.
inline std::string cast_to(Emitter& e, const std::string& input, DT to, const std::string& out) {
  return emit(e, "Cast", {input}, out, {{"to", int64_t{onnx_type_of(to)}}});
}

// A WebNN uint8 condition (nonzero is true) as an ONNX bool tensor.
inline std::string u8_to_bool(Emitter& e, const std::string& input) {
  return e.node("Cast", {input}, {{"to", int64_t{onnx::TensorProto::BOOL}}});
}

// An ONNX bool tensor as WebNN's uint8 0/1, written to `out`.
inline std::string bool_to_u8(Emitter& e, const std::string& input, const std::string& out) {
  return cast_to(e, input, DT::kUint8, out);
}

// The type ONNX Runtime's CPU Where selects `t` in without changing any value: itself for
// float32/float16/int32/int64/uint8, int32 for int8, int64 for uint32 and uint64 (uint64 -> int64
// -> uint64 keeps the bits).
inline DT where_type(DT t) {
  switch (t) {
    case DT::kInt8:
    case DT::kInt4:
      return DT::kInt32;
    case DT::kUint32:
    case DT::kUint64:
      return DT::kInt64;
    case DT::kUint4:
      return DT::kUint8;
    default:
      return t;
  }
}

// Where(cond, x, y) for operands of WebNN type `t` (cond an ONNX bool tensor), written to `out`
// (or a fresh value).
inline std::string where_any(Emitter& e, const std::string& cond, const std::string& x,
                             const std::string& y, DT t, const std::string& out) {
  const DT w = where_type(t);
  if (w == t) return emit(e, "Where", {cond, x, y}, out);
  std::string r = e.node("Where", {cond, e.cast(x, t, w), e.cast(y, t, w)});
  return cast_to(e, r, t, out);
}

}  // namespace cppnn::onnx_export
