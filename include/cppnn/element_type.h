// The C++ element type of each operand data type, for the typed constant() and writeTensor()
// overloads (cppnn extension): float (float32), Float16 (float16), int32_t, uint32_t, int64_t,
// uint64_t, int8_t, uint8_t. 4-bit types have no element type (pass packed bytes).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "cppnn/data_type.h"
#include "cppnn/float16.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// True for the element types above.
template <class T>
inline constexpr bool kIsElementType =
    std::is_same_v<T, float> || std::is_same_v<T, Float16> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, uint32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

// The data type whose elements are T.
template <class T>
requires kIsElementType<T>
constexpr MLOperandDataType element_data_type() {
  if constexpr (std::is_same_v<T, float>) return MLOperandDataType::kFloat32;
  if constexpr (std::is_same_v<T, Float16>) return MLOperandDataType::kFloat16;
  if constexpr (std::is_same_v<T, int32_t>) return MLOperandDataType::kInt32;
  if constexpr (std::is_same_v<T, uint32_t>) return MLOperandDataType::kUint32;
  if constexpr (std::is_same_v<T, int64_t>) return MLOperandDataType::kInt64;
  if constexpr (std::is_same_v<T, uint64_t>) return MLOperandDataType::kUint64;
  if constexpr (std::is_same_v<T, int8_t>) return MLOperandDataType::kInt8;
  return MLOperandDataType::kUint8;
}

// Elements of T with the data type they must match, as bytes.
struct TypedBytes {
  MLOperandDataType element_type;
  std::span<const std::byte> bytes;
};
template <class T>
requires kIsElementType<T> TypedBytes typed_bytes(std::span<const T> values) {
  return {element_data_type<T>(), std::as_bytes(values)};
}

}  // namespace cppnn

#pragma GCC visibility pop
