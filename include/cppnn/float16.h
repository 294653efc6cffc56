// IEEE binary16 and bfloat16 conversions: round to nearest even, NaN and infinity kept.
#pragma once

#include <cstdint>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// float -> binary16 bits, round to nearest even; overflow gives +-Inf; NaN stays a quiet NaN
// with the sign kept.
uint16_t float_to_half_bits(float value) noexcept;
// binary16 bits -> float (exact).
float half_bits_to_float(uint16_t bits) noexcept;
// double -> binary16 bits with a single rounding (no double rounding through float).
uint16_t double_to_half_bits(double value) noexcept;
// float -> bfloat16 bits, round to nearest even; NaN stays NaN.
uint16_t float_to_bfloat16_bits(float value) noexcept;
// bfloat16 bits -> float (exact).
float bfloat16_bits_to_float(uint16_t bits) noexcept;

// One float16 element as stored (IEEE binary16 bits), for the typed constant() and writeTensor()
// overloads: `std::vector<Float16> v = {Float16(1.5f)}`.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float value) noexcept : bits(float_to_half_bits(value)) {}
  static Float16 from_bits(uint16_t b) noexcept {
    Float16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const noexcept { return half_bits_to_float(bits); }
};
static_assert(sizeof(Float16) == 2);

}  // namespace cppnn

#pragma GCC visibility pop
