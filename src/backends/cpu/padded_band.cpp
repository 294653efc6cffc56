// The banded padded-input layout of the depthwise conv2d and pool2d kernels (padded_band.h).
#include "src/backends/cpu/padded_band.h"

#include <cstring>

namespace cppnn::cpu {
namespace {

// dst[q] = src[q · stride] for q < n (the column phases of one row).
CPPNN_CPU_CLONES void gather_columns(float* dst, const float* src, size_t n, size_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, n * sizeof(float));
  } else if (stride == 2) {
    for (size_t q = 0; q < n; ++q) dst[q] = src[2 * q];
  } else {
    for (size_t q = 0; q < n; ++q) dst[q] = src[q * stride];
  }
}

}  // namespace

BandLayout band_layout(const WindowGeometry& g) {
  BandLayout b;
  b.phases = g.stride_w;
  b.cols = ceil_div(g.out_w, kLanes) * kLanes + (g.kw - 1) * g.dilation_w / g.stride_w;
  const size_t window_rows = g.window_rows(1);
  const size_t fit_rows = kBandFloats / (b.phases * b.cols);
  b.out_rows = fit_rows > window_rows ? (fit_rows - window_rows) / g.stride_h + 1 : 1;
  b.out_rows = std::min(b.out_rows, g.out_h);
  b.rows = g.window_rows(b.out_rows);
  return b;
}

std::vector<std::ptrdiff_t> band_tap_offsets(const WindowGeometry& g, const BandLayout& b) {
  std::vector<std::ptrdiff_t> offsets;
  offsets.reserve(g.taps());
  for (size_t ky = 0; ky < g.kh; ++ky)
    for (size_t kx = 0; kx < g.kw; ++kx) {
      const size_t dx = kx * g.dilation_w;
      offsets.push_back(std::ptrdiff_t(((dx % g.stride_w) * b.rows + ky * g.dilation_h) * b.cols +
                                       dx / g.stride_w));
    }
  return offsets;
}

void fill_band(const WindowGeometry& g, const BandLayout& b, const float* plane, size_t oy0,
               size_t out_rows, float pad, float* band) {
  const size_t sw = b.phases, pl = g.pad_left;
  const size_t first_row = oy0 * g.stride_h, nrows = g.window_rows(out_rows);
  for (size_t r = 0; r < nrows; ++r) {
    const size_t py = first_row + r;  // padded row: input row py − pad_top
    const bool inside = py >= g.pad_top && py - g.pad_top < g.in_h;
    for (size_t p = 0; p < sw; ++p) {
      float* d = band + (p * b.rows + r) * b.cols;
      if (!inside) {
        std::fill(d, d + b.cols, pad);
        continue;
      }
      // Phase p holds padded columns q·sw + p: input columns q·sw + p − pl for q in [lo, hi).
      const size_t lo = std::min(p >= pl ? 0 : ceil_div(pl - p, sw), b.cols);
      const size_t end = g.in_w + pl;  // one past the last padded column inside the input
      const size_t hi = std::clamp(end > p ? ceil_div(end - p, sw) : 0, lo, b.cols);
      std::fill(d, d + lo, pad);
      if (hi > lo)
        gather_columns(d + lo, plane + (py - g.pad_top) * g.in_w + (lo * sw + p - pl), hi - lo, sw);
      std::fill(d + hi, d + b.cols, pad);
    }
  }
}

VectorIsa vector_isa_for_this_cpu() {
#if CPPNN_CPU_X86
  if (has_avx512()) return VectorIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorIsa::kAvx2;
#endif
  return VectorIsa::kPortable;
}

}  // namespace cppnn::cpu
