// The cpu backend's blocked float32 GEMM (gemm.h).
#include "src/backends/cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/simd.h"

#if CPPNN_CPU_X86
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

constexpr size_t MR = kGemmMR, NR = kGemmNR;
// Rows of a packed B panel the AVX-512 tile asks for ahead of the one it multiplies.
constexpr size_t kPrefetchRows = 8;
// The AVX-512 tile asks for one line of what the product reads next every kAheadSpacing rows.
constexpr size_t kAheadSpacing = 3;

// Lines of memory a tile asks for while it multiplies (`lines` 64-byte lines from `p`): its
// share of the next packed B block, so that a weight streaming from memory arrives in L2 while
// the block before it is multiplied.
struct Ahead {
  const char* p = nullptr;
  size_t lines = 0;
};

// One register tile, portable: c(i, j) for i < mr, j < nr from the packed panels, then either
// added to c (load_c), or written with the row bias and the column bias (when set).
CPPNN_CPU_CLONES void tile_portable(size_t kc, const float* a, const float* b, float* c, size_t ldc,
                                    size_t mr, size_t nr, bool load_c, const float* bias,
                                    const float* col, Ahead) {
  float acc[MR][NR] = {};
  for (size_t l = 0; l < kc; ++l) {
    const float* bl = b + l * NR;
    const float* al = a + l * MR;
    for (size_t i = 0; i < MR; ++i) {
      const float ai = al[i];
      for (size_t j = 0; j < NR; ++j) acc[i][j] += ai * bl[j];
    }
  }
  for (size_t i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    const float add = bias ? bias[i] : 0.0f;
    for (size_t j = 0; j < nr; ++j)
      row[j] = load_c ? row[j] + acc[i][j] : acc[i][j] + add + (col ? col[j] : 0.0f);
  }
}

#if CPPNN_CPU_X86
// Writes the R rows × 32 accumulators of an AVX-512 tile (gemm's tile contract: added to c under
// load_c, else with the row and column biases; masked for partial tiles).
template <size_t R>
CPPNN_TARGET_AVX512 inline __attribute__((always_inline)) void store_tile_avx512(
    const __m512* c0, const __m512* c1, float* c, size_t ldc, size_t mr, size_t nr, bool load_c,
    const float* bias, const float* col) {
  const __mmask16 m0 = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
  const __mmask16 m1 = nr >= 32  ? __mmask16(0xFFFF)
                       : nr > 16 ? __mmask16((1u << (nr - 16)) - 1)
                                 : __mmask16(0);
  const __m512 col0 = col && !load_c ? _mm512_maskz_loadu_ps(m0, col) : _mm512_setzero_ps();
  const __m512 col1 = col && !load_c ? _mm512_maskz_loadu_ps(m1, col + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
  for (size_t i = 0; i < R; ++i) {
    if (i >= mr) break;
    float* row = c + i * ldc;
    __m512 v0 = c0[i], v1 = c1[i];
    if (load_c) {
      v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, row), v0);
      v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, row + 16), v1);
    } else {
      if (bias) {
        const __m512 bi = _mm512_set1_ps(bias[i]);
        v0 = _mm512_add_ps(v0, bi);
        v1 = _mm512_add_ps(v1, bi);
      }
      if (col) {
        v0 = _mm512_add_ps(v0, col0);
        v1 = _mm512_add_ps(v1, col1);
      }
    }
    _mm512_mask_storeu_ps(row, m0, v0);
    _mm512_mask_storeu_ps(row + 16, m1, v1);
  }
}

// One depth step of an AVX-512 tile: c0[i] += al[i]·bl[0..16), c1[i] += al[i]·bl[16..32) for
// i < R, the row broadcasts folded into the FMAs (bl unaligned).
template <size_t R>
CPPNN_TARGET_AVX512 inline __attribute__((always_inline)) void fma_row_avx512(const float* al,
                                                                              const float* bl,
                                                                              __m512* c0,
                                                                              __m512* c1) {
  const __m512 b0 = _mm512_loadu_ps(bl);
  const __m512 b1 = _mm512_loadu_ps(bl + 16);
#pragma GCC unroll 12
  for (size_t i = 0; i < R; ++i) {
    const __m512 ai = _mm512_set1_ps(al[i]);
    c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
    c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
  }
}

