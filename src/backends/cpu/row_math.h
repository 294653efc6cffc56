// Vectorised loops over one contiguous row of float32 values for the cpu backend's softmax,
// layerNormalization and reductions: sums accumulated in double in 8 independent lanes (so the
// compiler vectorises them without reassociating), the extreme value with NaN detection, and the
// softmax of a row. Compiled once per instruction set (CPPNN_CPU_CLONES).
#pragma once

#include <cstddef>

namespace cppnn::cpu::rows {

// Σ a[i]·b[i] in float32 (32 lanes of partial sums, fused multiply-adds where the CPU has them).
float dot(const float* a, const float* b, size_t n);
// out[r] = dot(a, b + r·ldb, n) for r < count, each summed exactly as dot() sums it, four rows of
// b at a time (a's vectors read once for the four: a matrix-vector product at the rate its rows
// stream in, not at one dot product's latency).
void dots(const float* a, const float* b, size_t ldb, size_t count, size_t n, float* out);
// Σ x[i] in double (starting from -0, the exact additive identity, as the reference does).
double sum(const float* x, size_t n);
// Σ x[i]² in double.
double sum_squares(const float* x, size_t n);
// Σ |x[i]| in double.
double sum_abs(const float* x, size_t n);
// Σ (x[i] − mean)² in double.
double sum_squared_deviations(const float* x, size_t n, double mean);
// y[i] = ((x[i] − mean)·inv_std)·scale[i] + bias[i] in double, rounded once (scale, bias may be
// null: 1 and 0).
void normalize(const float* x, float* y, size_t n, double mean, double inv_std, const float* scale,
               const float* bias);
// y[i] = ((x[i] − mean)·inv_std)·scale + bias in double, rounded once (batchNormalization's row
// of one channel).
void normalize_channel(const float* x, float* y, size_t n, double mean, double inv_std,
                       double scale, double bias);
// y[c] = ((x[c] − mean[c])·inv_std[c])·scale[c] + bias[c] in double, rounded once, for c < n
// (batchNormalization over the last axis: one element per channel).
void normalize_channels(const float* x, float* y, size_t n, const double* mean,
                        const double* inv_std, const double* scale, const double* bias);
// The largest (smallest) of n >= 1 values, as the reference picks it: the first NaN when there is
// one, else the first element equal to the extreme (so ±0 keep their sign as given).
float extreme(const float* x, size_t n, bool largest);
// softmax of n contiguous values (n >= 1), within 4 ULP of the exact result: the maximum (NaN
// anywhere makes every output NaN, as in the reference), e^(x − max) through vmath::exp with
// the subtraction's rounding error put back (two-sum), their sum in double, each quotient rounded
// once.
void softmax(const float* x, float* y, size_t n);

}  // namespace cppnn::cpu::rows
