#include "src/backends/cpu/row_math.h"

#include <limits>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/vector_math.h"

namespace cppnn::cpu::rows {
namespace {

using simd::VD;
using simd::VF;

// Σ f(x[i]) in double: two vectors of doubles at a time, then the rest, then the lanes in order.
// f takes and returns a double or a VD.
template <class F>
CPPNN_SIMD_INLINE double lane_sum(const float* x, size_t n, F f) {
  VD lo = VD{} - 0.0, hi = VD{} - 0.0;  // -0: the exact additive identity
  size_t i = 0;
  constexpr size_t D = simd::kDoubles;
  for (; i + 2 * D <= n; i += 2 * D) {
    lo += f(simd::load_double(x + i));
    hi += f(simd::load_double(x + i + D));
  }
  double total = -0.0;
  for (; i < n; ++i) total += f(static_cast<double>(x[i]));
  return total + simd::sum_lanes(lo + hi);
}

// e^(v − m) with the subtraction's rounding error put back: d + err = v − m exactly (two-sum),
// e^(v − m) = e^d·e^err ≈ e^d·(1 + err), the correction applied to e^d's mantissa before its
// power of two (exact for a normal result; a subnormal one is rounded once, and without a
// subnormal product, vmath::scale_by_pow2). NaN in v or m gives NaN; v = −Inf gives 0.
template <class V>
CPPNN_SIMD_INLINE V shifted_exp(V v, float m) {
  const V d = v - m;
  const V bb = d - v;
  V err = (v - (d - bb)) + (-m - bb);
  const auto nan = d != d;        // (err is NaN there too, and unused)
  const auto zero = d < -104.0f;  // e^d rounds to 0 (also for v = −Inf)
  err = simd::sel(zero, simd::splat<V>(0.0f), err);
  V dd = simd::sel(nan, simd::splat<V>(0.0f), d);
  dd = simd::sel(zero, simd::splat<V>(-104.0f), dd);
  dd = simd::sel(dd > 89.0f, simd::splat<V>(89.0f), dd);
  decltype(simd::to_int(V{})) n;
  const V er = vmath::exp_mantissa(dd, &n);
  const V e = vmath::scale_by_pow2(er + er * err, n);
  return simd::sel(nan, d, e);
}

// dot() of a with R rows of b at once: each row's two vector sums, its scalar tail and its lanes
// in dot()'s order.
template <size_t R>
CPPNN_SIMD_INLINE void dot_rows(const float* a, const float* b, size_t ldb, size_t n, float* out) {
  VF s0[R], s1[R];
  for (size_t r = 0; r < R; ++r) s0[r] = s1[r] = VF{};
  size_t i = 0;
  constexpr size_t W = simd::kWidth;
  for (; i + 2 * W <= n; i += 2 * W) {
    const VF a0 = simd::load(a + i), a1 = simd::load(a + i + W);
    for (size_t r = 0; r < R; ++r) {
      s0[r] += a0 * simd::load(b + r * ldb + i);
      s1[r] += a1 * simd::load(b + r * ldb + i + W);
    }
  }
  for (; i + W <= n; i += W) {
    const VF a0 = simd::load(a + i);
    for (size_t r = 0; r < R; ++r) s0[r] += a0 * simd::load(b + r * ldb + i);
  }
  for (size_t r = 0; r < R; ++r) {
    float total = 0;
    for (size_t j = i; j < n; ++j) total += a[j] * b[r * ldb + j];
    const VF s = s0[r] + s1[r];
    for (size_t j = 0; j < simd::kWidth; ++j) total += s[j];
    out[r] = total;
  }
}

}  // namespace

CPPNN_CPU_CLONES float dot(const float* a, const float* b, size_t n) {
  float out;
  dot_rows<1>(a, b, 0, n, &out);
  return out;
}

CPPNN_CPU_CLONES void dots(const float* a, const float* b, size_t ldb, size_t count, size_t n,
                           float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) dot_rows<4>(a, b + r * ldb, ldb, n, out + r);
  for (; r < count; ++r) dot_rows<1>(a, b + r * ldb, ldb, n, out + r);
}

CPPNN_CPU_CLONES double sum(const float* x, size_t n) {
  return lane_sum(x, n, [](auto v) CPPNN_SIMD_LAMBDA { return v; });
}

CPPNN_CPU_CLONES double sum_squares(const float* x, size_t n) {
  return lane_sum(x, n, [](auto v) CPPNN_SIMD_LAMBDA { return v * v; });
}