// The same tile with AVX-512 for the first R rows of the panel (R = 12, or 8 and 4 for a last
// panel of few rows, so that 16, 32 or 64 rows are not computed as 24, 36 and 72): 2·R
// accumulators (R rows × 2 vectors of 16), the row broadcasts folded into the FMAs; masked loads
// and stores for partial tiles.
template <size_t R>
CPPNN_TARGET_AVX512 void tile_avx512_rows(size_t kc, const float* a, const float* b, float* c,
                                          size_t ldc, size_t mr, size_t nr, bool load_c,
                                          const float* bias, const float* col, Ahead ahead) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (size_t i = 0; i < R; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  const size_t ahead_rows = std::min(kc, ahead.lines * kAheadSpacing);
  for (size_t l = 0; l < kc; ++l) {
    if (l < ahead_rows && l % kAheadSpacing == 0)
      _mm_prefetch(ahead.p + l / kAheadSpacing * 64, _MM_HINT_T1);
    // B's panel streams from L2 (a block is shared by every row panel): its lines are asked
    // for kPrefetchRows rows ahead, which the L1 prefetcher does not do on its own.
    _mm_prefetch(reinterpret_cast<const char*>(b + (l + kPrefetchRows) * NR), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + (l + kPrefetchRows) * NR + 16), _MM_HINT_T0);
    fma_row_avx512<R>(a + l * MR, b + l * NR, c0, c1);
  }
  store_tile_avx512<R>(c0, c1, c, ldc, mr, nr, load_c, bias, col);
}

// The AVX-512 tile reading B in place (BPacker::rows_in_place): row l of the panel at
// b + offsets[l], unaligned; otherwise tile_avx512_rows.
template <size_t R>
CPPNN_TARGET_AVX512 void tile_avx512_in_place(size_t kc, const float* a, const float* b,
                                              const size_t* offsets, float* c, size_t ldc,
                                              size_t mr, size_t nr, bool load_c, const float* bias,
                                              const float* col) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (size_t i = 0; i < R; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  for (size_t l = 0; l < kc; ++l) fma_row_avx512<R>(a + l * MR, b + offsets[l], c0, c1);
  store_tile_avx512<R>(c0, c1, c, ldc, mr, nr, load_c, bias, col);
}

void tile_in_place(size_t kc, const float* a, const float* b, const size_t* offsets, float* c,
                   size_t ldc, size_t mr, size_t nr, bool load_c, const float* bias,
                   const float* col) {
  if (mr <= 4) return tile_avx512_in_place<4>(kc, a, b, offsets, c, ldc, mr, nr, load_c, bias, col);
  if (mr <= 8) return tile_avx512_in_place<8>(kc, a, b, offsets, c, ldc, mr, nr, load_c, bias, col);
  tile_avx512_in_place<MR>(kc, a, b, offsets, c, ldc, mr, nr, load_c, bias, col);
}

// The AVX-512 tile with as few rows as the panel has.
void tile_avx512(size_t kc, const float* a, const float* b, float* c, size_t ldc, size_t mr,
                 size_t nr, bool load_c, const float* bias, const float* col, Ahead ahead) {
  if (mr <= 4) return tile_avx512_rows<4>(kc, a, b, c, ldc, mr, nr, load_c, bias, col, ahead);
  if (mr <= 8) return tile_avx512_rows<8>(kc, a, b, c, ldc, mr, nr, load_c, bias, col, ahead);
  tile_avx512_rows<MR>(kc, a, b, c, ldc, mr, nr, load_c, bias, col, ahead);
}

