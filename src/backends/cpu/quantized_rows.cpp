#include "src/backends/cpu/quantized_rows.h"

#include <algorithm>
#include <vector>

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

// The sum of the 16 lanes, in double (a row's dot product is this sum plus the block terms, which
// may nearly cancel it). (GCC 12's reduce and extract intrinsics trip -Wuninitialized: the lanes
// are summed from memory.)
CPPNN_TARGET_AVX512 inline double lane_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  double sum = 0;
  for (float x : lanes) sum += x;
  return sum;
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

// One row's dot product in registers (blocks of a multiple of 16, any integer type).
CPPNN_TARGET_AVX512 float dot_avx512(const QuantizedMatrix& m, size_t row, const float* a,
                                     const double* block_sums) {
  const size_t base = row * m.k, blocks = m.k / m.block;
  __m512 total0 = _mm512_setzero_ps(), total1 = _mm512_setzero_ps();
  double offsets = 0;
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
  return static_cast<float>(lane_sum(_mm512_add_ps(total0, total1)) + offsets);
}

// The scalar part of a row's dot product: offset[b] * block_sums[b] summed, and for signed 4-bit
// values stored shifted by 8 (nibble ^ 8), -8 * scale[b] * block_sums[b].
template <bool Shifted, bool Offset>
CPPNN_TARGET_AVX512 double block_terms(const QuantizedMatrix& m, size_t row,
                                       const double* block_sums) {
  const size_t blocks = m.k / m.block;
  const float* scale = m.scale + row * blocks;
  const float* offset = Offset ? m.offset + row * blocks : nullptr;
  // Eight blocks at a time in double lanes, then the rest.
  __m512d acc = _mm512_setzero_pd();
  size_t b = 0;
  for (; b + 8 <= blocks; b += 8) {
    __m512d f = _mm512_setzero_pd();
    if constexpr (Shifted)
      f = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(scale + b)), _mm512_set1_pd(-8.0));
    if constexpr (Offset) f = _mm512_add_pd(f, _mm512_cvtps_pd(_mm256_loadu_ps(offset + b)));
    acc = _mm512_fmadd_pd(f, _mm512_loadu_pd(block_sums + b), acc);
  }
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, acc);
  double sum = 0;
  for (double v : lanes) sum += v;
  for (; b < blocks; ++b) {
    double f = 0;
    if constexpr (Shifted) f -= 8.0 * scale[b];
    if constexpr (Offset) f += offset[b];
    sum += f * block_sums[b];
  }
  return sum;
}

// How far ahead of the rows being read the weight rows are prefetched: single-threaded decoding
// otherwise waits on memory latency (SmolLM2 decode at 1 thread 22 -> 16 ms per token).
constexpr size_t kPrefetchBytes = 4096;
// Rows of a 4-bit W (blocks of a multiple of 32) against A in nibble order (PreparedRow), R rows
// at a time: per 32 elements, 16 bytes give the low and the high nibbles as two vectors of 16
// integers, each multiplied by its 16 elements of A. Signed values are read shifted by 8
// (nibble ^ 8, unsigned) and the shift taken back through the block sums.
template <int R, bool Signed, bool Offset>
CPPNN_TARGET_AVX512 void dot_rows_nibbles(const QuantizedMatrix& m, size_t row0,
                                          const PreparedRow& p, float* out) {
  const size_t blocks = m.k / m.block, row_bytes = m.k / 2;
  const __m128i low = _mm_set1_epi8(0x0F), flip = _mm_set1_epi8(static_cast<char>(0x88));
  const float* a = p.nibble_order.data();
  __m512 total[R];
  for (int r = 0; r < R; ++r) total[r] = _mm512_setzero_ps();
  for (size_t b = 0; b < blocks; ++b) {
    __m512 lo_sum[R], hi_sum[R];
    for (int r = 0; r < R; ++r) lo_sum[r] = hi_sum[r] = _mm512_setzero_ps();
    for (size_t e = b * m.block; e < (b + 1) * m.block; e += 32) {
      const __m512 a_lo = _mm512_loadu_ps(a + e), a_hi = _mm512_loadu_ps(a + e + 16);
      if (e % 128 == 0)
        for (int r = 0; r < R; ++r)
          _mm_prefetch(reinterpret_cast<const char*>(m.q + (row0 + size_t(r)) * row_bytes + e / 2 +
                                                     kPrefetchBytes),
                       _MM_HINT_T0);
      for (int r = 0; r < R; ++r) {
        __m128i bytes = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(m.q + (row0 + size_t(r)) * row_bytes + e / 2));
        if constexpr (Signed) bytes = _mm_xor_si128(bytes, flip);
        const __m128i lo = _mm_and_si128(bytes, low);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low);
        lo_sum[r] = _mm512_fmadd_ps(a_lo, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(lo)), lo_sum[r]);
        hi_sum[r] = _mm512_fmadd_ps(a_hi, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(hi)), hi_sum[r]);
      }
    }
    for (int r = 0; r < R; ++r)
      total[r] =
          _mm512_fmadd_ps(_mm512_add_ps(lo_sum[r], hi_sum[r]),
                          _mm512_set1_ps(m.scale[(row0 + size_t(r)) * blocks + b]), total[r]);
  }
  for (int r = 0; r < R; ++r)
    out[r] = static_cast<float>(
        lane_sum(total[r]) +
        ((Signed || Offset) ? block_terms<Signed, Offset>(m, row0 + size_t(r), p.block_sums.data())
                            : 0.0));
}

