#include "src/backends/cpu/half_weights.h"

#include <algorithm>

#include "cppnn/float16.h"
#include "src/backends/cpu/cpu_features.h"

#if CPPNN_CPU_X86
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

using T = MLOperandDataType;

// The float16 constant `b` is widened from (its cast's input), or an invalid id.
OperandId half_source(const Graph& g, OperandId b) {
  const OperandInfo& info = g.operand(b);
  if (info.kind != OperandKind::kOperationResult) return kNoOperand;
  const Operation& cast = g.operations[info.producer];
  if (cast.type != OpType::kCast || info.descriptor.dataType != T::kFloat32) return kNoOperand;
  const OperandId w = cast.inputs[0];
  const OperandInfo& source = g.operand(w);
  if (source.kind != OperandKind::kConstant || source.descriptor.dataType != T::kFloat16)
    return kNoOperand;
  return w;
}

bool is_product(const Operation& op) {
  return op.type == OpType::kGemm || op.type == OpType::kMatmul;
}

// Σ_l a[l]·half(b[l]) for `rows` rows of b at once, portable (the halves widened one by one).
void dots_portable(const float* a, const uint16_t* b, size_t ldb, size_t count, size_t n,
                   float* out) {
  for (size_t r = 0; r < count; ++r) {
    const uint16_t* row = b + r * ldb;
    float s = 0.0f;
    for (size_t l = 0; l < n; ++l) s += a[l] * half_bits_to_float(row[l]);
    out[r] = s;
  }
}

#if CPPNN_CPU_X86
// R rows at a time, 16 halves per vector with a masked tail, two partial sums per row.
template <size_t R>
CPPNN_TARGET_AVX512 inline __attribute__((always_inline)) void dot_rows_avx512(const float* a,
                                                                               const uint16_t* b,
                                                                               size_t ldb, size_t n,
                                                                               float* out) {
  __m512 s0[R], s1[R];
  for (size_t r = 0; r < R; ++r) s0[r] = s1[r] = _mm512_setzero_ps();
  size_t l = 0;
  for (; l + 32 <= n; l += 32) {
    const __m512 a0 = _mm512_loadu_ps(a + l), a1 = _mm512_loadu_ps(a + l + 16);
    for (size_t r = 0; r < R; ++r) {
      const uint16_t* row = b + r * ldb + l;
      const __m512 b0 = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)));
      const __m512 b1 =
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16)));
      s0[r] = _mm512_fmadd_ps(a0, b0, s0[r]);
      s1[r] = _mm512_fmadd_ps(a1, b1, s1[r]);
    }
  }
  for (; l < n; l += 16) {
    const __mmask16 m = static_cast<__mmask16>(n - l >= 16 ? 0xFFFF : (1u << (n - l)) - 1);
    const __m512 a0 = _mm512_maskz_loadu_ps(m, a + l);
    for (size_t r = 0; r < R; ++r) {
      const __m256i h = _mm256_maskz_loadu_epi16(m, b + r * ldb + l);
      s0[r] = _mm512_fmadd_ps(a0, _mm512_cvtph_ps(h), s0[r]);
    }
  }
  for (size_t r = 0; r < R; ++r) out[r] = _mm512_reduce_add_ps(_mm512_add_ps(s0[r], s1[r]));
}

CPPNN_TARGET_AVX512 void dots_avx512(const float* a, const uint16_t* b, size_t ldb, size_t count,
                                     size_t n, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) dot_rows_avx512<4>(a, b + r * ldb, ldb, n, out + r);
  for (; r < count; ++r) dot_rows_avx512<1>(a, b + r * ldb, ldb, n, out + r);
}

__attribute__((target("avx2,fma,f16c"))) void dots_avx2(const float* a, const uint16_t* b,
                                                        size_t ldb, size_t count, size_t n,
                                                        float* out) {
  for (size_t r = 0; r < count; ++r) {
    const uint16_t* row = b + r * ldb;
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t l = 0;
    for (; l + 16 <= n; l += 16) {
      s0 = _mm256_fmadd_ps(
          _mm256_loadu_ps(a + l),
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + l))), s0);
      s1 = _mm256_fmadd_ps(
          _mm256_loadu_ps(a + l + 8),
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + l + 8))), s1);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, _mm256_add_ps(s0, s1));
    float s = 0.0f;
    for (float v : lanes) s += v;
    for (; l < n; ++l) s += a[l] * half_bits_to_float(row[l]);
    out[r] = s;
  }
}

// F16C: CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does not know "f16c").
bool has_f16c() {
  static const bool yes = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
  }();
  return yes;
}
#endif

}  // namespace

bool has_half_weight(const Graph& graph, const Operation& op) {
  return is_product(op) && op.inputs.size() >= 2 &&
         graph.descriptor(op.inputs[0]).dataType == T::kFloat32 &&
         graph.descriptor(op.inputs[1]).dataType == T::kFloat16;
}

Graph read_half_weights_in_products(const Graph& graph, bool* changed) {
  *changed = false;
  Graph g = graph;
  for (Operation& op : g.operations) {
    if (!is_product(op) || g.descriptor(op.inputs[0]).dataType != T::kFloat32) continue;
    const OperandId w = half_source(g, op.inputs[1]);
    if (!w.valid()) continue;
    // matmul: B one matrix (its batch dimensions, if any, all 1), A at least a matrix.
    if (op.type == OpType::kMatmul) {
      const auto& bs = g.descriptor(w).shape;
      if (bs.size() < 2 || g.descriptor(op.inputs[0]).shape.size() < 2 ||
          std::any_of(bs.begin(), bs.end() - 2, [](uint32_t d) { return d != 1; }))
        continue;
    }
    op.inputs[1] = w;
    *changed = true;
  }
  if (!*changed) return graph;
  // The casts no other operation reads go with the pruning (inputs are kept: the bindings name
  // them all).
  return g.pruned(true);
}

void HalfMatrixBPacker::pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const {
  constexpr size_t NR = kGemmNR;
  for (size_t jp = 0; jp * NR < nc; ++jp) {
    const size_t cols = std::min(NR, nc - jp * NR);
    float* panel = dst + jp * kc * NR;
    for (size_t l = 0; l < kc; ++l) {
      const uint16_t* src = b_ + (k0 + l) * row_stride_ + (n0 + jp * NR) * col_stride_;
      float* out = panel + l * NR;
      for (size_t j = 0; j < cols; ++j) out[j] = half_bits_to_float(src[j * col_stride_]);
      for (size_t j = cols; j < NR; ++j) out[j] = 0.0f;
    }
  }
}

void half_dots(const float* a, const uint16_t* b, size_t ldb, size_t count, size_t n, float* out) {
#if CPPNN_CPU_X86
  if (has_avx512()) return dots_avx512(a, b, ldb, count, n, out);
  if (has_avx2_fma() && has_f16c()) return dots_avx2(a, b, ldb, count, n, out);
#endif
  dots_portable(a, b, ldb, count, n, out);
}

}  // namespace cppnn::cpu
