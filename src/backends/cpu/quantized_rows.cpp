#include "src/backends/cpu/quantized_rows.h"

#include <algorithm>

#include "src/backends/cpu/cpu_features.h"

#if CPPNN_CPU_X86
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

using T = MLOperandDataType;

// The integer at index `at` of the matrix (4-bit values: nibble `at % 2` of byte `at / 2`).
inline int integer_at(T type, const uint8_t* q, size_t at) {
  switch (type) {
    case T::kInt4:
    case T::kUint4: {
      const int v = (q[at / 2] >> (4 * (at % 2))) & 0xF;
      return type == T::kInt4 ? (v ^ 8) - 8 : v;
    }
    case T::kInt8:
      return static_cast<int8_t>(q[at]);
    default:
      return q[at];
  }
}

// The plain loops: the integers of a block first, then the float32 arithmetic, so that the
// compiler vectorises the second loop for each clone's instruction set.
CPPNN_CPU_CLONES void dequantize_plain(const QuantizedMatrix& m, size_t row, size_t k0,
                                       size_t count, float* out) {
  int32_t ints[64];
  const size_t base = row * m.k;
  for (size_t done = 0; done < count;) {
    const size_t b = (k0 + done) / m.block;
    const size_t run = std::min({m.block - (k0 + done) % m.block, count - done, size_t{64}});
    for (size_t i = 0; i < run; ++i) ints[i] = integer_at(m.type, m.q, base + k0 + done + i);
    const float s = m.scale[row * (m.k / m.block) + b];
    float* o = out + done;
    for (size_t i = 0; i < run; ++i) o[i] = static_cast<float>(ints[i]) * s;
    if (m.offset) {
      const float off = m.offset[row * (m.k / m.block) + b];
      for (size_t i = 0; i < run; ++i) o[i] += off;
    }
    done += run;
  }
}

float dot_plain(const float* a, const float* w, size_t k) {
  float s[4] = {0, 0, 0, 0};  // four partial sums, so the compiler need not reassociate
  size_t i = 0;
  for (; i + 4 <= k; i += 4)
    for (size_t j = 0; j < 4; ++j) s[j] += a[i + j] * w[i + j];
  float sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (; i < k; ++i) sum += a[i] * w[i];
  return sum;
}

#if CPPNN_CPU_X86
// 16 integers from index `at` as float32 lanes.
CPPNN_TARGET_AVX512 inline __m512 ints_16_avx512(T type, const uint8_t* q, size_t at) {
  __m512i ints;
  if (type == T::kInt4 || type == T::kUint4) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + at / 2));
    const __m128i lo = _mm_and_si128(bytes, _mm_set1_epi8(0x0F));
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), _mm_set1_epi8(0x0F));
    ints = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));  // element 2j low, 2j+1 high
    if (type == T::kInt4) {
      const __m512i eight = _mm512_set1_epi32(8);
      ints = _mm512_sub_epi32(_mm512_xor_si512(ints, eight), eight);
    }
  } else {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + at));
    ints = type == T::kInt8 ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
  }
  return _mm512_cvtepi32_ps(ints);
}

// dequantize() 16 elements at a time (blocks of a multiple of 16).
CPPNN_TARGET_AVX512 void dequantize_avx512(const QuantizedMatrix& m, size_t row, size_t k0,
                                           size_t count, float* out) {
  const size_t base = row * m.k, blocks = m.k / m.block;
  for (size_t i = 0; i < count; i += m.block) {
    const size_t b = row * blocks + (k0 + i) / m.block;
    const __m512 s = _mm512_set1_ps(m.scale[b]);
    const __m512 o = _mm512_set1_ps(m.offset ? m.offset[b] : 0.0f);
    for (size_t j = i; j < i + m.block; j += 16) {
      __m512 v = _mm512_mul_ps(ints_16_avx512(m.type, m.q, base + k0 + j), s);
      if (m.offset) v = _mm512_add_ps(v, o);
      _mm512_storeu_ps(out + j, v);
    }
  }
}

// dot() in registers (blocks of a multiple of 16).
CPPNN_TARGET_AVX512 float dot_avx512(const QuantizedMatrix& m, size_t row, const float* a,
                                     const float* block_sums) {
  const size_t base = row * m.k, blocks = m.k / m.block;
  __m512 total0 = _mm512_setzero_ps(), total1 = _mm512_setzero_ps();
  float offsets = 0;
  for (size_t b = 0, i = 0; i < m.k; ++b) {
    __m512 in0 = _mm512_setzero_ps(), in1 = _mm512_setzero_ps();
    const size_t end = i + m.block;
    for (; i + 32 <= end; i += 32) {
      in0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), ints_16_avx512(m.type, m.q, base + i), in0);
      in1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), ints_16_avx512(m.type, m.q, base + i + 16),
                            in1);
    }
    if (i < end) {
      in0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), ints_16_avx512(m.type, m.q, base + i), in0);
      i += 16;
    }
    const __m512 s = _mm512_set1_ps(m.scale[row * blocks + b]);
    total0 = _mm512_fmadd_ps(in0, s, total0);
    total1 = _mm512_fmadd_ps(in1, s, total1);
    if (m.offset) offsets += m.offset[row * blocks + b] * block_sums[b];
  }
  // (GCC 12's reduce and extract intrinsics trip -Wuninitialized: the lanes are summed from
  // memory.)
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(total0, total1));
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum + offsets;
}
#endif

#if CPPNN_CPU_X86
// Whether the AVX-512 forms apply (blocks of a multiple of 16 on a CPU with AVX-512).
bool vector_blocks(const QuantizedMatrix& m) {
  return m.block % 16 == 0 && has_avx512();
}
#endif

}  // namespace

void QuantizedMatrix::dequantize(size_t row, size_t k0, size_t count, float* out) const {
#if CPPNN_CPU_X86
  if (vector_blocks(*this) && k0 % block == 0 && count % block == 0)
    return dequantize_avx512(*this, row, k0, count, out);
#endif
  dequantize_plain(*this, row, k0, count, out);
}

float QuantizedMatrix::dot(size_t row, const float* a, const float* block_sums,
                           float* scratch) const {
#if CPPNN_CPU_X86
  if (vector_blocks(*this)) return dot_avx512(*this, row, a, block_sums);
#endif
  (void)block_sums;
  dequantize_plain(*this, row, 0, k, scratch);
  return dot_plain(a, scratch, k);
}

}  // namespace cppnn::cpu
