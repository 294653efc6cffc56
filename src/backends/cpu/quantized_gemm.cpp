// The quantized GEMM of the cpu backend (quantized_weights.h): y = α·A·W' + β·C for a float32 A
// [M, K] and a block-quantized weight W [N, K] (int4/uint4 packed two per byte, int8 or uint8;
// float32 scale and optional offset per block of B consecutive elements of a row). Each task
// takes a band of W's rows (the output's columns): a row is dequantized into a float32 buffer
// exactly as dequantizeLinear computes it (q * scale rounded to float32, then + offset), then
// multiplied with every row of A (vectorised float32 dot products with FMA; accumulation order
// differs from the reference's double sum as in the cpu backend's other GEMMs). The 4-bit
// weights stay 4-bit in memory: a decode step reads each weight byte once.
#include <cstring>
#include <memory>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/number.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/quantized_weights.h"
#include "src/backends/reference/strides.h"

#if CPPNN_CPU_X86
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

using T = MLOperandDataType;
using Dims = std::vector<uint32_t>;

// Output columns per pool task.
constexpr size_t kColumnsPerTask = 16;

// The integers of row `row` of a [N, K] weight as int8 (4-bit values unpacked, low nibble first).
void unpack_row(T type, const uint8_t* q, size_t row, size_t k, int16_t* out) {
  switch (type) {
    case T::kInt4:
    case T::kUint4: {
      // Rows start on a byte when K is even (checked at compile); nibble 2i is the low one.
      const uint8_t* p = q + row * k / 2;
      const bool sign = type == T::kInt4;
      for (size_t i = 0; i < k / 2; ++i) {
        const int lo = p[i] & 0xF, hi = p[i] >> 4;
        out[2 * i] = static_cast<int16_t>(sign ? ((lo ^ 8) - 8) : lo);
        out[2 * i + 1] = static_cast<int16_t>(sign ? ((hi ^ 8) - 8) : hi);
      }
      return;
    }
    case T::kInt8: {
      const auto* p = reinterpret_cast<const int8_t*>(q) + row * k;
      for (size_t i = 0; i < k; ++i) out[i] = p[i];
      return;
    }
    default: {
      const uint8_t* p = q + row * k;
      for (size_t i = 0; i < k; ++i) out[i] = p[i];
      return;
    }
  }
}

// w[i] = q[i] * scale[i / block] (+ offset[i / block]), each operation rounded to float32 as
// dequantizeLinear (and the add after it) computes.
CPPNN_CPU_CLONES void scale_row(const int16_t* q, const float* scale, const float* offset,
                                size_t block, size_t k, float* w) {
  for (size_t b = 0; b * block < k; ++b) {
    const float s = scale[b];
    const int16_t* qb = q + b * block;
    float* wb = w + b * block;
    for (size_t j = 0; j < block; ++j) wb[j] = static_cast<float>(qb[j]) * s;
    if (offset) {
      const float o = offset[b];
      for (size_t j = 0; j < block; ++j) wb[j] += o;
    }
  }
}

#if CPPNN_CPU_X86
// The row dequantized 16 elements at a time (blocks of 16 or 32): the integers widened to
// int32, converted, multiplied by the block's scale and offset, each step rounded as the plain
// loops round it.
CPPNN_TARGET_AVX512 void dequantize_row_avx512(T type, const uint8_t* q, size_t row,
                                               const float* scale, const float* offset,
                                               size_t block, size_t k, float* w) {
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  const __m512i eight = _mm512_set1_epi32(8);
  const size_t base = row * k;
  for (size_t b = 0, i = 0; i < k; ++b) {
    const __m512 s = _mm512_set1_ps(scale[b]);
    const __m512 o = _mm512_set1_ps(offset ? offset[b] : 0.0f);
    for (const size_t end = i + block; i < end; i += 16) {
      __m512i ints;
      if (type == T::kInt4 || type == T::kUint4) {
        const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + (base + i) / 2));
        const __m128i lo = _mm_and_si128(bytes, low_nibbles);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low_nibbles);
        ints = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));  // element 2j low, 2j+1 high
        if (type == T::kInt4) ints = _mm512_sub_epi32(_mm512_xor_si512(ints, eight), eight);
      } else {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + base + i));
        ints = type == T::kInt8 ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
      }
      __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(ints), s);
      if (offset) v = _mm512_add_ps(v, o);
      _mm512_storeu_ps(w + i, v);
    }
  }
}

// The integers 16 at a time as float32 (element i of the row at `base + i`).
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

