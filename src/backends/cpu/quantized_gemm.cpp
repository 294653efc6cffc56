// The quantized GEMM of the cpu backend (quantized_weights.h): y = α·A·W' + β·C for a float32 A
// [M, K] and a block-quantized weight W [N, K] read in place (quantized_rows.h), so that the
// 4-bit weights stay 4-bit in memory and a decode step reads each weight byte once.
// - One row of A (a decode step): each output is a dot product of A with a row of W, computed in
//   registers from the integers (QuantizedMatrix::dot); the output columns are split over the
//   pool.
// - Several rows (a prefill chunk): the blocked GEMM of gemm.h, with B's blocks packed by
//   dequantizing W's rows into them (QuantizedBPacker), so each weight is dequantized once per
//   call and multiplied with every row of A in the GEMM's register tile.
// Products accumulate in float32 in another order than the reference's double sum, as in every
// GEMM of the cpu backend.
#include <algorithm>
#include <memory>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/number.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/quantized_rows.h"
#include "src/backends/cpu/transpose16.h"
#include "src/backends/reference/strides.h"

#if CPPNN_CPU_X86
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

using T = MLOperandDataType;
using Dims = std::vector<uint32_t>;

// Output columns per pool task of a single-row product.
constexpr size_t kColumnsPerTask = 16;

// B = W' (depth K, N columns) packed block by block for gemm(): column j of B is row j of W.
// Sixteen rows of W are dequantized a block of depth at a time, then written down their half
// panel by 16 × 16 transpositions (AVX-512; one element at a time otherwise).
class QuantizedBPacker final : public BPacker {
 public:
  explicit QuantizedBPacker(const QuantizedMatrix& w) : w_(w) {}
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override {
    constexpr size_t H = 16;  // columns per half panel
    thread_local std::vector<float> rows;
    rows.resize(H * kc);
    const size_t padded = (nc + kGemmNR - 1) / kGemmNR * kGemmNR;
#if CPPNN_CPU_X86
    static const bool kTranspose = has_avx512();
#endif
    for (size_t j0 = 0; j0 < padded; j0 += H) {
      for (size_t j = 0; j < H; ++j) {
        if (j0 + j < nc)
          w_.dequantize(n0 + j0 + j, k0, kc, rows.data() + j * kc);
        else
          std::fill(rows.begin() + j * kc, rows.begin() + (j + 1) * kc, 0.0f);
      }
      float* half = dst + (j0 / kGemmNR) * kc * kGemmNR + j0 % kGemmNR;
      size_t l = 0;
#if CPPNN_CPU_X86
      if (kTranspose)
        for (; l + H <= kc; l += H) transpose16(rows.data() + l, kc, half + l * kGemmNR, kGemmNR);
#endif
      for (; l < kc; ++l)
        for (size_t j = 0; j < H; ++j) half[l * kGemmNR + j] = rows[j * kc + l];
    }
  }

 private:
  const QuantizedMatrix& w_;
};

// A per-call packed copy of A (per thread; grown, never shrunk).
PackedA& scratch_a() {
  thread_local PackedA a;
  return a;
}

struct QuantizedGemmKernel {
  OperandId a, c, out;
  size_t m = 0;
  QuantizedMatrix w;
  float alpha = 1, beta = 1;
  ref::Strides c_strides;
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* pa = reinterpret_cast<const float*>(slots[a.value]);
    float* py = reinterpret_cast<float*>(slots[out.value]);
    const float* pc = c.valid() ? reinterpret_cast<const float*>(slots[c.value]) : nullptr;
    const size_t n = w.n;
    if (m == 1) {
      single_row(pa, pc, py);
    } else {
      PackedA::pack_into(scratch_a(), pa, m, w.k, w.k, 1, alpha);
      GemmOutput go;
      go.c = py;
      go.ldc = n;
      go.epilogue = epilogue ? &*epilogue : nullptr;
      if (pc) {
        for (size_t i = 0; i < m; ++i)
          for (size_t j = 0; j < n; ++j)
            py[i * n + j] = beta * pc[i * c_strides[0] + j * c_strides[1]];
        go.accumulate = true;
      }
      gemm(scratch_a(), QuantizedBPacker(w), n, go, pool.get());
    }
  }

  void single_row(const float* a, const float* pc, float* y) const {
    // The calling thread's (grown, never shrunk); named through a reference so that the pool's
    // threads read this one, not their own thread_local.
    thread_local PreparedRow prepared;
    PreparedRow& row = prepared;
    w.prepare(a, row);
    const size_t tasks = (w.n + kColumnsPerTask - 1) / kColumnsPerTask;
    pool->parallel_for(tasks, [&](size_t t) {
      const size_t first = t * kColumnsPerTask, last = std::min(w.n, first + kColumnsPerTask);
      w.dot_rows(first, last - first, row, y + first);
      for (size_t j = first; j < last; ++j) {
        float v = alpha * y[j];
        if (pc) v += beta * pc[j * c_strides[1]];
        y[j] = v;
      }
    });
    if (epilogue) epilogue->apply(y, w.n);
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
  QuantizedMatrix& w = kern.w;
  w.type = cc.desc(q).dataType;
  w.n = qs[0];
  w.block = qs[2];
  w.k = size_t{qs[1]} * qs[2];
  kern.m = cc.desc(kern.a).shape[0];
  if ((w.type == T::kInt4 || w.type == T::kUint4) && w.k % 2 != 0)
    throw OperationError("cpu backend: a 4-bit weight with an odd row length (" +
                         std::to_string(w.k) + ") in gemm [" + o.label + "]");
  w.q = reinterpret_cast<const uint8_t*>(cc.constant(q));
  w.scale = reinterpret_cast<const float*>(cc.constant(scale));
  w.offset = offset.valid() ? reinterpret_cast<const float*>(cc.constant(offset)) : nullptr;
  kern.alpha = static_cast<float>(MLNumber(o.alpha).cast_to_double(T::kFloat32));
  kern.beta = static_cast<float>(MLNumber(o.beta).cast_to_double(T::kFloat32));
  if (kern.c.valid())
    kern.c_strides =
        ref::broadcast_strides(cc.desc(kern.c).shape, Dims{uint32_t(kern.m), uint32_t(w.n)});
  kern.epilogue = Epilogue::from(op.activations);
  kern.pool = cc.pool;
  const bool applies = kern.epilogue.has_value();  // else the plan runs them after
  return FastKernel{std::move(kern), applies};
}

}  // namespace cppnn::cpu
