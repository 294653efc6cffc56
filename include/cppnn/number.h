// MLNumber: (bigint or unrestricted double), cast to an operand type by the spec's cast
// algorithm (webnn-spec.md §3.6, errata §6.7 and §6.19).
#pragma once

#include <cstdint>
#include <limits>

#include "cppnn/data_type.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// A number option (clamp bounds, pad value, scalar constant). Holds a double, or an exact 64-bit
// integer (a JS bigint; values beyond the 64-bit range saturate when they are made).
class MLNumber {
 public:
  enum class Kind : uint8_t { kDouble, kInt64, kUint64 };

  constexpr MLNumber() = default;
  constexpr MLNumber(double v) : kind_(Kind::kDouble), d_(v) {}         // NOLINT: implicit like IDL
  constexpr MLNumber(float v) : kind_(Kind::kDouble), d_(v) {}          // NOLINT
  constexpr MLNumber(int v) : kind_(Kind::kInt64), i_(v) {}             // NOLINT
  constexpr MLNumber(long v) : kind_(Kind::kInt64), i_(v) {}            // NOLINT
  constexpr MLNumber(long long v) : kind_(Kind::kInt64), i_(v) {}       // NOLINT
  constexpr MLNumber(unsigned v) : kind_(Kind::kUint64), u_(v) {}       // NOLINT
  constexpr MLNumber(unsigned long v) : kind_(Kind::kUint64), u_(v) {}  // NOLINT
  constexpr MLNumber(unsigned long long v) : kind_(Kind::kUint64), u_(v) {}  // NOLINT

  Kind kind() const noexcept { return kind_; }
  // The value as a double (bigints rounded).
  double as_double() const noexcept;
  bool is_nan() const noexcept { return kind_ == Kind::kDouble && d_ != d_; }
  int64_t raw_int64() const noexcept { return i_; }
  uint64_t raw_uint64() const noexcept { return u_; }

  // The spec cast algorithm to `type`: floats round to nearest even (overflow to +-Inf, NaN kept);
  // integers: NaN -> 0, clamp to the type range, truncate toward zero (WPT, §6.19).
  // Result as double for float types; as int64/uint64 for integers via the accessors below.
  double cast_to_double(MLOperandDataType type) const noexcept;
  int64_t cast_to_int64(MLOperandDataType type) const noexcept;    // signed integer types
  uint64_t cast_to_uint64(MLOperandDataType type) const noexcept;  // unsigned integer types
  // Writes the cast value as one element of `type` (little-endian, element size bytes) at `out`.
  void cast_to_bytes(MLOperandDataType type, void* out) const noexcept;
  // Compares two numbers after casting both to `type` (<0, 0, >0). NaN sorts as unordered (0).
  static int compare_as(MLOperandDataType type, const MLNumber& a, const MLNumber& b) noexcept;

  friend bool operator==(const MLNumber& a, const MLNumber& b) noexcept;

 private:
  Kind kind_ = Kind::kDouble;
  union {
    double d_ = 0.0;
    int64_t i_;
    uint64_t u_;
  };
};

}  // namespace cppnn

#pragma GCC visibility pop
