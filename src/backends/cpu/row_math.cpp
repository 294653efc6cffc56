#include "src/backends/cpu/row_math.h"

#include <limits>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/vector_math.h"

namespace cppnn::cpu::rows {
namespace {

// Independent accumulators per loop.
constexpr size_t kLanes = 8;

// Σ f(x[i]) in double over kLanes lanes, then the lanes in order.
template <class F>
inline double lane_sum(const float* x, size_t n, F f) {
  double acc[kLanes];
  for (double& a : acc) a = -0.0;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t j = 0; j < kLanes; ++j) acc[j] += f(static_cast<double>(x[i + j]));
  double total = -0.0;
  for (; i < n; ++i) total += f(static_cast<double>(x[i]));
  for (double a : acc) total += a;
  return total;
}

}  // namespace

CPPNN_CPU_CLONES double sum(const float* x, size_t n) {
  return lane_sum(x, n, [](double v) { return v; });
}

CPPNN_CPU_CLONES double sum_squares(const float* x, size_t n) {
  return lane_sum(x, n, [](double v) { return v * v; });
}

CPPNN_CPU_CLONES double sum_abs(const float* x, size_t n) {
  return lane_sum(x, n, [](double v) { return v < 0 ? -v : v; });
}

CPPNN_CPU_CLONES double sum_squared_deviations(const float* x, size_t n, double mean) {
  return lane_sum(x, n, [mean](double v) { return (v - mean) * (v - mean); });
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

CPPNN_CPU_CLONES void softmax(const float* x, float* y, size_t n) {
  constexpr size_t L = 16;
  float lane_max[L];
  int lane_nan[L];
  for (size_t j = 0; j < L; ++j) {
    lane_max[j] = -std::numeric_limits<float>::infinity();
    lane_nan[j] = 0;
  }
  size_t i = 0;
  for (; i + L <= n; i += L)
    for (size_t j = 0; j < L; ++j) {
      const float v = x[i + j];
      lane_max[j] = v > lane_max[j] ? v : lane_max[j];
      lane_nan[j] |= v != v;
    }
  float m = -std::numeric_limits<float>::infinity();
  int nan = 0;
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    nan |= x[i] != x[i];
  }
  for (size_t j = 0; j < L; ++j) {
    m = lane_max[j] > m ? lane_max[j] : m;
    nan |= lane_nan[j];
  }
  if (nan) m = std::numeric_limits<float>::quiet_NaN();
  // e^(x − m) = e^d·e^err where d + err = x − m exactly (two-sum); e^err ≈ 1 + err.
  double acc[kLanes];
  for (double& a : acc) a = 0.0;
  auto term = [m](float v) {
    const float d = v - m;
    const float bb = d - v;
    float err = (v - (d - bb)) + (-m - bb);
    err = d < -104.0f ? 0.0f : err;  // e^d is 0 (also for v = -Inf, where err is NaN)
    const float e = vmath::exp(d);
    return e + e * err;
  };
  i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t j = 0; j < kLanes; ++j) {
      const float e = term(x[i + j]);
      y[i + j] = e;
      acc[j] += double(e);
    }
  double total = 0.0;
  for (; i < n; ++i) {
    y[i] = term(x[i]);
    total += double(y[i]);
  }
  for (double a : acc) total += a;
  const double inv = 1.0 / total;
  for (i = 0; i < n; ++i) y[i] = static_cast<float>(double(y[i]) * inv);
}

}  // namespace cppnn::cpu::rows