// Rows of an 8-bit W (blocks of a multiple of 16), R rows at a time.
template <int R, bool Signed, bool Offset>
CPPNN_TARGET_AVX512 void dot_rows_bytes(const QuantizedMatrix& m, size_t row0, const PreparedRow& p,
                                        float* out) {
  const size_t blocks = m.k / m.block;
  const float* a = p.a;
  __m512 total[R];
  for (int r = 0; r < R; ++r) total[r] = _mm512_setzero_ps();
  for (size_t b = 0; b < blocks; ++b) {
    __m512 in[R];
    for (int r = 0; r < R; ++r) in[r] = _mm512_setzero_ps();
    for (size_t e = b * m.block; e < (b + 1) * m.block; e += 16) {
      const __m512 av = _mm512_loadu_ps(a + e);
      if (e % 64 == 0)
        for (int r = 0; r < R; ++r)
          _mm_prefetch(
              reinterpret_cast<const char*>(m.q + (row0 + size_t(r)) * m.k + e + kPrefetchBytes),
              _MM_HINT_T0);
      for (int r = 0; r < R; ++r) {
        const __m128i bytes =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(m.q + (row0 + size_t(r)) * m.k + e));
        const __m512i ints = Signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
        in[r] = _mm512_fmadd_ps(av, _mm512_cvtepi32_ps(ints), in[r]);
      }
    }
    for (int r = 0; r < R; ++r)
      total[r] = _mm512_fmadd_ps(in[r], _mm512_set1_ps(m.scale[(row0 + size_t(r)) * blocks + b]),
                                 total[r]);
  }
  for (int r = 0; r < R; ++r)
    out[r] = static_cast<float>(
        lane_sum(total[r]) +
        (Offset ? block_terms<false, Offset>(m, row0 + size_t(r), p.block_sums.data()) : 0.0));
}

// R rows through the kernel of m's integer type.
template <int R, bool Offset>
CPPNN_TARGET_AVX512 void dot_rows_of_type(const QuantizedMatrix& m, size_t row0,
                                          const PreparedRow& p, float* out) {
  switch (m.type) {
    case T::kInt4:
      return dot_rows_nibbles<R, true, Offset>(m, row0, p, out);
    case T::kUint4:
      return dot_rows_nibbles<R, false, Offset>(m, row0, p, out);
    case T::kInt8:
      return dot_rows_bytes<R, true, Offset>(m, row0, p, out);
    default:
      return dot_rows_bytes<R, false, Offset>(m, row0, p, out);
  }
}

// dot_rows() through the kernels above, two rows at a time; false when none applies.
template <bool Offset>
CPPNN_TARGET_AVX512 bool dot_rows_typed(const QuantizedMatrix& m, size_t row0, size_t rows,
                                        const PreparedRow& p, float* out) {
  const bool nibbles = (m.type == T::kInt4 || m.type == T::kUint4) && m.block % 32 == 0;
  const bool bytes = (m.type == T::kInt8 || m.type == T::kUint8) && m.block % 16 == 0;
  if (!nibbles && !bytes) return false;
  size_t r = 0;
  for (; r + 2 <= rows; r += 2) dot_rows_of_type<2, Offset>(m, row0 + r, p, out + r);
  if (r < rows) dot_rows_of_type<1, Offset>(m, row0 + r, p, out + r);
  return true;
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

void QuantizedMatrix::prepare(const float* a, PreparedRow& row) const {
  row.a = a;
  const size_t blocks = k / block;
  row.block_sums.assign(blocks, 0.0);
  for (size_t b = 0; b < blocks; ++b)
    for (size_t i = 0; i < block; ++i) row.block_sums[b] += a[b * block + i];
  if ((type == T::kInt4 || type == T::kUint4) && block % 32 == 0) {
    // Per 32 elements: byte j holds elements 2j (low nibble) and 2j + 1 (high nibble).
    row.nibble_order.resize(k);
    for (size_t g = 0; g < k; g += 32)
      for (size_t j = 0; j < 16; ++j) {
        row.nibble_order[g + j] = a[g + 2 * j];
        row.nibble_order[g + 16 + j] = a[g + 2 * j + 1];
      }
  }
}

void QuantizedMatrix::dot_rows(size_t row0, size_t rows, const PreparedRow& a, float* out) const {
#if CPPNN_CPU_X86
  if (has_avx512()) {
    if (offset ? dot_rows_typed<true>(*this, row0, rows, a, out)
               : dot_rows_typed<false>(*this, row0, rows, a, out))
      return;
    if (block % 16 == 0) {
      for (size_t r = 0; r < rows; ++r)
        out[r] = dot_avx512(*this, row0 + r, a.a, a.block_sums.data());
      return;
    }
  }
#endif
  thread_local std::vector<float> scratch;
  scratch.resize(k);
  for (size_t r = 0; r < rows; ++r) {
    dequantize_plain(*this, row0 + r, 0, k, scratch.data());
    out[r] = dot_plain(a.a, scratch.data(), k);
  }
}

}  // namespace cppnn::cpu
