// Depthwise conv2d (webnn-spec.md §2 row 7, groups == input channels, one filter per channel) on
// planes whose output rows are narrower than a vector, with the channels in the vector lanes: a
// MobileNet's or PP-LCNet's last stages (5×5 filters on 14×14 and 7×7 maps), where the row kernel
// of depthwise.cpp would fill a few lanes of each vector and pay a band copy per channel for a
// handful of outputs. Each task takes simd::kWidth channels of one image in the layout of
// channel_lanes.h (one zero-padded buffer [row][column][lane]), every output is bias + Σ_t w[t]·x
// over the taps in the row kernel's order (the same fused multiply-adds, so the same bits), eight
// outputs at a time sharing each tap's weights, then written back plane by plane and the
// epilogue applied to the task's planes while they are in cache.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/padded_band.h"

namespace cppnn::cpu {

// Whether the lanes kernel serves a depthwise convolution of geometry `g` with `multiplier`
// filters per channel: one filter per channel, output rows narrower than a 16-float vector, a
// padded input plane of at most 65536 elements.
bool depthwise_lanes_suits(const WindowGeometry& g, size_t multiplier);

// The kernel for x [batches][channels][in_h][in_w] -> y [batches][channels][out_h][out_w] with
// `weights` [channels][kh·kw] (every value finite), an optional bias operand and the fused
// activations `epilogue`, split over `pool` by (image, group of lanes).
FastKernel make_depthwise_lanes_kernel(const WindowGeometry& g, size_t batches, size_t channels,
                                       OperandId input, OperandId bias, OperandId output,
                                       const std::vector<float>& weights,
                                       std::optional<Epilogue> epilogue,
                                       std::shared_ptr<ThreadPool> pool);

}  // namespace cppnn::cpu