CPPNN_CPU_CLONES double sum_abs(const float* x, size_t n) {
  return lane_sum(x, n, [](auto v) CPPNN_SIMD_LAMBDA { return simd::sel(v < 0.0, -v, v); });
}

CPPNN_CPU_CLONES double sum_squared_deviations(const float* x, size_t n, double mean) {
  return lane_sum(x, n, [mean](auto v) CPPNN_SIMD_LAMBDA { return (v - mean) * (v - mean); });
}

CPPNN_CPU_CLONES void normalize(const float* x, float* y, size_t n, double mean, double inv_std,
                                const float* scale, const float* bias) {
  if (scale && bias) {
    for (size_t i = 0; i < n; ++i)
      y[i] =
          static_cast<float>((double(x[i]) - mean) * inv_std * double(scale[i]) + double(bias[i]));
  } else if (scale) {
    for (size_t i = 0; i < n; ++i)
      y[i] = static_cast<float>((double(x[i]) - mean) * inv_std * double(scale[i]));
  } else if (bias) {
    for (size_t i = 0; i < n; ++i)
      y[i] = static_cast<float>((double(x[i]) - mean) * inv_std + double(bias[i]));
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>((double(x[i]) - mean) * inv_std);
  }
}

CPPNN_CPU_CLONES void normalize_channel(const float* x, float* y, size_t n, double mean,
                                        double inv_std, double scale, double bias) {
  for (size_t i = 0; i < n; ++i)
    y[i] = static_cast<float>((double(x[i]) - mean) * inv_std * scale + bias);
}

CPPNN_CPU_CLONES void normalize_channels(const float* x, float* y, size_t n, const double* mean,
                                         const double* inv_std, const double* scale,
                                         const double* bias) {
  for (size_t c = 0; c < n; ++c)
    y[c] = static_cast<float>((double(x[c]) - mean[c]) * inv_std[c] * scale[c] + bias[c]);
}

CPPNN_CPU_CLONES float extreme(const float* x, size_t n, bool largest) {
  constexpr size_t W = simd::kWidth;
  VF best = VF{} + x[0];
  simd::VI nan = simd::VI{};
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const VF v = simd::load(x + i);
    nan |= v != v;
    best = simd::sel(largest ? v > best : v < best, v, best);
  }
  bool any_nan = false;
  float b = x[0];
  for (size_t j = 0; j < W; ++j) {
    any_nan = any_nan || nan[j] != 0;
    b = (largest ? best[j] > b : best[j] < b) ? best[j] : b;
  }
  for (; i < n; ++i) {
    any_nan = any_nan || x[i] != x[i];
    b = (largest ? x[i] > b : x[i] < b) ? x[i] : b;
  }
  for (i = 0; i < n; ++i)
    if (any_nan ? x[i] != x[i] : x[i] == b) return x[i];
  return b;
}

CPPNN_CPU_CLONES void softmax(const float* x, float* y, size_t n) {
  constexpr size_t W = simd::kWidth;
  // The maximum, and whether a NaN is present (it makes every output NaN, as in the reference).
  VF vmax = VF{} - std::numeric_limits<float>::infinity();
  simd::VI vnan = simd::VI{};
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const VF v = simd::load(x + i);
    vmax = simd::sel(v > vmax, v, vmax);
    vnan |= v != v;
  }
  float m = -std::numeric_limits<float>::infinity();
  bool nan = false;
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    nan = nan || x[i] != x[i];
  }
  for (size_t j = 0; j < W; ++j) {
    m = vmax[j] > m ? vmax[j] : m;
    nan = nan || vnan[j] != 0;
  }
  if (nan) m = std::numeric_limits<float>::quiet_NaN();
  // The exponentials into y, summed in double.
  VD lo = VD{}, hi = VD{};
  double total = 0.0;
  for (i = 0; i + W <= n; i += W) {
    simd::store(y + i, shifted_exp(simd::load(x + i), m));
    lo += simd::load_double(y + i);
    hi += simd::load_double(y + i + W / 2);
  }
  for (; i < n; ++i) {
    y[i] = shifted_exp(x[i], m);
    total += double(y[i]);
  }
  total += simd::sum_lanes(lo + hi);
  const double inv = 1.0 / total;
  for (i = 0; i < n; ++i) y[i] = static_cast<float>(double(y[i]) * inv);
}

}  // namespace cppnn::cpu::rows