// One output of a single-row product (a decode step): a[0, k) times row `row` of the weight,
// computed per block as scale * (a . q) + offset * (sum of a over the block), `block_sums`
// holding the latter sums; nothing is stored. (The products are grouped by block instead of
// being formed from the dequantized weights: the same value up to float32 rounding, as any
// other summation order.)
CPPNN_TARGET_AVX512 float dot_quantized_row_avx512(const float* a, const float* block_sums, T type,
                                                   const uint8_t* q, size_t row, const float* scale,
                                                   const float* offset, size_t block, size_t k) {
  const size_t base = row * k;
  __m512 total0 = _mm512_setzero_ps(), total1 = _mm512_setzero_ps();
  float offsets = 0;
  for (size_t b = 0, i = 0; i < k; ++b) {
    __m512 in0 = _mm512_setzero_ps(), in1 = _mm512_setzero_ps();
    size_t end = i + block;
    for (; i + 32 <= end; i += 32) {
      in0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), ints_16_avx512(type, q, base + i), in0);
      in1 =
          _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), ints_16_avx512(type, q, base + i + 16), in1);
    }
    if (i < end) {
      in0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), ints_16_avx512(type, q, base + i), in0);
      i += 16;
    }
    const __m512 s = _mm512_set1_ps(scale[b]);
    total0 = _mm512_fmadd_ps(in0, s, total0);
    total1 = _mm512_fmadd_ps(in1, s, total1);
    if (offset) offsets += offset[b] * block_sums[b];
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(total0, total1));
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum + offsets;
}

// The same for 4-bit weights in blocks of a multiple of 32, with `even` and `odd` holding a's
// elements 0, 2, 4, ... and 1, 3, 5, ...: the 16 bytes of 32 weights are widened to 16 lanes,
// and each lane's low and high nibble select their float32 value from a 16-entry table
// (vpermps reads an index's low 4 bits), so a weight costs no conversion instruction.
CPPNN_TARGET_AVX512 float dot_4bit_row_avx512(const float* even, const float* odd,
                                              const float* block_sums, T type, const uint8_t* q,
                                              size_t row, const float* scale, const float* offset,
                                              size_t block, size_t k) {
  const __m512 table = type == T::kInt4
                           ? _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1)
                           : _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const uint8_t* bytes = q + row * k / 2;
  __m512 total = _mm512_setzero_ps();
  float offsets = 0;
  for (size_t b = 0, i = 0; i < k; ++b) {
    __m512 in0 = _mm512_setzero_ps(), in1 = _mm512_setzero_ps();
    for (const size_t end = i + block; i < end; i += 32) {
      const __m512i lanes =
          _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i / 2)));
      in0 =
          _mm512_fmadd_ps(_mm512_loadu_ps(even + i / 2), _mm512_permutexvar_ps(lanes, table), in0);
      in1 = _mm512_fmadd_ps(_mm512_loadu_ps(odd + i / 2),
                            _mm512_permutexvar_ps(_mm512_srli_epi32(lanes, 4), table), in1);
    }
    total = _mm512_fmadd_ps(_mm512_add_ps(in0, in1), _mm512_set1_ps(scale[b]), total);
    if (offset) offsets += offset[b] * block_sums[b];
  }
  alignas(64) float sums[16];
  _mm512_store_ps(sums, total);
  float sum = 0;
  for (float v : sums) sum += v;
  return sum + offsets;
}

CPPNN_TARGET_AVX512 float dot_avx512(const float* a, const float* w, size_t k) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= k; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(w + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(w + i + 16), s1);
  }
  for (; i + 16 <= k; i += 16)
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(w + i), s0);
  // (GCC 12's extract and reduce intrinsics trip -Wuninitialized: the lanes are summed from
  // memory.)
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(s0, s1));
  float sum = 0;
  for (float v : lanes) sum += v;
  for (; i < k; ++i) sum += a[i] * w[i];
  return sum;
}

CPPNN_TARGET_AVX2 float dot_avx2(const float* a, const float* w, size_t k) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(w + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(w + i + 8), s1);
  }
  __m256 s = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  float sum = _mm_cvtss_f32(h);
  for (; i < k; ++i) sum += a[i] * w[i];
  return sum;
}
#endif

// The baseline: four partial sums, so the compiler need not reassociate.
float dot_baseline(const float* a, const float* w, size_t k) {
  float s[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= k; i += 4)
    for (size_t j = 0; j < 4; ++j) s[j] += a[i + j] * w[i + j];
  float sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (; i < k; ++i) sum += a[i] * w[i];
  return sum;
}

using DotFn = float (*)(const float*, const float*, size_t);

DotFn pick_dot() {
#if CPPNN_CPU_X86
  if (has_avx512()) return &dot_avx512;
  if (has_avx2_fma()) return &dot_avx2;
#endif
  return &dot_baseline;
}

struct QuantizedGemmKernel {
  OperandId a, c, out;
  size_t m = 0, k = 0, n = 0, block = 0;
  T q_type = T::kInt8;
  const uint8_t* q = nullptr;
  const float* scale = nullptr;
  const float* offset = nullptr;
  float alpha = 1, beta = 1;
  ref::Strides c_strides;
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;
  DotFn dot = &dot_baseline;
  bool avx512_rows = false;  // dequantize_row_avx512 applies (blocks of 16 or 32)

