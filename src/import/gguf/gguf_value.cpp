#include "src/import/gguf/gguf_value.h"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace cppnn::gguf {
namespace {

using T = GgufValueType;

struct TypeRow {
  std::string_view name;
  uint32_t size;
};
// Indexed by the type id (the spec's table).
constexpr std::array<TypeRow, kValueTypeCount> kTypes = {{{"uint8", 1},
                                                          {"int8", 1},
                                                          {"uint16", 2},
                                                          {"int16", 2},
                                                          {"uint32", 4},
                                                          {"int32", 4},
                                                          {"float32", 4},
                                                          {"bool", 1},
                                                          {"string", 0},
                                                          {"array", 0},
                                                          {"uint64", 8},
                                                          {"int64", 8},
                                                          {"float64", 8}}};

template <class... A>
ErrorInfo fail(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

// A short description of a value for messages: its type, and a scalar's value.
std::string describe(const GgufValue& v) {
  if (is_unsigned_type(v.type)) return str_cat(value_type_name(v.type), " ", v.uint_value);
  if (is_signed_type(v.type)) return str_cat(value_type_name(v.type), " ", v.int_value);
  return v.type_string();
}

uint64_t load_le(std::span<const std::byte> bytes) {
  uint64_t x = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    x |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  return x;
}

// The sign-extension of the low `bytes` bytes of `x`.
int64_t sign_extend(uint64_t x, uint32_t bytes) {
  const unsigned shift = 64 - 8 * bytes;
  return static_cast<int64_t>(x << shift) >> shift;
}

// The elements of an array whose element type `accepts`, each through `convert`.
template <class Out, class Accepts, class Convert>
Result<std::vector<Out>> convert_array(const GgufValue& v, std::string_view expected,
                                       Accepts accepts, Convert convert) {
  if (v.type != T::kArray || !accepts(v.element_type))
    return fail("expected ", expected, ", found ", describe(v));
  std::vector<Out> out;
  out.reserve(v.count);  // count * element size bytes are in the file (the parser checked)
  for (uint64_t i = 0; i < v.count; ++i) {
    auto x = convert(v.packed_element(i));
    if (!x) return fail("element ", i, ": ", x.error().message);
    out.push_back(*x);
  }
  return out;
}

}  // namespace

std::string_view value_type_name(GgufValueType type) noexcept {
  const auto id = static_cast<uint32_t>(type);
  return id < kValueTypeCount ? kTypes[id].name : std::string_view("unknown");
}

uint32_t value_type_size(GgufValueType type) noexcept {
  const auto id = static_cast<uint32_t>(type);
  return id < kValueTypeCount ? kTypes[id].size : 0;
}

bool is_unsigned_type(GgufValueType t) noexcept {
  return t == T::kUint8 || t == T::kUint16 || t == T::kUint32 || t == T::kUint64;
}
bool is_signed_type(GgufValueType t) noexcept {
  return t == T::kInt8 || t == T::kInt16 || t == T::kInt32 || t == T::kInt64;
}
bool is_float_type(GgufValueType t) noexcept {
  return t == T::kFloat32 || t == T::kFloat64;
}

GgufValue GgufValue::packed_element(uint64_t i) const {
  GgufValue e;
  e.type = element_type;
  const uint32_t size = value_type_size(element_type);
  if (size == 0 || i >= count || (i + 1) * size > packed.size()) return e;
  const uint64_t bits = load_le(packed.subspan(i * size, size));
  if (is_unsigned_type(element_type) || element_type == T::kBool) {
    e.uint_value = bits;
  } else if (is_signed_type(element_type)) {
    e.int_value = sign_extend(bits, size);
  } else if (element_type == T::kFloat32) {
    e.float_value = std::bit_cast<float>(static_cast<uint32_t>(bits));
  } else {
    e.float_value = std::bit_cast<double>(bits);
  }
  return e;
}

std::string GgufValue::type_string() const {
  if (type != T::kArray) return std::string(value_type_name(type));
  std::string element = (element_type == T::kArray && !arrays.empty())
                            ? arrays.front().type_string()
                            : std::string(value_type_name(element_type));
  return str_cat("array[", element, "; ", count, "]");
}

Result<uint64_t> value_as_uint(const GgufValue& v) {
  if (is_unsigned_type(v.type)) return v.uint_value;
  if (is_signed_type(v.type)) {
    if (v.int_value < 0) return fail("expected an unsigned integer, found ", describe(v));
    return static_cast<uint64_t>(v.int_value);
  }
  return fail("expected an unsigned integer, found ", describe(v));
}

Result<int64_t> value_as_int(const GgufValue& v) {
  if (is_signed_type(v.type)) return v.int_value;
  if (is_unsigned_type(v.type)) {
    if (v.uint_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return fail("expected an integer in the int64 range, found ", describe(v));
    return static_cast<int64_t>(v.uint_value);
  }
  return fail("expected an integer, found ", describe(v));
}

Result<double> value_as_float(const GgufValue& v) {
  if (is_float_type(v.type)) return v.float_value;
  if (is_unsigned_type(v.type)) return static_cast<double>(v.uint_value);
  if (is_signed_type(v.type)) return static_cast<double>(v.int_value);
  return fail("expected a number, found ", describe(v));
}

Result<bool> value_as_bool(const GgufValue& v) {
  if (v.type == T::kBool) return v.uint_value != 0;
  return fail("expected a bool, found ", describe(v));
}

Result<std::string_view> value_as_string(const GgufValue& v) {
  if (v.type == T::kString) return v.string_value;
  return fail("expected a string, found ", describe(v));
}

Result<std::vector<std::string_view>> value_as_string_array(const GgufValue& v) {
  if (v.type != T::kArray || v.element_type != T::kString)
    return fail("expected an array of strings, found ", describe(v));
  return v.strings;
}

Result<std::vector<int64_t>> value_as_int_array(const GgufValue& v) {
  return convert_array<int64_t>(
      v, "an array of integers",
      [](GgufValueType t) { return is_signed_type(t) || is_unsigned_type(t); }, value_as_int);
}

Result<std::vector<double>> value_as_float_array(const GgufValue& v) {
  return convert_array<double>(
      v, "an array of numbers",
      [](GgufValueType t) { return is_signed_type(t) || is_unsigned_type(t) || is_float_type(t); },
      value_as_float);
}

}  // namespace cppnn::gguf