// The same tile with AVX2: four 6×16 sub-tiles (12 accumulators each, the classic FMA kernel) over
// the same packed panels, into a local tile, then written out like the portable one.
CPPNN_TARGET_AVX2 void tile_avx2(size_t kc, const float* a, const float* b, float* c, size_t ldc,
                                 size_t mr, size_t nr, bool load_c, const float* bias,
                                 const float* col, Ahead) {
  alignas(32) float acc[MR][NR];
  for (size_t i0 = 0; i0 < MR; i0 += 6) {
    if (i0 >= mr) break;
    for (size_t j0 = 0; j0 < NR; j0 += 16) {
      if (j0 >= nr) break;
      __m256 c0[6], c1[6];
#pragma GCC unroll 6
      for (size_t i = 0; i < 6; ++i) c0[i] = c1[i] = _mm256_setzero_ps();
      const float* bp = b + j0;
      const float* ap = a + i0;
      for (size_t l = 0; l < kc; ++l) {
        const __m256 b0 = _mm256_loadu_ps(bp + l * NR);
        const __m256 b1 = _mm256_loadu_ps(bp + l * NR + 8);
#pragma GCC unroll 6
        for (size_t i = 0; i < 6; ++i) {
          const __m256 ai = _mm256_broadcast_ss(ap + l * MR + i);
          c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);
          c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);
        }
      }
#pragma GCC unroll 6
      for (size_t i = 0; i < 6; ++i) {
        _mm256_store_ps(&acc[i0 + i][j0], c0[i]);
        _mm256_store_ps(&acc[i0 + i][j0 + 8], c1[i]);
      }
    }
  }
  for (size_t i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    const float add = bias ? bias[i] : 0.0f;
    if (load_c) {
      for (size_t j = 0; j < nr; ++j) row[j] += acc[i][j];
    } else {
      for (size_t j = 0; j < nr; ++j) row[j] = acc[i][j] + add + (col ? col[j] : 0.0f);
    }
  }
}
#endif

using TileFn = void (*)(size_t, const float*, const float*, float*, size_t, size_t, size_t, bool,
                        const float*, const float*, Ahead);

TileFn tile_function() {
#if CPPNN_CPU_X86
  if (has_avx512()) return &tile_avx512;
  if (has_avx2_fma()) return &tile_avx2;
#endif
  return &tile_portable;
}

// Per-thread scratch for packed B blocks (grown, never shrunk).
float* b_scratch(size_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}

}  // namespace

void PackedA::pack_into(PackedA& out, const float* a, size_t m, size_t k, size_t row_stride,
                        size_t col_stride, float scale) {
  out.rows = m;
  out.depth = k;
  out.data.resize(out.panels() * k * MR);
  for (size_t p = 0; p < out.panels(); ++p) {
    float* dst = out.data.data() + p * k * MR;
    const size_t rows = std::min(MR, m - p * MR);
    const float* src[MR];
    for (size_t i = 0; i < MR; ++i) src[i] = a + (p * MR + std::min(i, rows - 1)) * row_stride;
    // Depth-major, so the writes are sequential; rows past m are zeros.
    for (size_t l = 0; l < k; ++l) {
      float* d = dst + l * MR;
      for (size_t i = 0; i < MR; ++i) d[i] = i < rows ? src[i][l * col_stride] * scale : 0.0f;
    }
  }
}

PackedA PackedA::pack(const float* a, size_t m, size_t k, size_t row_stride, size_t col_stride,
                      float scale) {
  PackedA out;
  pack_into(out, a, m, k, row_stride, col_stride, scale);
  return out;
}

namespace {

// MatrixBPacker::pack's loops (a free function: virtual functions cannot be multi-versioned).
CPPNN_CPU_CLONES void pack_matrix_b(const float* b, size_t row_stride, size_t col_stride, size_t k0,
                                    size_t kc, size_t n0, size_t nc, float* dst) {
  for (size_t jp = 0; jp * NR < nc; ++jp) {
    const size_t cols = std::min(NR, nc - jp * NR);
    float* panel = dst + jp * kc * NR;
    for (size_t l = 0; l < kc; ++l) {
      const float* src = b + (k0 + l) * row_stride + (n0 + jp * NR) * col_stride;
      float* out = panel + l * NR;
      if (col_stride == 1 && cols == NR) {
        std::memcpy(out, src, NR * sizeof(float));  // a fixed size: inlined vector moves
      } else if (col_stride == 1) {
        std::memcpy(out, src, cols * sizeof(float));
      } else {
        for (size_t j = 0; j < cols; ++j) out[j] = src[j * col_stride];
      }
      for (size_t j = cols; j < NR; ++j) out[j] = 0.0f;
    }
  }
}

}  // namespace

