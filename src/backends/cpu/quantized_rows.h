// Rows of a block-quantized weight for the cpu backend's quantized GEMM (quantized_gemm.cpp): W
// [N, K] stored as integers (int4/uint4 packed two per byte, low nibble first; int8; uint8) with a
// float32 scale and an optional float32 offset per block of `block` consecutive elements of a
// row, W[j][i] = q * scale (+ offset) as dequantizeLinear (and the add after it) computes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cppnn/data_type.h"

namespace cppnn::cpu {

// One row of A made ready for dot products with many rows of a QuantizedMatrix (a decode step):
// A, its sums per block (the factor of the offsets, and of the 8 that signed 4-bit values are
// shifted by), and for 4-bit weights with blocks of a multiple of 32, A reordered to the nibble
// order of each 32-element group: the 16 elements held by the low nibbles, then the 16 held by
// the high ones.
struct PreparedRow {
  const float* a = nullptr;
  std::vector<double> block_sums;
  std::vector<float> nibble_order;
};

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
  // `a` (K elements) prepared for dot_rows().
  void prepare(const float* a, PreparedRow& row) const;
  // out[r] = sum over i < K of a[i] * W[row0 + r][i] for r < rows (a decode step): in registers
  // where the CPU has AVX-512, two rows at a time, one kernel per integer type, the products
  // grouped by block (scale * (a . q) + offset * block_sums[b]); else through dequantize().
  // float32 sums in another order than the reference's double sum, as every GEMM of the cpu
  // backend.
  void dot_rows(size_t row0, size_t rows, const PreparedRow& a, float* out) const;
};

}  // namespace cppnn::cpu
