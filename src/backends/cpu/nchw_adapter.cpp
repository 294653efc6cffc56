// NHWC tensors through NCHW convolution kernels (nchw_adapter.h).
#include "src/backends/cpu/nchw_adapter.h"

#include <algorithm>
#include <vector>

namespace cppnn::cpu {
namespace {

// Per-thread scratch (grown, never shrunk); `which` tells the input buffer from the output one.
float* scratch(int which, size_t floats) {
  thread_local std::vector<float> buffers[2];
  std::vector<float>& b = buffers[which];
  if (b.size() < floats) b.resize(floats);
  return b.data();
}

// dst[n][c][p] = src[n][p][c] over planes of `pixels`, split over the pool by (n, c).
void nhwc_to_nchw(const float* src, float* dst, size_t n, size_t pixels, size_t c,
                  ThreadPool& pool) {
  pool.parallel_for(n * c, [&](size_t t) {
    const size_t b = t / c, ch = t % c;
    const float* s = src + b * pixels * c + ch;
    float* d = dst + (b * c + ch) * pixels;
    for (size_t p = 0; p < pixels; ++p) d[p] = s[p * c];
  });
}

// dst[n][p][c] = src[n][c][p], split over the pool by (n, pixel rows of 256).
void nchw_to_nhwc(const float* src, float* dst, size_t n, size_t pixels, size_t c,
                  ThreadPool& pool) {
  constexpr size_t kBlock = 256;
  const size_t blocks = (pixels + kBlock - 1) / kBlock;
  pool.parallel_for(n * blocks, [&](size_t t) {
    const size_t b = t / blocks, p0 = (t % blocks) * kBlock;
    const size_t p1 = std::min(pixels, p0 + kBlock);
    for (size_t ch = 0; ch < c; ++ch) {
      const float* s = src + (b * c + ch) * pixels;
      float* d = dst + b * pixels * c + ch;
      for (size_t p = p0; p < p1; ++p) d[p * c] = s[p];
    }
  });
}

}  // namespace

void run_on_nchw(const float* x, NhwcDims in, float* y, NhwcDims out, ThreadPool& pool,
                 const std::function<void(const float* x_nchw, float* y_nchw)>& run) {
  float* xs = scratch(0, in.size());
  float* ys = scratch(1, out.size());
  nhwc_to_nchw(x, xs, in.n, in.h * in.w, in.c, pool);
  run(xs, ys);
  nchw_to_nhwc(ys, y, out.n, out.h * out.w, out.c, pool);
}

}  // namespace cppnn::cpu