void MatrixBPacker::pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const {
  pack_matrix_b(b_, row_stride_, col_stride_, k0, kc, n0, nc, dst);
}

RowsBPacker::RowsBPacker(const float* b, size_t depth, size_t n, size_t row_stride)
    : b_(b), depth_(depth), n_(n), row_stride_(row_stride) {
  for (size_t l = 0; l < kGemmKC; ++l) offsets_[l] = l * row_stride;
}

void RowsBPacker::pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const {
  pack_matrix_b(b_, row_stride_, 1, k0, kc, n0, nc, dst);
}

BPacker::Rows RowsBPacker::rows_in_place(size_t k0, size_t n0) const {
  const bool last_rows = k0 + kGemmKC >= depth_;
  const bool last_partial_panel = n0 + kGemmNC >= n_ && n_ % NR != 0;
  if (last_rows && last_partial_panel) return {};
  return {b_ + k0 * row_stride_ + n0, offsets_.data()};
}

PackedB::PackedB(const BPacker& source, size_t depth, size_t n)
    : n_blocks_((n + kGemmNC - 1) / kGemmNC) {
  size_t total = 0;
  for (size_t k0 = 0; k0 < depth; k0 += kGemmKC)
    for (size_t n0 = 0; n0 < n; n0 += kGemmNC) {
      offsets_.push_back(total);
      total += std::min(kGemmKC, depth - k0) * ((std::min(kGemmNC, n - n0) + NR - 1) / NR * NR);
    }
  data_.resize(total + NR);  // BPacker's slack past the last block
  size_t i = 0;
  for (size_t k0 = 0; k0 < depth; k0 += kGemmKC)
    for (size_t n0 = 0; n0 < n; n0 += kGemmNC)
      source.pack(k0, std::min(kGemmKC, depth - k0), n0, std::min(kGemmNC, n - n0),
                  data_.data() + offsets_[i++]);
}

const float* PackedB::packed_block(size_t k0, size_t n0) const {
  return data_.data() + offsets_[(k0 / kGemmKC) * n_blocks_ + n0 / kGemmNC];
}

void PackedB::pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const {
  std::memcpy(dst, packed_block(k0, n0), kc * ((nc + NR - 1) / NR * NR) * sizeof(float));
}

namespace {

// Column panels [q, q + P) (columns [q·NR, q·NR + P·NR) of B) of the product of one row `a`
// with a packed B, into out (P·NR sums; the padding columns' sums are zero); the P panels are
// read side by side (P·NR / kWidth independent sums, P streams of memory).
template <size_t P>
CPPNN_SIMD_INLINE void packed_panels_row(const float* a, const PackedB& b, size_t depth, size_t q,
                                         float* out) {
  using simd::VF;
  constexpr size_t V = NR / simd::kWidth;  // vectors per panel row
  constexpr size_t kBlockPanels = kGemmNC / NR;
  VF acc[P][V];
  for (size_t p = 0; p < P; ++p)
    for (size_t v = 0; v < V; ++v) acc[p][v] = VF{};
  for (size_t k0 = 0; k0 < depth; k0 += kGemmKC) {
    const size_t kc = std::min(kGemmKC, depth - k0);
    const float* panel[P];
    for (size_t p = 0; p < P; ++p)
      panel[p] =
          b.packed_block(k0, (q + p) / kBlockPanels * kGemmNC) + (q + p) % kBlockPanels * kc * NR;
    for (size_t l = 0; l < kc; ++l) {
      const float al = a[k0 + l];
      for (size_t p = 0; p < P; ++p)
        for (size_t v = 0; v < V; ++v)
          acc[p][v] += al * simd::load(panel[p] + l * NR + v * simd::kWidth);
    }
  }
  for (size_t p = 0; p < P; ++p)
    for (size_t v = 0; v < V; ++v) simd::store(out + p * NR + v * simd::kWidth, acc[p][v]);
}

CPPNN_CPU_CLONES void packed_row(const float* a, const PackedB& b, size_t depth, size_t q0,
                                 size_t q1, float* out) {
  size_t q = q0;
  for (; q + 4 <= q1; q += 4) packed_panels_row<4>(a, b, depth, q, out + (q - q0) * NR);
  for (; q < q1; ++q) packed_panels_row<1>(a, b, depth, q, out + (q - q0) * NR);
}

}  // namespace