  void operator()(std::span<std::byte* const> slots) const {
    const float* pa = reinterpret_cast<const float*>(slots[a.value]);
    float* py = reinterpret_cast<float*>(slots[out.value]);
    const float* pc = c.valid() ? reinterpret_cast<const float*>(slots[c.value]) : nullptr;
    const size_t tasks = (n + kColumnsPerTask - 1) / kColumnsPerTask;
    const size_t blocks_per_row = k / block;
    // A single row's sums per block (the offsets' factor), and for 4-bit weights its even and
    // odd elements apart, once per call.
    std::vector<float> sums, even, odd;
    if (m == 1 && offset) {
      sums.assign(blocks_per_row, 0.0f);
      for (size_t b = 0; b < blocks_per_row; ++b)
        for (size_t i = 0; i < block; ++i) sums[b] += pa[b * block + i];
    }
    const bool nibble_table =
        m == 1 && avx512_rows && block % 32 == 0 && (q_type == T::kInt4 || q_type == T::kUint4);
    if (nibble_table) {
      even.resize(k / 2);
      odd.resize(k / 2);
      for (size_t i = 0; i < k / 2; ++i) {
        even[i] = pa[2 * i];
        odd[i] = pa[2 * i + 1];
      }
    }
    pool->parallel_for(tasks, [&](size_t t) {
      thread_local std::vector<int16_t> ints;
      thread_local std::vector<float> row;
      ints.resize(k);
      row.resize(k);
      const size_t first = t * kColumnsPerTask, last = std::min(n, first + kColumnsPerTask);
      for (size_t j = first; j < last; ++j) {
        const float* s = scale + j * blocks_per_row;
        const float* o = offset ? offset + j * blocks_per_row : nullptr;
#if CPPNN_CPU_X86
        if (avx512_rows && m == 1) {
          float v = alpha *
                    (nibble_table
                         ? dot_4bit_row_avx512(even.data(), odd.data(), sums.data(), q_type, q, j,
                                               s, o, block, k)
                         : dot_quantized_row_avx512(pa, sums.data(), q_type, q, j, s, o, block, k));
          if (pc) v += beta * pc[j * c_strides[1]];
          py[j] = v;
          continue;
        }
        if (avx512_rows) {
          dequantize_row_avx512(q_type, q, j, s, o, block, k, row.data());
        } else
#endif
        {
          unpack_row(q_type, q, j, k, ints.data());
          scale_row(ints.data(), s, o, block, k, row.data());
        }
        for (size_t i = 0; i < m; ++i) {
          float v = alpha * dot(pa + i * k, row.data(), k);
          if (pc) v += beta * pc[i * c_strides[0] + j * c_strides[1]];
          py[i * n + j] = v;
        }
      }
    });
    if (epilogue)
      for (size_t i = 0; i < m; ++i) epilogue->apply(py + i * n, n);
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_quantized_gemm(const CompileContext& cc,
                                                      const Operation& op) {
  const auto& o = attrs_of<OpType::kGemm>(op.attrs).options;
  QuantizedGemmKernel kern;
  kern.a = op.inputs[0];
  const OperandId q = op.inputs[1];
  kern.c = op.inputs[2];
  const OperandId scale = op.inputs[3], offset = op.inputs[4];
  kern.out = op.outputs[0];
  const Dims& qs = cc.desc(q).shape;  // [N, K / B, B]
  kern.q_type = cc.desc(q).dataType;
  kern.n = qs[0];
  kern.block = qs[2];
  kern.k = size_t{qs[1]} * qs[2];
  kern.m = cc.desc(kern.a).shape[0];
  const bool four_bit = kern.q_type == T::kInt4 || kern.q_type == T::kUint4;
  if (four_bit && kern.k % 2 != 0)
    throw OperationError("cpu backend: a 4-bit weight with an odd row length (" +
                         std::to_string(kern.k) + ") in gemm [" + o.label + "]");
  kern.q = reinterpret_cast<const uint8_t*>(cc.constant(q));
  kern.scale = reinterpret_cast<const float*>(cc.constant(scale));
  kern.offset = offset.valid() ? reinterpret_cast<const float*>(cc.constant(offset)) : nullptr;
  kern.alpha = static_cast<float>(MLNumber(o.alpha).cast_to_double(T::kFloat32));
  kern.beta = static_cast<float>(MLNumber(o.beta).cast_to_double(T::kFloat32));
  if (kern.c.valid())
    kern.c_strides =
        ref::broadcast_strides(cc.desc(kern.c).shape, Dims{uint32_t(kern.m), uint32_t(kern.n)});
  kern.epilogue = Epilogue::from(op.activations);
  kern.pool = cc.pool;
  kern.dot = pick_dot();
#if CPPNN_CPU_X86
  kern.avx512_rows = has_avx512() && kern.block % 16 == 0;
#endif
  const bool applies = kern.epilogue.has_value();  // else the plan runs them after
  return FastKernel{std::move(kern), applies};
}

}  // namespace cppnn::cpu
