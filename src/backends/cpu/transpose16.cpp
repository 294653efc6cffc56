// The 16 × 16 float32 transposition of the cpu backend's AVX-512 kernels (transpose16.h).
#include "src/backends/cpu/transpose16.h"

#if CPPNN_CPU_X86
#include <immintrin.h>
#endif

namespace cppnn::cpu {

#if CPPNN_CPU_X86
// GCC 12 reports the undefined vector inside _mm512_unpacklo_ps/_mm512_unpackhi_ps as used
// uninitialized (its own intrinsic's placeholder, not ours).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
// dst[j·dst_stride + i] = src[i·src_stride + j] for i, j < 16 (a 16 × 16 transposition in
// registers: pairs, then quads within 128-bit lanes, then the lanes).
CPPNN_TARGET_AVX512 void transpose16(const float* src, size_t src_stride, float* dst,
                                     size_t dst_stride) {
  __m512 r[16], t[16];
  for (size_t i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * src_stride);
  for (size_t k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (size_t k = 0; k < 4; ++k) {
    r[4 * k + 0] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
    r[4 * k + 1] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0xEE);
    r[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
    r[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xEE);
  }
  for (size_t c = 0; c < 4; ++c) {
    t[c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xDD);
    t[8 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
    t[12 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xDD);
  }
  for (size_t c = 0; c < 8; ++c) {
    r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xDD);
  }
  for (size_t i = 0; i < 16; ++i) _mm512_storeu_ps(dst + i * dst_stride, r[i]);
}
#pragma GCC diagnostic pop
#endif

}  // namespace cppnn::cpu
