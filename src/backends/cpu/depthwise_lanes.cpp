// The channels-in-lanes depthwise conv2d of the cpu backend (depthwise_lanes.h).
#include "src/backends/cpu/depthwise_lanes.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "src/backends/cpu/channel_lanes.h"
#include "src/backends/cpu/cpu_features.h"

namespace cppnn::cpu {
namespace {

using lanes::kBlock;
using lanes::W;

// One task's view: the interleaved padded input ([rows][cols][W]), the lanes' weights
// ([taps][W]) and bias, and the interleaved output ([positions][W]).
struct LanesTask {
  const float* in;
  const float* weights;
  const float* bias;
  float* out;
};

// Every output: bias + Σ over the taps (ky, kx) of w·x, the row kernel's order of fused
// multiply-adds, kBlock positions at a time sharing each tap's weights.
CPPNN_CPU_CLONES void lanes_outputs(const lanes::Plan& plan, const LanesTask& t) {
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

// What the kernel keeps: the geometry and its lanes plan, the weights as [group][taps][W] (zero
// past the last channel), the operands, the epilogue and the pool.
struct DepthwiseLanesKernel {
  WindowGeometry g;
  size_t batches, channels, groups;
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<float>> weights;
  std::shared_ptr<const lanes::Plan> plan;
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
    const size_t c0 = group * W, count = std::min(W, channels - c0);
    const size_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
    lanes::fill_padded(g, *plan, x + (n * channels + c0) * in_plane, count, 0.0f, padded);
    out.resize(plan->position_offsets.size() * W);
    alignas(64) float bias_lanes[W] = {};
    if (bv) std::copy(bv + c0, bv + c0 + count, bias_lanes);
    lanes_outputs(*plan,
                  {padded.data(), weights->data() + group * g.taps() * W, bias_lanes, out.data()});
    float* planes = y + (n * channels + c0) * out_plane;
    lanes::write_planes(out.data(), out_plane, count, planes);
    if (epilogue && !epilogue->empty()) epilogue->apply(planes, count * out_plane);
  }
};

}  // namespace

bool depthwise_lanes_suits(const WindowGeometry& g, size_t multiplier) {
  return multiplier == 1 && lanes::suits(g);
}

FastKernel make_depthwise_lanes_kernel(const WindowGeometry& g, size_t batches, size_t channels,
                                       OperandId input, OperandId bias, OperandId output,
                                       const std::vector<float>& weights,
                                       std::optional<Epilogue> epilogue,
                                       std::shared_ptr<ThreadPool> pool) {
  const size_t groups = ceil_div(channels, W), taps = g.taps();
  auto packed = std::make_shared<std::vector<float>>(groups * taps * W, 0.0f);
  for (size_t c = 0; c < channels; ++c)
    for (size_t t = 0; t < taps; ++t)
      (*packed)[((c / W) * taps + t) * W + c % W] = weights[c * taps + t];
  DepthwiseLanesKernel kernel{g,
                              batches,
                              channels,
                              groups,
                              input,
                              bias,
                              output,
                              std::move(packed),
                              std::make_shared<const lanes::Plan>(lanes::make_plan(g)),
                              std::move(epilogue),
                              std::move(pool)};
  const bool applies = kernel.epilogue.has_value();
  return FastKernel{std::move(kernel), applies};
}

}  // namespace cppnn::cpu