void packed_rows_product(const float* a, size_t m, size_t lda, const PackedB& b, size_t depth,
                         size_t n, float* y, size_t ldy, ThreadPool* pool) {
  const size_t panels = (n + NR - 1) / NR;
  auto run = [&](size_t q0, size_t q1) {
    const SubnormalsAsZero daz;
    thread_local std::vector<float> sums;
    sums.resize((q1 - q0) * NR);
    for (size_t i = 0; i < m; ++i) {
      if (depth == 0)
        std::fill(sums.begin(), sums.end(), 0.0f);
      else
        packed_row(a + i * lda, b, depth, q0, q1, sums.data());
      std::copy(sums.begin(), sums.begin() + std::min(n, q1 * NR) - q0 * NR, y + i * ldy + q0 * NR);
    }
  };
  if (pool && pool->size() > 1)
    pool->parallel_ranges(panels, 4, run);
  else
    run(0, panels);
}

void gemm(const PackedA& a, const BPacker& b, size_t n, const GemmOutput& out, ThreadPool* pool) {
  const size_t m = a.rows, k = a.depth;
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: the bias (or what c holds), then the epilogue
    for (size_t i = 0; i < m; ++i) {
      float* row = out.c + i * out.ldc;
      if (!out.accumulate) {
        std::fill(row, row + n, out.row_bias ? out.row_bias[i] : 0.0f);
        if (out.col_bias)
          for (size_t j = 0; j < n; ++j) row[j] += out.col_bias[j];
      }
      if (out.epilogue) out.epilogue->apply(row, n);
    }
    return;
  }
  static const TileFn tile = tile_function();
#if CPPNN_CPU_X86
  static const bool kInPlace = has_avx512();  // B read in place where the packer allows it
