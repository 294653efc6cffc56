#include "cppnn/float16.h"

#include <bit>
#include <cmath>

namespace cppnn {

uint16_t float_to_half_bits(float value) noexcept {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) {  // Inf or NaN
    if (x > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((x >> 13) & 0x3ffu);
    return sign | 0x7c00u;
  }
  if (x >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to Inf
  if (x < 0x38800000u) {                        // below 2^-14: subnormal half or zero
    float a = std::bit_cast<float>(x);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24f));
  }
  uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias the exponent by -112 and round half to even
  return sign | static_cast<uint16_t>(x >> 13);
}

float half_bits_to_float(uint16_t h) noexcept {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t double_to_half_bits(double value) noexcept {
  uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  double a = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00u;
  if (a >= 65520.0) return sign | 0x7c00u;
  if (a < 0x1p-14) return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24));
  int e = 0;
  std::frexp(a, &e);                                 // a = m * 2^e, m in [0.5, 1)
  int E = e - 1;                                     // a = 1.f * 2^E
  double q = std::nearbyint(std::ldexp(a, 10 - E));  // in [1024, 2048]
  if (q >= 2048.0) {
    q = 1024.0;
    ++E;
  }
  if (E + 15 >= 31) return sign | 0x7c00u;
  return sign | static_cast<uint16_t>(((E + 15) << 10) + (static_cast<int>(q) - 1024));
}

uint16_t float_to_bfloat16_bits(float value) noexcept {
  uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bfloat16_bits_to_float(uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

}  // namespace cppnn
