// Element types of the reference backend: the C++ type of each operand data type (float16 as
// Half, which stays 16-bit in memory), a type visitor, and conversions through double.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cppnn/data_type.h"
#include "cppnn/errors.h"
#include "cppnn/float16.h"

namespace cppnn::ref {

// IEEE binary16 storage; arithmetic goes through float/double and rounds back to nearest even.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  explicit Half(float f) : bits(float_to_half_bits(f)) {}
  explicit Half(double d) : bits(double_to_half_bits(d)) {}
  explicit operator float() const { return half_bits_to_float(bits); }
  explicit operator double() const { return half_bits_to_float(bits); }
};

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with the element type of `t` (int4/uint4 are not element types here:
// kernels that accept them unpack them). Throws OperationError for int4/uint4.
template <class F>
decltype(auto) visit_data_type(MLOperandDataType t, F&& f) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return f(Tag<float>{});
    case MLOperandDataType::kFloat16:
      return f(Tag<Half>{});
    case MLOperandDataType::kInt32:
      return f(Tag<int32_t>{});
    case MLOperandDataType::kUint32:
      return f(Tag<uint32_t>{});
    case MLOperandDataType::kInt64:
      return f(Tag<int64_t>{});
    case MLOperandDataType::kUint64:
      return f(Tag<uint64_t>{});
    case MLOperandDataType::kInt8:
      return f(Tag<int8_t>{});
    case MLOperandDataType::kUint8:
      return f(Tag<uint8_t>{});
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      break;
  }
  throw OperationError("reference backend: 4-bit data is only accepted by dequantizeLinear");
}

template <class T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, Half>;

// Reads an element as double (exact for every type but int64/uint64 beyond 2^53).
template <class T>
double to_double(T v) {
  return static_cast<double>(v);
}
// Rounds a double to the element type: floats to nearest even (overflow to Inf, NaN kept);
// integers truncate toward zero and saturate (NaN -> 0).
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, Half>) {
    return Half(v);
  } else {
    if (std::isnan(v)) return T(0);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

}  // namespace cppnn::ref
