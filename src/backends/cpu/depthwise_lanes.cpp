// The channels-in-lanes depthwise conv2d of the cpu backend (depthwise_lanes.h).
#include "src/backends/cpu/depthwise_lanes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/transpose16.h"

namespace cppnn::cpu {
namespace {

constexpr size_t W = simd::kWidth;  // channels per task (lanes of a simd::VF)
constexpr size_t kBlock = 8;        // outputs computed together (independent sums)

// One task's view: the interleaved padded input ([rows][cols][W]), the lanes' weights
// ([taps][W]) and bias, and the interleaved output ([positions][W]).
struct LanesTask {
  const float* in;
  const float* weights;
  const float* bias;
  float* out;
};

// The output positions in blocks of kBlock: per position, the offset in floats of its window's
// first element in the padded input (the list padded to whole blocks with the last position,
// whose extra results are dropped); per tap, its offset from there.
struct LanesPlan {
  std::vector<uint32_t> position_offsets, tap_offsets;
};

// Every output: bias + Σ over the taps (ky, kx) of w·x, the row kernel's order of fused
// multiply-adds, kBlock positions at a time sharing each tap's weights.
CPPNN_CPU_CLONES void lanes_outputs(const LanesPlan& plan, const LanesTask& t) {
  const simd::VF bias = simd::load(t.bias);
  const size_t taps = plan.tap_offsets.size();
  const uint32_t* tap = plan.tap_offsets.data();
  for (size_t b = 0; b < plan.position_offsets.size(); b += kBlock) {
    const uint32_t* at = plan.position_offsets.data() + b;
    simd::VF acc[kBlock];
    for (size_t r = 0; r < kBlock; ++r) acc[r] = bias;
    for (size_t k = 0; k < taps; ++k) {
      const simd::VF w = simd::load(t.weights + k * W);
      const float* p = t.in + tap[k];
      for (size_t r = 0; r < kBlock; ++r) acc[r] += simd::load(p + at[r]) * w;
    }
    for (size_t r = 0; r < kBlock; ++r) simd::store(t.out + (b + r) * W, acc[r]);
  }
}

// Whether a task's W planes move by 16 × 16 transpositions (AVX-512, every lane a channel).
bool transposes(size_t lanes) {
#if CPPNN_CPU_X86
  static const bool avx512 = has_avx512();
  return W == 16 && lanes == W && avx512;
#else
  (void)lanes;
  return false;
#endif
}

// flat[p·W + c] = planes[c·plane + p] for the W planes (transposes() holds).
void interleave(const float* planes, size_t plane, float* flat) {
  size_t p = 0;
#if CPPNN_CPU_X86
  for (; p + 16 <= plane; p += 16) transpose16(planes + p, plane, flat + p * W, W);
#endif
  for (; p < plane; ++p)
    for (size_t c = 0; c < W; ++c) flat[p * W + c] = planes[c * plane + p];
}

// planes[c·plane + p] = flat[p·W + c], the inverse of interleave.
void deinterleave(const float* flat, size_t plane, float* planes) {
  size_t p = 0;
#if CPPNN_CPU_X86
  for (; p + 16 <= plane; p += 16) transpose16(flat + p * W, W, planes + p, plane);
#endif
  for (; p < plane; ++p)
    for (size_t c = 0; c < W; ++c) planes[c * plane + p] = flat[p * W + c];
}

// What the kernel keeps: the geometry, the weights as [group][taps][W] (zero past the last
// channel), the operands, the epilogue and the pool.
struct DepthwiseLanesKernel {
  WindowGeometry g;
  size_t batches, channels, groups, rows, cols;  // rows, cols: of the padded input
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<float>> weights;
  std::shared_ptr<const LanesPlan> plan;
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const float* bv = bias.valid() ? reinterpret_cast<const float*>(slots[bias.value]) : nullptr;
    const size_t work = g.out_h * g.out_w * g.taps() * W;
    parallel_chunks(*pool, batches * groups, work, [&](size_t begin, size_t end) {
      const SubnormalsAsZero daz;
      for (size_t task = begin; task < end; ++task) run(x, bv, y, task / groups, task % groups);
    });
  }

