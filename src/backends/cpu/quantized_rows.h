// Rows of a block-quantized weight for the cpu backend's quantized GEMM (quantized_gemm.cpp): W
// [N, K] stored as integers (int4/uint4 packed two per byte, low nibble first; int8; uint8) with a
// float32 scale and an optional float32 offset per block of `block` consecutive elements of a
// row, W[j][i] = q * scale (+ offset) as dequantizeLinear (and the add after it) computes it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cppnn/data_type.h"

namespace cppnn::cpu {

// A constant quantized weight, read in place (the graph keeps the bytes alive).
struct QuantizedMatrix {
  MLOperandDataType type = MLOperandDataType::kInt8;
  const uint8_t* q = nullptr;
  const float* scale = nullptr;   // [N, K / block]
  const float* offset = nullptr;  // [N, K / block], or null
  size_t n = 0, k = 0, block = 0;

  // Elements [k0, k0 + count) of row `row` as float32 into `out`, each rounded as
  // dequantizeLinear rounds it.
  void dequantize(size_t row, size_t k0, size_t count, float* out) const;
  // sum over i < K of a[i] * W[row][i], for one row of A (a decode step): in registers where the
  // CPU has AVX-512, the products grouped by block (scale * (a . q) + offset * block_sums[b], with
  // block_sums[b] the sum of a over block b), else through dequantize(); float32 sums in another
  // order than the reference's double sum, as every GEMM of the cpu backend.
  float dot(size_t row, const float* a, const float* block_sums, float* scratch) const;
};

}  // namespace cppnn::cpu