#endif
  const size_t n_blocks = (n + kGemmNC - 1) / kGemmNC;
  const size_t threads = pool ? pool->size() : 1;
  constexpr size_t kBlockPanels = kGemmNC / NR;
  // Columns [n0, n0 + nc) (one block of B), its panels [jp0, jp1), times A's row panels
  // [p0, p1).
  auto block_product = [&](size_t n0, size_t jp0, size_t jp1, size_t p0, size_t p1) {
    const size_t nc = std::min(kGemmNC, n - n0);
    const size_t nc_padded = (nc + NR - 1) / NR * NR;
    jp1 = std::min(jp1, nc_padded / NR);
    if (p0 >= p1 || jp0 >= jp1) return;
    const SubnormalsAsZero daz;
    float* scratch = nullptr;
    for (size_t k0 = 0; k0 < k; k0 += kGemmKC) {
      const size_t kc = std::min(kGemmKC, k - k0);
      const float* packed = b.packed_block(k0, n0);
      const bool load_c = out.accumulate || k0 > 0;
#if CPPNN_CPU_X86
      const BPacker::Rows in_place =
          packed || !kInPlace ? BPacker::Rows{} : b.rows_in_place(k0, n0);
      if (in_place.base) {
        for (size_t p = p0; p < p1; ++p) {
          const float* ap = a.panel(p) + k0 * MR;
          const size_t mr = std::min(MR, m - p * MR);
          const float* bias = !load_c && out.row_bias ? out.row_bias + p * MR : nullptr;
          for (size_t jp = jp0; jp < jp1; ++jp) {
            const size_t nr = std::min(NR, nc - jp * NR);
            const float* col = !load_c && out.col_bias ? out.col_bias + n0 + jp * NR : nullptr;
            tile_in_place(kc, ap, in_place.base + jp * NR, in_place.offsets,
                          out.c + p * MR * out.ldc + n0 + jp * NR, out.ldc, mr, nr, load_c, bias,
                          col);
          }
        }
        continue;
      }
#endif
      if (!packed) {
        if (!scratch) scratch = b_scratch(std::min(kGemmKC, k) * nc_padded + NR);
        b.pack(k0, kc, n0, nc, scratch);
        packed = scratch;
      }
      // A weight packed at build streams from memory: the tiles share out the lines of what
      // this product reads next (Ahead): the same panels of the next depth block, after the last
      // one those of the next column block (the next task on one thread).
      const bool last_depth = k0 + kGemmKC >= k;
      const size_t next_n0 = last_depth ? n0 + kGemmNC : n0;
      const size_t next_k0 = last_depth ? 0 : k0 + kGemmKC;
      const float* next = next_n0 < n ? b.packed_block(next_k0, next_n0) : nullptr;
      size_t next_lines = 0;
      if (next) {
        const size_t next_kc = std::min(kGemmKC, k - next_k0);
        const size_t next_panels = (std::min(kGemmNC, n - next_n0) + NR - 1) / NR;
        const size_t first = std::min(jp0, next_panels), last = std::min(jp1, next_panels);
        next += first * next_kc * NR;
        next_lines = next_kc * (last - first) * NR * sizeof(float) / 64;
      }
      const size_t tiles = (p1 - p0) * (jp1 - jp0);
      const size_t lines_per_tile = (next_lines + tiles - 1) / tiles;
      size_t line = 0;
      for (size_t p = p0; p < p1; ++p) {
        const float* ap = a.panel(p) + k0 * MR;
        const size_t mr = std::min(MR, m - p * MR);
        const float* bias = !load_c && out.row_bias ? out.row_bias + p * MR : nullptr;
        for (size_t jp = jp0; jp < jp1; ++jp) {
          const size_t nr = std::min(NR, nc - jp * NR);
          const float* col = !load_c && out.col_bias ? out.col_bias + n0 + jp * NR : nullptr;
          const Ahead share{reinterpret_cast<const char*>(next) + line * 64,
                            std::min(lines_per_tile, next_lines - line)};
          line += share.lines;
          tile(kc, ap, packed + jp * kc * NR, out.c + p * MR * out.ldc + n0 + jp * NR, out.ldc, mr,
               nr, load_c, bias, col, share);
        }
      }
    }
    if (out.epilogue && !out.epilogue->empty()) {
      const size_t j0 = n0 + jp0 * NR, j1 = std::min(n0 + nc, n0 + jp1 * NR);
      for (size_t i = p0 * MR; i < std::min(m, p1 * MR); ++i)
        out.epilogue->apply(out.c + i * out.ldc + j0, j1 - j0);
    }
  };
  // A weight packed at build with fewer column blocks than two per thread: each thread takes an
  // equal run of column panels (across blocks) with every row, so that it reads its own part of
  // the weight once (splitting the rows would have every thread stream the whole weight).
  const size_t total_panels =
      (n_blocks - 1) * kBlockPanels + ((n - (n_blocks - 1) * kGemmNC) + NR - 1) / NR;
  if (threads > 1 && n_blocks < 2 * threads && total_panels >= 2 * threads &&
      b.packed_block(0, 0) != nullptr) {
    pool->parallel_for(threads, [&](size_t t) {
      const size_t q0 = total_panels * t / threads, q1 = total_panels * (t + 1) / threads;
      for (size_t q = q0; q < q1;) {
        const size_t nb = q / kBlockPanels, jp0 = q % kBlockPanels;
        const size_t jp1 = std::min(kBlockPanels, jp0 + (q1 - q));
        block_product(nb * kGemmNC, jp0, jp1, 0, a.panels());
        q += jp1 - jp0;
      }
    });
    return;
  }
  // Split the rows too when there are too few column blocks to keep every thread busy.
  size_t m_groups = 1;
  while (n_blocks * m_groups < 2 * threads && m_groups * 2 <= a.panels()) m_groups *= 2;
  const size_t panels_per_group = (a.panels() + m_groups - 1) / m_groups;
  auto task = [&](size_t t) {
    const size_t nb = t % n_blocks, mg = t / n_blocks;
    const size_t p0 = mg * panels_per_group;
    block_product(nb * kGemmNC, 0, kBlockPanels, p0, std::min(a.panels(), p0 + panels_per_group));
  };
  const size_t tasks = n_blocks * m_groups;
  if (pool && tasks > 1) {
    pool->parallel_for(tasks, task);
  } else {
    for (size_t t = 0; t < tasks; ++t) task(t);
  }
}

}  // namespace cppnn::cpu
