// GGUF metadata values (the GGUF specification, "gguf_metadata_value_type"): scalars, strings and
// arrays of any of them, arrays nested. Values are views into the parsed file's bytes (strings and
// arrays of numbers are not copied), valid while the GgufFile that holds them lives.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace cppnn::gguf {

// A metadata value type id as stored (GGUF `gguf_metadata_value_type`).
enum class GgufValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
inline constexpr uint32_t kValueTypeCount = 13;

// "uint8", "int32", "float32", "bool", "string", "array", ...
std::string_view value_type_name(GgufValueType type) noexcept;
// Bytes of one stored element of a fixed-size type (1, 2, 4 or 8); 0 for string and array.
uint32_t value_type_size(GgufValueType type) noexcept;
bool is_unsigned_type(GgufValueType type) noexcept;  // uint8..uint64
bool is_signed_type(GgufValueType type) noexcept;    // int8..int64
bool is_float_type(GgufValueType type) noexcept;     // float32, float64

// One metadata value. Which members hold it depends on `type`; the others stay empty.
struct GgufValue {
  GgufValueType type = GgufValueType::kUint8;
  uint64_t uint_value = 0;        // uint8..uint64, and bool (0 or 1)
  int64_t int_value = 0;          // int8..int64
  double float_value = 0;         // float32 (exactly) and float64
  std::string_view string_value;  // string: the stored bytes (UTF-8 by the spec; not checked)

  // type == kArray: the element type and count, and the elements in one of:
  GgufValueType element_type = GgufValueType::kUint8;
  uint64_t count = 0;
  std::span<const std::byte> packed;      // numbers and bools: `count` stored little-endian items
  std::vector<std::string_view> strings;  // strings
  std::vector<GgufValue> arrays;          // nested arrays

  // Element `i` (< count) of an array of numbers or bools as a scalar value.
  GgufValue packed_element(uint64_t i) const;
  // "uint32", "string", "array[string; 49152]", "array[array[int32; 2]; 3]".
  std::string type_string() const;
};

// Coercions for the typed getters (GgufFile::get_*): the value, or an error message without
// context ("expected an unsigned integer, found int32 -5"); the caller names the file and key.
// Any integer type in range (signed values >= 0).
Result<uint64_t> value_as_uint(const GgufValue& v);
// Any integer type in range (uint64 values up to INT64_MAX).
Result<int64_t> value_as_int(const GgufValue& v);
// float32 (exactly), float64, or any integer (rounded to the nearest double).
Result<double> value_as_float(const GgufValue& v);
Result<bool> value_as_bool(const GgufValue& v);
Result<std::string_view> value_as_string(const GgufValue& v);
// An array of strings (views into the file).
Result<std::vector<std::string_view>> value_as_string_array(const GgufValue& v);
// An array of any integer type, each element in the int64 range.
Result<std::vector<int64_t>> value_as_int_array(const GgufValue& v);
// An array of floats or integers (as value_as_float).
Result<std::vector<double>> value_as_float_array(const GgufValue& v);

}  // namespace cppnn::gguf
