// The banded padded-input layout shared by the cpu backend's depthwise conv2d and pool2d kernels:
// each task is a band of output rows of one (batch, channel) plane, whose input rows are copied
// into a buffer padded with a given value (0 for the convolution and the sum, -Infinity for the
// max) and split into stride_w column phases, so every output row reads contiguous rows of that
// buffer, vectorised along the output width without bounds checks. Also the pieces both kernels'
// vectorised row loops and task splitting use.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/thread_pool.h"

namespace cppnn::cpu {

// N lanes of T (GCC/Clang vector extension), and the same for unaligned loads and stores of T
// data (like immintrin.h's __m256_u).
template <class T, size_t N>
struct Simd {
  typedef T type __attribute__((vector_size(sizeof(T) * N)));
  typedef T unaligned __attribute__((vector_size(sizeof(T) * N), aligned(alignof(T)), may_alias));
};
// The widest float vector of the row kernels (AVX-512): band rows are padded to whole vectors.
inline constexpr size_t kLanes = 16;
// The padded buffer of a band is about this many floats (it stays in the L2 cache).
inline constexpr size_t kBandFloats = 32 * 1024;

// ⌈a / b⌉ for b > 0.
inline size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}

// The 2-D window geometry of one plane, resolved at build time: input and output sizes, window
// size, padding before the first row and column, strides and dilations.
struct WindowGeometry {
  size_t in_h, in_w, out_h, out_w, kh, kw;
  size_t pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w;
  // Window positions (ky, kx).
  size_t taps() const { return kh * kw; }
  // Padded input rows that `out_rows` consecutive output rows read.
  size_t window_rows(size_t out_rows) const {
    return (out_rows - 1) * stride_h + (kh - 1) * dilation_h + 1;
  }
};

// The padded input of one band of `out_rows` output rows: `phases` (stride_w) blocks of `rows`
// rows of `cols` floats. Padded column j (input column j − pad_left) of band row r is at
// [j mod phases][r][j / phases], so output column ox and window column kx read
// [(kx·dw) mod sw][ky·dh + oy·sh][ox + (kx·dw) / sw]: contiguous in ox.
struct BandLayout {
  size_t phases, rows, cols, out_rows;
  size_t size() const { return phases * rows * cols; }
};

// The layout of the bands of `g`: columns for every output column rounded up to kLanes plus the
// widest tap offset, and as many output rows as fit about kBandFloats floats (at least one).
BandLayout band_layout(const WindowGeometry& g);

// Per tap (ky, kx), row-major: the offset in floats from an output row's first band element to
// the element its window tap reads (output column 0; column ox adds ox).
std::vector<std::ptrdiff_t> band_tap_offsets(const WindowGeometry& g, const BandLayout& b);

// Fills `band` with the padded input rows that output rows [oy0, oy0 + out_rows) of the input
// plane `plane` read: input values where the padded position is inside the input, `pad` elsewhere.
void fill_band(const WindowGeometry& g, const BandLayout& b, const float* plane, size_t oy0,
               size_t out_rows, float pad, float* band);

// The instruction sets the hand-written row kernels are compiled for (the vector width is a
// template argument there, which function clones cannot vary).
enum class VectorIsa { kPortable, kAvx2, kAvx512 };
// The widest of them this CPU runs (kPortable off x86 or in sanitizer builds).
VectorIsa vector_isa_for_this_cpu();

// Runs fn(begin, end) over [0, count) in contiguous chunks spread over the pool: a few per
// thread, none with much less than `min_work` units of work (each item being `item_work`).
template <class F>
void parallel_chunks(ThreadPool& pool, size_t count, size_t item_work, F&& fn) {
  constexpr size_t min_work = 16 * 1024;
  const size_t by_work = std::max<size_t>(1, count * std::max<size_t>(1, item_work) / min_work);
  const size_t chunks = std::min({count, size_t{pool.size()} * 4, by_work});
  pool.parallel_for(chunks, [&](size_t c) { fn(c * count / chunks, (c + 1) * count / chunks); });
}

}  // namespace cppnn::cpu
