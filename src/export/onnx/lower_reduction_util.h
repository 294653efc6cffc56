// Helpers shared by the lowerings of the reductions family (reductions, normalizations, matrix
// products, recurrent networks): filled constants, float attributes as the op's data type holds
// them, and the integer types ONNX Runtime computes through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "cppnn/number.h"
#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

// Whether `type` is float32 or float16 (the types of the float-only ops).
inline bool is_float_type(MLOperandDataType type) {
  return type == MLOperandDataType::kFloat32 || type == MLOperandDataType::kFloat16;
}

// Whether `type` is an unsigned integer type (uint4 travels as uint8).
inline bool is_unsigned_type(MLOperandDataType type) {
  return type == MLOperandDataType::kUint8 || type == MLOperandDataType::kUint4 ||
         type == MLOperandDataType::kUint32 || type == MLOperandDataType::kUint64;
}

// A float option (epsilon, alpha, beta) as a float attribute, first cast to the op's data type
// (webnn-spec.md §3.6: an fp16 op holds ε rounded to fp16), as the reference backend does.
inline float float_attr(double value, MLOperandDataType type) {
  return static_cast<float>(MLNumber(value).cast_to_double(type));
}

// A constant of `type` and `shape` whose every element is `value` (cast by the spec's MLNumber
// cast algorithm). Used for the ONNX inputs that WebNN makes optional (scale = 1, bias = 0).
inline std::string const_filled(Emitter& e, MLOperandDataType type,
                                const std::vector<int64_t>& shape, const MLNumber& value) {
  const size_t size = data_type_bits(type) < 8 ? 1 : data_type_bits(type) / 8;  // int4: a byte
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  std::vector<std::byte> bytes(count * size);
  std::byte element[8] = {};
  MLNumber(value).cast_to_bytes(type, element);
  for (size_t i = 0; i < count; ++i) std::memcpy(bytes.data() + i * size, element, size);
  return e.const_tensor(type, shape, bytes);
}

// The product of dims[begin, end) (a part of a validated operand shape, so it fits in int64).
inline int64_t dims_product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

}  // namespace cppnn::onnx_export
