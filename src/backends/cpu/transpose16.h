// A 16 × 16 float32 transposition in AVX-512 registers, for the kernels that change a block's
// layout between rows and lanes (the quantized GEMM's packing, the channels-in-lanes depthwise
// convolution).
#pragma once

#include <cstddef>

#include "src/backends/cpu/cpu_features.h"

namespace cppnn::cpu {

#if CPPNN_CPU_X86
// dst[j·dst_stride + i] = src[i·src_stride + j] for i, j < 16. Only where has_avx512().
void transpose16(const float* src, size_t src_stride, float* dst, size_t dst_stride);
#endif

}  // namespace cppnn::cpu
