// Running an NCHW convolution kernel on NHWC tensors (convolutions whose graph keeps inputLayout
// "nhwc": the layout pass only converts towards NHWC): the input is transposed into an NCHW
// scratch buffer, the kernel writes an NCHW scratch result, which is transposed into the output.
// Both copies are split over the thread pool.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "cppnn/graph_model.h"
#include "src/backends/cpu/thread_pool.h"

namespace cppnn::cpu {

// [N, H, W, C] dims of a 4-D NHWC tensor.
struct NhwcDims {
  size_t n, h, w, c;
  size_t size() const { return n * h * w * c; }
};

// Calls run(x_nchw, y_nchw) on NCHW copies of x (dims `in`) and writes the result back into y
// (dims `out`), both NHWC. Scratch buffers are per thread, grown, never shrunk.
void run_on_nchw(const float* x, NhwcDims in, float* y, NhwcDims out, ThreadPool& pool,
                 const std::function<void(const float* x_nchw, float* y_nchw)>& run);

// A convolution kernel's dispatch: reads its input, output and optional bias from the slot table
// and calls run(x, y, bias) on NCHW data, directly or through NCHW copies when `nhwc`.
template <class Run>
void run_convolution(std::span<std::byte* const> slots, OperandId input, OperandId bias,
                     OperandId output, bool nhwc, NhwcDims in, NhwcDims out, ThreadPool& pool,
                     const Run& run) {
  const float* x = reinterpret_cast<const float*>(slots[input.value]);
  float* y = reinterpret_cast<float*>(slots[output.value]);
  const float* b = bias.valid() ? reinterpret_cast<const float*>(slots[bias.value]) : nullptr;
  if (!nhwc) return run(x, y, b);
  run_on_nchw(x, in, y, out, pool, [&](const float* xc, float* yc) { run(xc, yc, b); });
}

}  // namespace cppnn::cpu
