// The cpu backend's float32 matrix product C = A·B (+ a bias per row) with a fused epilogue:
// A packed once into panels of kGemmMR rows (weights at build), B packed block by block by a
// BPacker (a plain matrix, or a convolution's implicit im2col), blocked for the caches (kGemmKC
// deep, kGemmNC wide) and split over the thread pool. The inner kernel is AVX-512 where the CPU
// has it (12×32 register tile), portable loops otherwise; products accumulate in float32 with FMA.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/thread_pool.h"

namespace cppnn::cpu {

inline constexpr size_t kGemmMR = 12;   // rows of the register tile
inline constexpr size_t kGemmNR = 32;   // columns of the register tile
inline constexpr size_t kGemmKC = 256;  // depth of one packed block
inline constexpr size_t kGemmNC = 256;  // columns of one packed B block

// A packed into panels: panel p holds rows [p·MR, p·MR + MR) as depth × MR values (rows past m
// are zeros).
struct PackedA {
  size_t rows = 0, depth = 0;
  std::vector<float> data;
  // Packs a(i, l) = a[i·row_stride + l·col_stride] for i < m, l < k, times `scale`.
  static PackedA pack(const float* a, size_t m, size_t k, size_t row_stride, size_t col_stride,
                      float scale = 1.0f);
  // The same into `out` (reusing its storage).
  static void pack_into(PackedA& out, const float* a, size_t m, size_t k, size_t row_stride,
                        size_t col_stride, float scale = 1.0f);
  size_t panels() const { return (rows + kGemmMR - 1) / kGemmMR; }
  const float* panel(size_t p) const { return data.data() + p * depth * kGemmMR; }
};

// Produces packed blocks of B (depth × n): pack(k0, kc, n0, nc, dst) writes columns
// [n0, n0 + nc) of rows [k0, k0 + kc) as panels of NR columns, dst[(j / NR)·kc·NR + l·NR + j % NR]
// for j < nc rounded up to NR (the padding columns zero). dst has room for NR more floats, which
// a packer may use as scratch. Called concurrently from the pool.
class BPacker {
 public:
  virtual ~BPacker() = default;
  virtual void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const = 0;
  // The block already packed (a PackedB), or nullptr: gemm() then packs it into scratch.
  virtual const float* packed_block(size_t /*k0*/, size_t /*n0*/) const { return nullptr; }
  // Where B can be read in place, unpacked: b(k0 + l, n0 + j) = base[offsets[l] + j] for
  // l < kc and j < nc, and reading up to kGemmNR − 1 floats past any row's last column is
  // allowed (the values are not used). nullptr where it cannot: gemm() then packs.
  struct Rows {
    const float* base = nullptr;
    const size_t* offsets = nullptr;
  };
  virtual Rows rows_in_place(size_t /*k0*/, size_t /*n0*/) const { return {}; }
};

// B as a strided matrix: b(l, j) = b[l·row_stride + j·col_stride].
class MatrixBPacker final : public BPacker {
 public:
  MatrixBPacker(const float* b, size_t row_stride, size_t col_stride)
      : b_(b), row_stride_(row_stride), col_stride_(col_stride) {}
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override;

 private:
  const float* b_;
  size_t row_stride_, col_stride_;
};

// B as `depth` rows of `n` contiguous floats, row_stride apart (row_stride >= n: a convolution's
// planes, a runtime matmul operand), read in place by the tiles that can (no packing), except
// the block holding the last row's last partial panel, whose reads past the row would leave the
// buffer (it is packed).
class RowsBPacker final : public BPacker {
 public:
  RowsBPacker(const float* b, size_t depth, size_t n, size_t row_stride);
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override;
  Rows rows_in_place(size_t k0, size_t n0) const override;

 private:
  const float* b_;
  size_t depth_, n_, row_stride_;
  std::array<size_t, kGemmKC> offsets_;  // l·row_stride: every block's rows from its first
};

// B packed once, every block as gemm() packs it (a constant weight: its products read the packed
// blocks instead of packing them at each call).
class PackedB final : public BPacker {
 public:
  // Packs the depth × n matrix that `source` produces.
  PackedB(const BPacker& source, size_t depth, size_t n);
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override;
  const float* packed_block(size_t k0, size_t n0) const override;

 private:
  size_t n_blocks_;
  std::vector<size_t> offsets_;  // per (k block, n block), row-major: where it starts in data_
  std::vector<float> data_;
};

// Where the product goes: c(i, j) = c[i·ldc + j]. With `accumulate`, the product is added to
// what c holds; otherwise c = product + row_bias[i] + col_bias[j] (each when set). Then
// `epilogue`.
struct GemmOutput {
  float* c = nullptr;
  size_t ldc = 0;
  const float* row_bias = nullptr;
  const float* col_bias = nullptr;
  bool accumulate = false;
  const Epilogue* epilogue = nullptr;
};

// C = A·B for A m × depth (packed), B depth × n. `pool` may be null (the calling thread only).
void gemm(const PackedA& a, const BPacker& b, size_t n, const GemmOutput& out, ThreadPool* pool);

// y[i·ldy + j] = Σ_l a[i·lda + l]·B(l, j) for i < m (a few rows: a decode step) with B a weight
// packed once (`b`, depth × n): each task streams a run of B's column panels once, every block of
// depth in order, the panel's 32 sums in registers; float32 products and sums. `pool` may be
// null.
void packed_rows_product(const float* a, size_t m, size_t lda, const PackedB& b, size_t depth,
                         size_t n, float* y, size_t ldy, ThreadPool* pool);

}  // namespace cppnn::cpu
