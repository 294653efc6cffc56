// Float16 weights read in place by the cpu backend's matrix products. A graph with float16
// weights and float32 activations (a language model converted with `--weights float16`, a
// float16 ONNX export's weights) multiplies by
//
//   gemm(a, cast(w, float32), ...)   or   matmul(a, cast(w, float32))
//
// with w a float16 constant. Run op by op, every dispatch would widen each weight to float32 (on
// the reference kernels) before the product. This rewrite, run by the cpu backend's compile()
// after the shared passes, gives such a gemm or matmul (its B one matrix) the float16 constant
// itself as B and drops the casts no other operation reads: the product widens each weight in
// registers (one-row products, the decode step, read the float16 rows in place: half the bytes
// of float32) or packs it to float32 once at build (products of several rows). The result is the
// cpu plan's own graph: a product with a float16 B and float32 A is not a WebNN operation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cppnn/graph_model.h"
#include "src/backends/cpu/gemm.h"

namespace cppnn::cpu {

// The rewrite above; `changed` tells whether any product was rewritten.
Graph read_half_weights_in_products(const Graph& graph, bool* changed);

// True for a gemm or matmul the rewrite produced (float32 A, float16 B).
bool has_half_weight(const Graph& graph, const Operation& op);

// B as a strided float16 matrix, widened to float32 as it is packed: b(l, j) =
// half(b[l·row_stride + j·col_stride]).
class HalfMatrixBPacker final : public BPacker {
 public:
  HalfMatrixBPacker(const uint16_t* b, size_t row_stride, size_t col_stride)
      : b_(b), row_stride_(row_stride), col_stride_(col_stride) {}
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override;

 private:
  const uint16_t* b_;
  size_t row_stride_, col_stride_;
};

// out[r] = Σ_l a[l]·half(b[r·ldb + l]) for r < count: one row of A against `count` float16 rows
// (a one-row product with a transposed weight), the halves widened in registers (F16C).
void half_dots(const float* a, const uint16_t* b, size_t ldb, size_t count, size_t n, float* out);

}  // namespace cppnn::cpu
