// Operand data types (webnn-spec.md §3.1) plus the int4/uint4 storage types used by weight files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// MLOperandDataType. The first 8 are the spec's; int4/uint4 are cppnn storage types for packed
// weights (two values per byte, low nibble first) and are not accepted by builder operations.
enum class MLOperandDataType : uint8_t {
  kFloat32,
  kFloat16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kInt8,
  kUint8,
  kInt4,
  kUint4,
};

inline constexpr int kSpecDataTypeCount = 8;  // the spec's 8 operand types
inline constexpr int kAllDataTypeCount = 10;  // with int4/uint4

// A set of data types as a bit mask (bit i = MLOperandDataType(i)).
using DataTypeMask = uint16_t;
constexpr DataTypeMask mask_of(MLOperandDataType t) {
  return DataTypeMask(1u << unsigned(t));
}
constexpr bool mask_has(DataTypeMask m, MLOperandDataType t) {
  return (m & mask_of(t)) != 0;
}

// The spec's enum string ("float32", ...), or "int4"/"uint4".
std::string_view data_type_name(MLOperandDataType t) noexcept;
// Parses an enum string; nullopt for an unknown name.
std::optional<MLOperandDataType> parse_data_type(std::string_view name) noexcept;
// Size in bits of one element (4 for int4/uint4).
unsigned data_type_bits(MLOperandDataType t) noexcept;
bool is_floating_point(MLOperandDataType t) noexcept;
bool is_signed_integer(MLOperandDataType t) noexcept;
bool is_unsigned_integer(MLOperandDataType t) noexcept;
// True for the 8 spec types (not int4/uint4).
bool is_spec_data_type(MLOperandDataType t) noexcept;

}  // namespace cppnn

#pragma GCC visibility pop
