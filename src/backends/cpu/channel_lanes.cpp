// The channels-in-lanes layout of the cpu backend's window kernels (channel_lanes.h).
#include "src/backends/cpu/channel_lanes.h"

#include <algorithm>
#include <cstring>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/transpose16.h"

namespace cppnn::cpu::lanes {
namespace {

// Whether `lanes` planes move by 16 × 16 transpositions (AVX-512, every lane a channel).
bool transposes(size_t lanes) {
#if CPPNN_CPU_X86
  static const bool avx512 = has_avx512();
  return W == 16 && lanes == W && avx512;
#else
  (void)lanes;
  return false;
#endif
}

// Padded columns the windows of `g` reach.
size_t padded_cols(const WindowGeometry& g) {
  return (g.out_w - 1) * g.stride_w + (g.kw - 1) * g.dilation_w + 1;
}

}  // namespace

bool suits(const WindowGeometry& g) {
  return g.out_w < kLanes && g.window_rows(g.out_h) * padded_cols(g) <= (size_t{1} << 16);
}

Plan make_plan(const WindowGeometry& g) {
  Plan plan;
  plan.rows = g.window_rows(g.out_h);
  plan.cols = padded_cols(g);
  for (size_t oy = 0; oy < g.out_h; ++oy)
    for (size_t ox = 0; ox < g.out_w; ++ox)
      plan.position_offsets.push_back(
          static_cast<uint32_t>((oy * g.stride_h * plan.cols + ox * g.stride_w) * W));
  while (plan.position_offsets.size() % kBlock)
    plan.position_offsets.push_back(plan.position_offsets.back());
  for (size_t ky = 0; ky < g.kh; ++ky)
    for (size_t kx = 0; kx < g.kw; ++kx)
      plan.tap_offsets.push_back(
          static_cast<uint32_t>((ky * g.dilation_h * plan.cols + kx * g.dilation_w) * W));
  return plan;
}

void fill_padded(const WindowGeometry& g, const Plan& plan, const float* planes, size_t lanes,
                 float pad, std::vector<float>& padded) {
  const size_t rows = plan.rows, cols = plan.cols, in_plane = g.in_h * g.in_w;
  padded.assign(rows * cols * W, pad);
  const size_t iy_end = std::min(g.in_h, rows > g.pad_top ? rows - g.pad_top : 0);
  const size_t ix_end = std::min(g.in_w, cols > g.pad_left ? cols - g.pad_left : 0);
  if (transposes(lanes)) {
    thread_local std::vector<float> flat;  // [in_plane][W]
    flat.resize(in_plane * W);
    size_t p = 0;
#if CPPNN_CPU_X86
    for (; p + 16 <= in_plane; p += 16) transpose16(planes + p, in_plane, flat.data() + p * W, W);
#endif
    for (; p < in_plane; ++p)
      for (size_t c = 0; c < W; ++c) flat[p * W + c] = planes[c * in_plane + p];
    for (size_t iy = 0; iy < iy_end; ++iy)
      std::memcpy(padded.data() + ((iy + g.pad_top) * cols + g.pad_left) * W,
                  flat.data() + iy * g.in_w * W, ix_end * W * sizeof(float));
    return;
  }
  for (size_t c = 0; c < lanes; ++c)
    for (size_t iy = 0; iy < iy_end; ++iy) {
      float* dst = padded.data() + ((iy + g.pad_top) * cols + g.pad_left) * W + c;
      const float* src = planes + c * in_plane + iy * g.in_w;
      for (size_t ix = 0; ix < ix_end; ++ix) dst[ix * W] = src[ix];
    }
}

void write_planes(const float* interleaved, size_t plane, size_t lanes, float* planes) {
  size_t p = 0;
#if CPPNN_CPU_X86
  if (transposes(lanes))
    for (; p + 16 <= plane; p += 16) transpose16(interleaved + p * W, W, planes + p, plane);
#endif
  for (; p < plane; ++p)
    for (size_t c = 0; c < lanes; ++c) planes[c * plane + p] = interleaved[p * W + c];
}

}  // namespace cppnn::cpu::lanes
