// Reading ggml's quantized blocks (ggml-common.h): little-endian fields at byte offsets of a
// block, and the K-quants' packed 6-bit sub-block scales. Shared by dequantization and the WebNN
// form (gguf_quant.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cppnn/float16.h"

namespace cppnn::gguf::layout {

inline uint16_t u16_at(const uint8_t* b, size_t offset) {
  return static_cast<uint16_t>(b[offset] | (b[offset + 1] << 8));
}
inline uint32_t u32_at(const uint8_t* b, size_t offset) {
  return static_cast<uint32_t>(b[offset]) | static_cast<uint32_t>(b[offset + 1]) << 8 |
         static_cast<uint32_t>(b[offset + 2]) << 16 | static_cast<uint32_t>(b[offset + 3]) << 24;
}
// A float16 field converted exactly (ggml's GGML_FP16_TO_FP32).
inline float f16_at(const uint8_t* b, size_t offset) {
  return half_bits_to_float(u16_at(b, offset));
}

// ggml's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) from the 12 packed
// bytes q of a Q4_K/Q5_K block. Sub-blocks 0-3 use the low 6 bits of q[j] and q[j+4]; 4-7 take
// their low 4 bits from q[j+4] (scale: low nibble, min: high nibble) and their top 2 bits from
// the top bits of q[j-4] (scale) and q[j] (min).
inline std::pair<uint8_t, uint8_t> scale_min_k4(int j, const uint8_t* q) {
  if (j < 4) return {static_cast<uint8_t>(q[j] & 63), static_cast<uint8_t>(q[j + 4] & 63)};
  return {static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4)),
          static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4))};
}

}  // namespace cppnn::gguf::layout
