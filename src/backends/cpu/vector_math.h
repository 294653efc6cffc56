// Float32 transcendental functions for the cpu backend's vectorised loops: branch-free scalar code
// (selects, no calls, integer bit tricks through std::bit_cast) that the compiler turns into
// AVX-512, AVX2 or baseline vector code in CPPNN_CPU_CLONES functions. Each states its accuracy;
// they serve ops whose WPT tolerance they meet (exp 32 ULP, sigmoid 34 ULP, gelu 18 ULP, tanh and
// erf an absolute 1/1024), while the reference kernels stay the exact (double) oracle.
#pragma once

#include <bit>
#include <cstdint>

namespace cppnn::cpu::vmath {

// e^x within 2 ULP (Cephes' expf: x = n·ln2 + r with |r| <= ln2/2 and ln2 in two parts, a degree
// 6 polynomial for e^r, and 2^n applied as two powers of two built in the exponent bits, so that
// subnormal results and the overflow to +Inf come out right). NaN stays NaN.
inline float exp(float x) {
  const bool nan = x != x;
  float v = nan ? 0.0f : x;
  v = v < -104.0f ? -104.0f : v;                                           // e^-104 rounds to 0
  v = v > 89.0f ? 89.0f : v;                                               // e^89 overflows
  const float n = (v * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(v / ln2)
  float r = v - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  const int32_t ni = static_cast<int32_t>(n);  // in [-150, 128]
  const int32_t half = ni / 2;
  const float s1 = std::bit_cast<float>((half + 127) << 23);
  const float s2 = std::bit_cast<float>((ni - half + 127) << 23);
  const float y = (er * s1) * s2;
  return nan ? x : y;
}

// 1 / (1 + e^-x) within 4 ULP: e = e^-|x| never overflows, and for x < 0 the result is e / (1 + e).
inline float sigmoid(float x) {
  const float e = exp(x < 0.0f ? x : -x);  // e^-|x| (NaN stays NaN)
  const float s = 1.0f / (1.0f + e);
  return x < 0.0f ? e * s : s;
}

// tanh(x) within 2e-7 absolute: sign(x)·(1 − e)/(1 + e) with e = e^-2|x|.
inline float tanh(float x) {
  const float a = x < 0.0f ? -x : x;
  const float e = exp(-2.0f * a);
  const float t = (1.0f - e) / (1.0f + e);
  return x < 0.0f ? -t : (x > 0.0f ? t : x);  // keeps ±0 and NaN
}

// erf(x): for |x| < 0.5 its Taylor series to x^15 (relative error below 1e-8), elsewhere
// Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, 3e-7 in float32); odd.
inline float erf(float x) {
  const float a = x < 0.0f ? -x : x;
  const float z = a * a;
  float s = -1.0f / 75600.0f;  // the series in z: x·2/√π·Σ (-1)^k z^k / (k!(2k+1))
  s = s * z + 1.0f / 9360.0f;
  s = s * z - 1.0f / 1320.0f;
  s = s * z + 1.0f / 216.0f;
  s = s * z - 1.0f / 42.0f;
  s = s * z + 1.0f / 10.0f;
  s = s * z - 1.0f / 3.0f;
  s = s * z + 1.0f;
  const float series = 1.1283791670955126f * a * s;
  const float ac = a > 10.0f ? 10.0f : a;  // erf(10) is 1 in float32
  const float t = 1.0f / (1.0f + 0.3275911f * ac);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const float as = 1.0f - p * t * exp(-ac * ac);
  const float r = a < 0.5f ? series : as;
  return x < 0.0f ? -r : (x > 0.0f ? r : x);  // keeps ±0 and NaN
}

// x² as hi + lo exactly (Dekker's product: |x| below 2^60, every partial product exact).
inline void square_exact(float x, float& hi, float& lo) {
  const float c = 4097.0f * x;
  const float xh = c - (c - x), xl = x - xh;
  hi = x * x;
  lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
}

// gelu(x) = x/2·(1 + erf(x/√2)) within 8 ULP. x >= 0: through erf above. x < 0: x/2·erfc(z) with
// z = -x/√2 and Numerical Recipes' erfc(z) = t·e^(-z² + P(t)), t = 1/(1 + z/2) (relative error
// below 1.2e-7), with z² = x²/2 split exactly into hi + lo and e^(-hi) taken apart from
// e^(P(t) − lo), so the large exponent adds no rounding error of its own.
inline float gelu(float x) {
  const float pos = 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));
  const float xn = x < -20.0f ? -20.0f : (x < 0.0f ? x : 0.0f);  // erfc(20/√2) is 0 in float32
  float hi, lo;
  square_exact(xn, hi, lo);
  hi *= 0.5f;  // exact: z² = hi + lo
  lo *= 0.5f;
  const float z = -xn * 0.70710678118654752f;
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float erfc = t * exp(-hi) * exp(p - lo);
  const float neg = 0.5f * x * erfc;
  return x < 0.0f ? neg : pos;  // NaN goes to pos, which keeps it
}

}  // namespace cppnn::cpu::vmath