  // Channels [group·W, +W) of image n.
  void run(const float* x, const float* bv, float* y, size_t n, size_t group) const {
    thread_local std::vector<float> padded, out;
    padded.assign(rows * cols * W, 0.0f);
    out.resize(plan->position_offsets.size() * W);
    const size_t c0 = group * W, lanes = std::min(W, channels - c0);
    const size_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
    // Interleave the planes: input (iy, ix) at padded (iy + pad_top, ix + pad_left), the rows
    // and columns the windows reach (16 × 16 transpositions where they serve, through `flat`).
    const size_t iy_end = std::min(g.in_h, rows > g.pad_top ? rows - g.pad_top : 0);
    const size_t ix_end = std::min(g.in_w, cols > g.pad_left ? cols - g.pad_left : 0);
    const float* planes_in = x + (n * channels + c0) * in_plane;
    if (transposes(lanes)) {
      thread_local std::vector<float> flat;
      flat.resize(in_plane * W);
      interleave(planes_in, in_plane, flat.data());
      for (size_t iy = 0; iy < iy_end; ++iy)
        std::memcpy(padded.data() + ((iy + g.pad_top) * cols + g.pad_left) * W,
                    flat.data() + iy * g.in_w * W, ix_end * W * sizeof(float));
    } else {
      for (size_t c = 0; c < lanes; ++c)
        for (size_t iy = 0; iy < iy_end; ++iy) {
          float* dst = padded.data() + ((iy + g.pad_top) * cols + g.pad_left) * W + c;
          const float* src = planes_in + c * in_plane + iy * g.in_w;
          for (size_t ix = 0; ix < ix_end; ++ix) dst[ix * W] = src[ix];
        }
    }
    alignas(64) float bias_lanes[W] = {};
    if (bv) std::copy(bv + c0, bv + c0 + lanes, bias_lanes);
    lanes_outputs(*plan,
                  {padded.data(), weights->data() + group * g.taps() * W, bias_lanes, out.data()});
    float* planes = y + (n * channels + c0) * out_plane;
    if (transposes(lanes))
      deinterleave(out.data(), out_plane, planes);
    else
      for (size_t c = 0; c < lanes; ++c)
        for (size_t p = 0; p < out_plane; ++p) planes[c * out_plane + p] = out[p * W + c];
    if (epilogue && !epilogue->empty()) epilogue->apply(planes, lanes * out_plane);
  }
};

}  // namespace

bool depthwise_lanes_suits(const WindowGeometry& g, size_t multiplier) {
  if (multiplier != 1 || g.out_w >= kLanes) return false;
  // A task's padded input stays a few megabytes (and its offsets 32-bit).
  const size_t cols = (g.out_w - 1) * g.stride_w + (g.kw - 1) * g.dilation_w + 1;
  return g.window_rows(g.out_h) * cols <= (size_t{1} << 16);
}

FastKernel make_depthwise_lanes_kernel(const WindowGeometry& g, size_t batches, size_t channels,
                                       OperandId input, OperandId bias, OperandId output,
                                       const std::vector<float>& weights,
                                       std::optional<Epilogue> epilogue,
                                       std::shared_ptr<ThreadPool> pool) {
  const size_t groups = ceil_div(channels, W), taps = g.taps();
  auto lanes = std::make_shared<std::vector<float>>(groups * taps * W, 0.0f);
  for (size_t c = 0; c < channels; ++c)
    for (size_t t = 0; t < taps; ++t)
      (*lanes)[((c / W) * taps + t) * W + c % W] = weights[c * taps + t];
  const size_t rows = g.window_rows(g.out_h);
  const size_t cols = (g.out_w - 1) * g.stride_w + (g.kw - 1) * g.dilation_w + 1;
  auto plan = std::make_shared<LanesPlan>();
  for (size_t oy = 0; oy < g.out_h; ++oy)
    for (size_t ox = 0; ox < g.out_w; ++ox)
      plan->position_offsets.push_back(
          static_cast<uint32_t>((oy * g.stride_h * cols + ox * g.stride_w) * W));
  while (plan->position_offsets.size() % kBlock)
    plan->position_offsets.push_back(plan->position_offsets.back());
  for (size_t ky = 0; ky < g.kh; ++ky)
    for (size_t kx = 0; kx < g.kw; ++kx)
      plan->tap_offsets.push_back(
          static_cast<uint32_t>((ky * g.dilation_h * cols + kx * g.dilation_w) * W));
  DepthwiseLanesKernel kernel{g,
                              batches,
                              channels,
                              groups,
                              rows,
                              cols,
                              input,
                              bias,
                              output,
                              std::move(lanes),
                              std::move(plan),
                              std::move(epilogue),
                              std::move(pool)};
  const bool applies = kernel.epilogue.has_value();
  return FastKernel{std::move(kernel), applies};
}

}  // namespace cppnn::cpu
