// Float32 transcendental functions for the cpu backend's loops, written once for a float and for a
// simd::VF of 16 lanes (simd.h): branch-free (both sides computed, then selected), so a loop over
// VF is vector code in every CPPNN_CPU_CLONES clone. Each states its accuracy; they serve ops whose
// WPT tolerance they meet (exp 32 ULP, sigmoid 34 ULP, gelu 18 ULP, tanh and erf an absolute
// 1/1024), while the reference kernels stay the exact (double) oracle.
#pragma once

#include "src/backends/cpu/simd.h"

namespace cppnn::cpu::vmath {

using simd::as_float;
using simd::sel;
using simd::sel_int;
using simd::splat;
using simd::to_int;

// er·2^n rounded once to float32, for er in [0.5, 2) and n in [-151, 128]: two powers of two built
// in the exponent bits for a normal result (and the overflow to +Inf); a result below 2^-126 as
// the subnormal's bits, er·2^(n+149) rounded to an integer (adding and subtracting 2^23 rounds to
// nearest-even), the same single rounding as a multiply, without the multiply: a float product
// with a subnormal result takes a microcode assist of about a hundred cycles on x86, which
// attention's softmax rows (far below their maximum) hit at every vector.
template <class V, class I>
CPPNN_SIMD_INLINE V scale_by_pow2(V er, I n) {
  // t = er·2^(n+149) where n < -125 (er·2^n < 2^-124), else er·2^24 (k = 24 + min(n + 125, 0));
  // er·2^n is subnormal where t < 2^23, compared on t's bits (t > 0). Lane masks come from sign
  // shifts: GCC compiles comparisons of 16 int32 lanes, and combinations of masks, lane by lane
  // for AVX2 (and the latter for AVX-512 too).
  const I shift = n + 125;
  const I k = 24 + (shift & (shift >> 31));
  const V t = er * as_float((k + 127) << 23);                 // exact
  const I subnormal = (simd::to_bits(t) - 0x4B000000) >> 31;  // all ones where t < 2^23
  const V bits = (t + 8388608.0f) - 8388608.0f;
  const I nn = n - (subnormal & n);  // 0 there, so that the normal path stays normal
  const auto half = nn >> 1;         // both halves in [-75, 64]
  const V y = (er * as_float((half + 127) << 23)) * as_float((nn - half + 127) << 23);
  return sel(subnormal, as_float(to_int(bits)), y);
}

// e^x as er·2^n: x = n·ln2 + r with |r| <= ln2/2 and ln2 in two parts, er = e^r by Cephes' degree
// 6 polynomial (within 2 ULP once scaled). x is neither NaN nor outside [-104, 89].
template <class V>
CPPNN_SIMD_INLINE V exp_mantissa(V v, decltype(to_int(V{}))* n_out) {
  const V n = (v * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(v / ln2)
  V r = v - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  V p = splat<V>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  *n_out = to_int(n);  // in [-150, 128]
  return p * r * r + r + 1.0f;
}

// e^x within 2 ULP (Cephes' expf, exp_mantissa, scaled by scale_by_pow2 so that subnormal
// results and the overflow to +Inf come out right). NaN stays NaN.
template <class V>
CPPNN_SIMD_INLINE V exp(V x) {
  const auto nan = x != x;
  V v = sel(nan, splat<V>(0.0f), x);
  v = sel(v < -104.0f, splat<V>(-104.0f), v);  // e^-104 rounds to 0
  v = sel(v > 89.0f, splat<V>(89.0f), v);      // e^89 overflows
  decltype(to_int(V{})) n;
  const V er = exp_mantissa(v, &n);
  return sel(nan, x, scale_by_pow2(er, n));
}

// e^x for x in [-80, 80] (no overflow, no subnormal result): exp_mantissa's er·2^n with 2^n added
// to er's exponent bits (exact, no multiply); within 2 ULP. Not for NaN.
template <class V>
CPPNN_SIMD_INLINE V exp_in_range(V x) {
  decltype(to_int(V{})) n;
  const V er = exp_mantissa(x, &n);
  return as_float(simd::to_bits(er) + (n << 23));
}

// ln(x) within 2 ULP (Cephes' logf: x = m·2^e with m in [√½, √2), ln(1 + z) for z = m − 1 by
// z − z²/2 + z³·P(z), e·ln2 in two parts); subnormal x scaled by 2^25 first. ln(±0) = −Inf,
// ln(x < 0) = NaN, ln(+Inf) = +Inf, NaN stays NaN.
template <class V>
CPPNN_SIMD_INLINE V log(V x) {
  const auto tiny = x < 1.17549435e-38f;       // subnormal (or zero, negative, handled below)
  const V xs = sel(tiny, x * 33554432.0f, x);  // · 2^25
  const auto bits = simd::to_bits(xs);
  auto e = ((bits >> 23) & 0xFF) - 126;
  V m = as_float((bits & 0x807FFFFF) | 0x3F000000);  // in [0.5, 1)
  const auto low = m < 0.70710678118654752f;
  e = e - sel_int(low, 1);
  m = sel(low, m + m - 1.0f, m - 1.0f);
  V ef = simd::to_float(e);
  ef = sel(tiny, ef - 25.0f, ef);
  const V z = m * m;
  V p = splat<V>(7.0376836292e-2f);
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  V y = m * z * p;
  y = y + ef * -2.12194440e-4f;
  y = y - 0.5f * z;
  V r = (m + y) + ef * 0.693359375f;
  const V inf = splat<V>(__builtin_inff());
  r = sel(x == 0.0f, -inf, r);
  r = sel(x == inf, inf, r);
  r = sel(x < 0.0f, splat<V>(__builtin_nanf("")), r);
  return sel(x != x, x, r);
}

// 1 / (1 + e^-x) within 4 ULP: e = e^-|x| never overflows, and for x < 0 the result is e / (1 + e).
// Below 2^-25, 1 + e rounds to 1 and e·s is e itself: that e is taken as is, so that no product
// has a subnormal result (x < -87.3; a microcode assist per vector on x86, see scale_by_pow2).
template <class V>
CPPNN_SIMD_INLINE V sigmoid(V x) {
  const auto negative = x < 0.0f;
  const V e = exp(sel(negative, x, -x));  // e^-|x| (NaN stays NaN)
  const V s = 1.0f / (1.0f + e);
  const auto tiny = e < 2.98023224e-8f;  // 2^-25
  return sel(negative, sel(tiny, e, sel(tiny, splat<V>(1.0f), e) * s), s);
}

// sigmoid(x) for x >= -87, +Inf and NaN, bit-identical to sigmoid(): there e^-|x| is normal
// (e^-87 > 2^-126), or, above 87, too small to change 1 / (1 + e), so exp_in_range serves
// without exp's clamps and subnormal handling (about half of sigmoid's instructions). A NaN
// comes back as sigmoid gives it, -x made quiet (e^-x's NaN). Callers check any_below_minus_87
// first.
template <class V>
CPPNN_SIMD_INLINE V sigmoid_above_minus_87(V x) {
  const auto nan = x != x;
  const auto negative = x < 0.0f;
  V a = sel(negative, x, -x);  // -|x|
  a = sel(a < -87.0f, splat<V>(-87.0f), a);
  const V e = exp_in_range(sel(nan, splat<V>(0.0f), a));
  const V s = 1.0f / (1.0f + e);
  const V quiet_minus_x = as_float((simd::to_bits(x) ^ INT32_MIN) | 0x00400000);
  return sel(nan, quiet_minus_x, sel(negative, e * s, s));
}

// Whether some of x[0, n) is below -87 (-Inf and a NaN with its sign bit included): what
// sigmoid_above_minus_87 does not take. One pass of additions, their sign bits OR-ed.
CPPNN_SIMD_INLINE bool any_below_minus_87(const float* x, size_t n) {
  simd::VI signs = {};
  size_t i = 0;
  for (; i + simd::kWidth <= n; i += simd::kWidth)
    signs |= simd::to_bits(simd::load(x + i) + 87.0f);
  int32_t tail = 0;
  for (; i < n; ++i) tail |= simd::to_bits(x[i] + 87.0f);
  return tail < 0 || simd::any(signs & INT32_MIN);
}

// RN(x·s) for an s that is ±0 or subnormal (s = m·2^-149, m its bits), without
// a float32 product that has a subnormal operand or result (a microcode assist on x86): the exact
// product in double (24 and 23 bits), converted once where it is normal, else rounded to the
// subnormal grid by adding 1.5·2^52 to |x·s|·2^149 (the integer then is the result's bits), with
// the product's sign.
CPPNN_SIMD_INLINE float product_with_subnormal(float x, float s) {
  const double p = double(x) * (double(simd::to_bits(s) & INT32_MAX) * 0x1p-149);
  const double a = p < 0 ? -p : p;
  if (!(a < 0x1p-126)) return static_cast<float>(p);  // normal, or NaN (-Inf · 0)
  const double q = (a * 0x1p149 + 0x1.8p52) - 0x1.8p52;
  return as_float(static_cast<int32_t>(q) | ((simd::to_bits(x) ^ simd::to_bits(s)) & INT32_MIN));
}
template <size_t... I>
CPPNN_SIMD_INLINE simd::VD int_lanes_as_double(const int32_t* p, std::index_sequence<I...>) {
  return simd::VD{double(p[I])...};
}
CPPNN_SIMD_INLINE simd::VF product_with_subnormal(simd::VF x, simd::VF s) {
  using simd::VD, simd::VL;
  float xs[simd::kWidth], out[simd::kWidth];
  int32_t ms[simd::kWidth], sign[simd::kWidth];
  simd::store(xs, x);
  const simd::VI sb = simd::to_bits(s), magnitude = sb & INT32_MAX;
  std::memcpy(ms, &magnitude, sizeof ms);
  const simd::VI sg = (simd::to_bits(x) ^ sb) & INT32_MIN;
  std::memcpy(sign, &sg, sizeof sign);
  for (size_t h = 0; h < simd::kWidth; h += simd::kDoubles) {
    const VD m = int_lanes_as_double(ms + h, std::make_index_sequence<simd::kDoubles>{});
    const VD p = simd::load_double(xs + h) * (m * 0x1p-149);  // exact
    const VD a = simd::as_double(simd::to_bits(p) & INT64_MAX);
    const VL subnormal = a < 0x1p-126;                 // false for NaN
    const VD q = (a * 0x1p149 + 0x1.8p52) - 0x1.8p52;  // the integer, exact in double
    const simd::VFH normal = __builtin_convertvector(sel(subnormal, VD{}, p), simd::VFH);
    for (size_t i = 0; i < simd::kDoubles; ++i)
      out[h + i] = subnormal[i] ? as_float(static_cast<int32_t>(q[i]) | sign[h + i]) : normal[i];
  }
  return simd::load(out);
}

// tanh(x) within 2e-7 absolute: sign(x)·(1 − e)/(1 + e) with e = e^-2|x|.
template <class V>
CPPNN_SIMD_INLINE V tanh(V x) {
  const auto negative = x < 0.0f;
  const V a = sel(negative, -x, x);
  const V e = exp(-2.0f * a);
  const V t = (1.0f - e) / (1.0f + e);
  return sel(negative, -t, sel(x > 0.0f, t, x));  // keeps ±0 and NaN
}

// erf(x): for |x| < 0.5 its Taylor series to x^15 (relative error below 1e-8), elsewhere
// Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, 3e-7 in float32); odd.
template <class V>
CPPNN_SIMD_INLINE V erf(V x) {
  const auto negative = x < 0.0f;
  const V a = sel(negative, -x, x);
  const V z = a * a;
  V s = splat<V>(-1.0f / 75600.0f);  // the series in z: x·2/√π·Σ (-1)^k z^k / (k!(2k+1))
  s = s * z + 1.0f / 9360.0f;
  s = s * z - 1.0f / 1320.0f;
  s = s * z + 1.0f / 216.0f;
  s = s * z - 1.0f / 42.0f;
  s = s * z + 1.0f / 10.0f;
  s = s * z - 1.0f / 3.0f;
  s = s * z + 1.0f;
  const V series = 1.1283791670955126f * a * s;
  const V ac = sel(a > 10.0f, splat<V>(10.0f), a);  // erf(10) is 1 in float32
  const V t = 1.0f / (1.0f + 0.3275911f * ac);
  V p = splat<V>(1.061405429f);
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const V as = 1.0f - p * t * exp(-ac * ac);
  const V r = sel(a < 0.5f, series, as);
  return sel(negative, -r, sel(x > 0.0f, r, x));  // keeps ±0 and NaN
}

// gelu(x) = x/2·(1 + erf(x/√2)) within 9 ULP (7 above -1; the most near -13, where the result
// nears float32's subnormals), through one erfc: with z = |x|/√2 and Numerical
// Recipes' erfc(z) = t·e^(-z² + P(t)), t = 1/(1 + z/2) (relative error below 1.2e-7), gelu is
// x/2·erfc(z) for x < 0 and x·(1 − erfc(z)/2) otherwise (1 + erf(−z) = erfc(z), 1 + erf(z) =
// 2 − erfc(z)). z² = x²/2 is split exactly into hi + lo (Dekker's product: every partial product
// exact) and e^(-hi) taken apart from e^(P(t) − lo), so the large exponent of a far negative x
// adds no rounding error of its own (the second, of a small argument, by exp_in_range). |x| is
// capped at 20 (erfc(20/√2) is 0 in float32); ±0, ±∞ and NaN come out as the formula's (−∞ gives
// NaN, as −∞·0).
template <class V>
CPPNN_SIMD_INLINE V gelu(V x) {
  const auto negative = x < 0.0f;
  const V a = sel(negative, -x, x);
  const V ac = sel(a > 20.0f, splat<V>(20.0f), a);  // NaN stays NaN
  const V c = 4097.0f * ac;
  const V xh = c - (c - ac), xl = ac - xh;
  const V hi = ac * ac;
  const V lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
  const V z = ac * 0.70710678118654752f;
  const V t = 1.0f / (1.0f + 0.5f * z);
  V p = splat<V>(0.17087277f);
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  // P(t) − lo lies in [-2, 1] (NaN only with x NaN, when t is NaN too).
  const V erfc = t * exp(-0.5f * hi) * exp_in_range(p - 0.5f * lo);
  return sel(negative, 0.5f * x * erfc, x * (1.0f - 0.5f * erfc));
}

// e^x in double within 2 ULP of double (x = n·ln2 + r with ln2 in two parts, e^r by its Taylor
// series to r^13, 2^n applied as two powers of two): results rounded to float32 are the reference's
// std::exp ones but in the rarest ties. NaN stays NaN; overflow gives +Inf, underflow 0.
template <class V>
CPPNN_SIMD_INLINE V exp_double(V x) {
  using simd::as_double;
  const auto nan = x != x;
  V v = sel(nan, splat<V>(0.0), x);
  v = sel(v < -746.0, splat<V>(-746.0), v);      // e^-746 rounds to 0
  v = sel(v > 710.0, splat<V>(710.0), v);        // e^710 overflows
  constexpr double kRound = 6755399441055744.0;  // 1.5·2^52: adding it rounds to an integer
  const V k = v * 1.4426950408889634 + kRound;   // n in its low bits
  const V n = k - kRound;
  V r = v - n * 0.6931471803691238;  // ln2's high part (exact products for |n| < 2^11)
  r = r - n * 1.9082149292705877e-10;
  V p = splat<V>(1.0 / 6227020800.0);  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  const V er = (p * r) * r + r + 1.0;
  // n as an integer, read from k's bits (a double-to-int64 conversion is not AVX-512F's).
  const auto ni = simd::to_bits(k) - std::bit_cast<int64_t>(kRound);  // in [-1077, 1025]
  const auto half = ni >> 1;
  const V y = (er * as_double((half + 1023) << 52)) * as_double((ni - half + 1023) << 52);
  return sel(nan, x, y);
}

// 1 / (1 + e^-x) in double, within a few double ULP of the reference's: with e = e^-|x| in
// (0, 1], 1 / (1 + e) for x >= 0 and e / (1 + e) otherwise (the same value). Below -700 the
// result is 0 (the reference's is under 1e-304, 0 once rounded to float32), so that no subnormal
// double is produced (a slow microcode path on many cores). NaN stays NaN, ±∞ give 1 and 0.
template <class V>
CPPNN_SIMD_INLINE V sigmoid_double(V x) {
  const auto negative = x < 0.0;
  const V a = sel(negative, -x, x);
  const V e = exp_double(-sel(a > 700.0, splat<V>(700.0), a));
  const V r = 1.0 / (1.0 + e);
  const V low = sel(a > 700.0, splat<V>(0.0), e * r);
  return sel(negative, low, r);
}

// tanh(x) in double within a few ULP of double: sign(x)·(1 − e)/(1 + e) with e = e^-2|x| (2|x|
// capped at 700: e is then below double's precision next to 1, and stays a normal number), and
// the series x − x³/3 + 2x⁵/15 − 17x⁷/315 for |x| < 2^-7 (where 1 − e would cancel).
template <class V>
CPPNN_SIMD_INLINE V tanh_double(V x) {
  const auto negative = x < 0.0;
  const V a = sel(negative, -x, x);
  const V e = exp_double(-sel(a > 350.0, splat<V>(700.0), 2.0 * a));
  const V t = (1.0 - e) / (1.0 + e);
  const V z = x * x;
  const V series = x + x * z * (-1.0 / 3.0 + z * (2.0 / 15.0 + z * (-17.0 / 315.0)));
  const V big = sel(negative, -t, t);
  return sel(a < 0.0078125, series, big);  // NaN: a < … is false, t is NaN
}

}  // namespace cppnn::cpu::vmath
