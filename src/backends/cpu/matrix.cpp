// matmul and gemm on the cpu backend (webnn-spec.md §2 rows 52 and 63), float32, through the
// blocked GEMM (gemm.h): the left operand is packed per call, the right one block by block as the
// product goes; a constant operand (a weight) is packed once at build. matmul broadcasts its batch
// dimensions; gemm's C is broadcast to [M, N] and scaled by β into the output first, α scales the
// packed A, and the product is added on top. Fused activations run in the GEMM's epilogue.
#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "cppnn/number.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/half_weights.h"
#include "src/backends/cpu/row_math.h"
#include "src/backends/reference/strides.h"
#include "src/ops/shape_utils.h"

namespace cppnn::cpu {
namespace {

const float* floats(std::span<std::byte* const> slots, OperandId id) {
  return reinterpret_cast<const float*>(slots[id.value]);
}

// Rows of A up to which a matmul multiplies B in place (streaming its rows) instead of packing
// it: packing costs as much as the product itself when A has a row or two (a decode step's
// attention against the cache).
constexpr size_t kStreamingRows = 4;

// Columns [j0, j1) of y[m, n] = a[m, k] * b[k, n], streaming those columns of b's rows once
// (float32 products and sums, k in order).
CPPNN_CPU_CLONES void streaming_matmul(const float* a, const float* b, float* y, size_t m, size_t k,
                                       size_t n, size_t j0, size_t j1) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = j0; j < j1; ++j) y[i * n + j] = 0.0f;
  for (size_t kk = 0; kk < k; ++kk) {
    const float* row = b + kk * n;
    for (size_t i = 0; i < m; ++i) {
      const float av = a[i * k + kk];
      float* yr = y + i * n;
      for (size_t j = j0; j < j1; ++j) yr[j] += av * row[j];
    }
  }
}

// Columns per task of the streaming product at least.
constexpr size_t kStreamingColumns = 64;

// A per-call packed copy of a runtime left operand (per thread; grown, never shrunk).
PackedA& scratch_a() {
  thread_local PackedA a;
  return a;
}

// A constant B (float32, or float16: half_weights.h) as the product reads it: depth × n with
// element strides (row_stride, col_stride).
struct ConstantB {
  OperandId id;
  const std::byte* data = nullptr;  // null: B is not a constant
  bool half = false;
  size_t row_stride = 0, col_stride = 0;

  PackedWeights::Key key(size_t depth, size_t n) const {
    return {data, depth, n, row_stride, col_stride, half};
  }
  // B packed, shared with the backend's other plans (cpu/packed_weights.h); its mapped pages are
  // released.
  std::shared_ptr<const PackedB> pack(const CompileContext& cc, size_t depth, size_t n) const {
    auto make = [&] {
      if (half)
        return std::make_shared<const PackedB>(
            HalfMatrixBPacker(reinterpret_cast<const uint16_t*>(data), row_stride, col_stride),
            depth, n);
      return std::make_shared<const PackedB>(
          MatrixBPacker(reinterpret_cast<const float*>(data), row_stride, col_stride), depth, n);
    };
    std::shared_ptr<const PackedB> packed =
        cc.packed_weights ? cc.packed_weights->get_or_pack(key(depth, n), make) : make();
    cc.release_constant(id);
    return packed;
  }
  // The packed form another plan of the backend holds (a prefill chunk's, for a decode step), or
  // null; its mapped pages are released when there is one.
  std::shared_ptr<const PackedB> shared(const CompileContext& cc, size_t depth, size_t n) const {
    if (!data || !cc.packed_weights) return nullptr;
    std::shared_ptr<const PackedB> packed = cc.packed_weights->find(key(depth, n));
    if (packed) cc.release_constant(id);
    return packed;
  }
};

// matmul over broadcast batches.
struct MatmulKernel {
  OperandId a, b, out;
  size_t m, k, n;
  // Per output batch, the element offsets of its a, b and out matrices (broadcast), fixed at build.
  std::vector<std::array<int64_t, 3>> offsets;
  std::shared_ptr<const PackedA> constant_a;  // a packed at build when it is one constant matrix
  std::shared_ptr<const PackedB> constant_b;  // b likewise
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* pa = floats(slots, a);
    const float* pb = floats(slots, b);
    float* py = reinterpret_cast<float*>(slots[out.value]);
    if (m <= kStreamingRows && !constant_a && !constant_b) {
      // Tasks of (batch, column chunk) over the pool.
      // Column chunks only as far as the batches leave threads idle (chunks read b's rows in
      // shorter runs).
      const size_t wanted = (size_t{pool->size()} * 2 + offsets.size() - 1) / offsets.size();
      const size_t chunks =
          pool->size() == 1
              ? 1
              : std::clamp<size_t>(wanted, 1, std::max<size_t>(n / kStreamingColumns, 1));
      const size_t task_work = std::max<size_t>(m * k * (n / chunks), 1);  // products per task
      pool->parallel_ranges(offsets.size() * chunks, std::max<size_t>(32768 / task_work, 1),
                            [&](size_t t0, size_t t1) {
                              const SubnormalsAsZero daz;
                              for (size_t t = t0; t < t1; ++t) {
                                const std::array<int64_t, 3>& o = offsets[t / chunks];
                                const size_t c = t % chunks, j0 = n * c / chunks,
                                             j1 = n * (c + 1) / chunks;
                                streaming_matmul(pa + o[0], pb + o[1], py + o[2], m, k, n, j0, j1);
                                if (epilogue)
                                  for (size_t i = 0; i < m; ++i)
                                    epilogue->apply(py + o[2] + i * n + j0, j1 - j0);
                              }
                            });
      return;
    }
    // One product per batch; with at least as many batches as threads (attention's heads), the
    // batches are split over the pool and each product runs on its thread alone (small products
    // split over the pool spend their time waiting on each other). When the batches do not
    // divide among the threads (3 key/value heads on 2 threads), each batch's rows are cut into
    // as many groups as make the tasks divide evenly (a runtime left operand only).
    const size_t threads = pool->size(), batches = offsets.size();
    const bool by_batch = threads > 1 && batches >= threads;
    const size_t row_groups =
        by_batch && !constant_a && batches % threads != 0
            ? std::min<size_t>(threads / std::gcd(batches, threads), (m + kGemmMR - 1) / kGemmMR)
            : 1;
    auto product = [&](const std::array<int64_t, 3>& o, size_t r0, size_t r1, ThreadPool* pool) {
      const PackedA* packed = constant_a.get();
      if (!packed) {
        PackedA::pack_into(scratch_a(), pa + o[0] + r0 * k, r1 - r0, k, k, 1);
        packed = &scratch_a();
      }
      GemmOutput go;
      go.c = py + o[2] + r0 * n;
      go.ldc = n;
      go.epilogue = epilogue ? &*epilogue : nullptr;
      if (constant_b)
        gemm(*packed, *constant_b, n, go, pool);
      else
        gemm(*packed, RowsBPacker(pb + o[1], k, n, n), n, go, pool);
    };
    if (by_batch) {
      pool->parallel_for(batches * row_groups, [&](size_t t) {
        const size_t g = t % row_groups;
        // Row groups in whole register panels.
        const size_t panels = (m + kGemmMR - 1) / kGemmMR;
        const size_t r0 = std::min(m, panels * g / row_groups * kGemmMR);
        const size_t r1 = std::min(m, panels * (g + 1) / row_groups * kGemmMR);
        if (r0 < r1) product(offsets[t / row_groups], r0, r1, nullptr);
      });
    } else {
      for (const std::array<int64_t, 3>& o : offsets) product(o, 0, m, pool.get());
    }
  }
};

// gemm: y = α·A'·B' + β·C.
struct GemmKernel {
  OperandId a, b, c, out;
  size_t m, k, n;
  bool a_t, b_t;
  float alpha, beta;
  ref::Strides c_strides;
  std::shared_ptr<const PackedA> constant_a;
  std::shared_ptr<const PackedB> constant_b;
  const uint16_t* half_b = nullptr;       // a float16 B (bTranspose) read in place by few_rows
  std::shared_ptr<const PackedB> rows_b;  // B packed by another plan, read by few_rows
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;

  // At most kStreamingRows rows of A: each output a dot product of A's row (copied when A is
  // transposed) and B's column (a row of B when bTranspose: a classifier's weight), or B's rows
  // streamed once (streaming_matmul); then α, β·C and the epilogue. No packing.
  void few_rows(const float* pa, const float* pb, const float* pc, float* py) const {
    thread_local std::vector<float> rows_a;
    const float* ar = pa;
    if (a_t) {
      rows_a.resize(m * k);
      for (size_t i = 0; i < m; ++i)
        for (size_t l = 0; l < k; ++l) rows_a[i * k + l] = pa[l * m + i];
      ar = rows_a.data();
    }
    if (rows_b) {
      packed_rows_product(ar, m, k, *rows_b, k, n, py, n, pool.get());
    } else if (b_t) {
      pool->parallel_ranges(n, std::max<size_t>(16384 / (m * k + 1), 1), [&](size_t j0, size_t j1) {
        const SubnormalsAsZero daz;
        for (size_t i = 0; i < m; ++i) {
          if (half_b)
            half_dots(ar + i * k, half_b + j0 * k, k, j1 - j0, k, py + i * n + j0);
          else
            rows::dots(ar + i * k, pb + j0 * k, k, j1 - j0, k, py + i * n + j0);
        }
      });
    } else {
      const size_t chunks = pool->size() == 1 ? 1 : std::max<size_t>(n / kStreamingColumns, 1);
      pool->parallel_ranges(chunks, 1, [&](size_t c0, size_t c1) {
        const SubnormalsAsZero daz;
        streaming_matmul(ar, pb, py, m, k, n, n * c0 / chunks, n * c1 / chunks);
      });
    }
    for (size_t i = 0; i < m; ++i) {
      float* row = py + i * n;
      for (size_t j = 0; j < n; ++j) {
        row[j] *= alpha;
        if (pc) row[j] += beta * pc[i * c_strides[0] + j * c_strides[1]];
      }
      if (epilogue) epilogue->apply(row, n);
    }
  }

  void operator()(std::span<std::byte* const> slots) const {
    const float* pa = floats(slots, a);
    const float* pb = floats(slots, b);
    float* py = reinterpret_cast<float*>(slots[out.value]);
    if (m <= kStreamingRows && !constant_a && !constant_b)
      return few_rows(pa, pb, c.valid() ? floats(slots, c) : nullptr, py);
    const PackedA* packed = constant_a.get();
    if (!packed) {
      PackedA::pack_into(scratch_a(), pa, m, k, a_t ? 1 : k, a_t ? m : 1, alpha);
      packed = &scratch_a();
    }
    GemmOutput go;
    go.c = py;
    go.ldc = n;
    go.epilogue = epilogue ? &*epilogue : nullptr;
    if (c.valid()) {
      const float* pc = floats(slots, c);
      if (beta == 1.0f && c_strides[0] == 0 && c_strides[1] == 1) {
        go.col_bias = pc;  // one value per column (a bias), added by the GEMM's tiles
      } else if (beta == 1.0f && c_strides[0] == 1 && c_strides[1] == 0) {
        go.row_bias = pc;
      } else {
        for (size_t i = 0; i < m; ++i)
          for (size_t j = 0; j < n; ++j)
            py[i * n + j] = beta * pc[i * c_strides[0] + j * c_strides[1]];
        go.accumulate = true;
      }
    }
    if (constant_b)
      gemm(*packed, *constant_b, n, go, pool.get());
    else if (b_t)
      gemm(*packed, MatrixBPacker(pb, 1, k), n, go, pool.get());
    else
      gemm(*packed, RowsBPacker(pb, k, n, n), n, go, pool.get());
  }
};

std::optional<FastKernel> compile_matmul(const CompileContext& cc, const Operation& op) {
  const OperandId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
  const Dims& as = cc.desc(a).shape;
  const Dims& bs = cc.desc(b).shape;
  const Dims& os = cc.desc(out).shape;
  if (as.size() < 2 || bs.size() < 2 || os.size() < 2) return std::nullopt;
  MatmulKernel kern;
  kern.a = a;
  kern.b = b;
  kern.out = out;
  kern.m = as[as.size() - 2];
  kern.k = as.back();
  kern.n = bs.back();
  const Dims out_batch(os.begin(), os.end() - 2);
  std::array<ref::Strides, 3> strides = {
      ref::broadcast_strides(Dims(as.begin(), as.end() - 2), out_batch),
      ref::broadcast_strides(Dims(bs.begin(), bs.end() - 2), out_batch),
      ref::contiguous_strides(out_batch)};
  for (int64_t& s : strides[0]) s *= int64_t(kern.m * kern.k);
  for (int64_t& s : strides[1]) s *= int64_t(kern.k * kern.n);
  for (int64_t& s : strides[2]) s *= int64_t(kern.m * kern.n);
  ref::for_each_offset(out_batch, strides,
                       [&](const std::array<int64_t, 3>& o) { kern.offsets.push_back(o); });
  if (const std::byte* ca = cc.constant(a); ca && element_count(as) == kern.m * kern.k) {
    kern.constant_a = std::make_shared<const PackedA>(
        PackedA::pack(reinterpret_cast<const float*>(ca), kern.m, kern.k, kern.k, 1));
    cc.release_constant(a);
  }
  // A constant B of one matrix is packed (always for float16, half_weights.h), except that a
  // product of few rows reads a float32 one in place unless another plan has packed it.
  const ConstantB cb{b, cc.constant(b), has_half_weight(cc.graph, op), kern.n, 1};
  if (cb.data && element_count(bs) == kern.k * kern.n) {
    if (cb.half || kern.m > kStreamingRows || kern.constant_a)
      kern.constant_b = cb.pack(cc, kern.k, kern.n);
    else
      kern.constant_b = cb.shared(cc, kern.k, kern.n);
  }
  kern.epilogue = Epilogue::from(op.activations);
  kern.pool = cc.pool;
  const bool applies = kern.epilogue.has_value();
  return FastKernel{std::move(kern), applies};
}

std::optional<FastKernel> compile_gemm(const CompileContext& cc, const Operation& op) {
  const auto& o = attrs_of<OpType::kGemm>(op.attrs).options;
  GemmKernel kern;
  kern.a = op.inputs[0];
  kern.b = op.inputs[1];
  kern.c = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  kern.out = op.outputs[0];
  const Dims& as = cc.desc(kern.a).shape;
  const Dims& bs = cc.desc(kern.b).shape;
  kern.a_t = o.aTranspose;
  kern.b_t = o.bTranspose;
  kern.m = kern.a_t ? as[1] : as[0];
  kern.k = kern.a_t ? as[0] : as[1];
  kern.n = kern.b_t ? bs[0] : bs[1];
  // α and β cast to the input type first (§3.6; out-of-range values become ±Infinity).
  kern.alpha = static_cast<float>(MLNumber(o.alpha).cast_to_double(MLOperandDataType::kFloat32));
  kern.beta = static_cast<float>(MLNumber(o.beta).cast_to_double(MLOperandDataType::kFloat32));
  if (kern.c.valid())
    kern.c_strides =
        ref::broadcast_strides(cc.desc(kern.c).shape, Dims{uint32_t(kern.m), uint32_t(kern.n)});
  if (const std::byte* ca = cc.constant(kern.a)) {
    kern.constant_a = std::make_shared<const PackedA>(
        PackedA::pack(reinterpret_cast<const float*>(ca), kern.m, kern.k, kern.a_t ? 1 : kern.k,
                      kern.a_t ? kern.m : 1, kern.alpha));
    cc.release_constant(kern.a);
  }
  // A constant B: packed when A has more than kStreamingRows rows (or is a constant); else
  // few_rows reads it: as packed by another plan of the backend (the prefill chunk's, for a
  // decode step), or in place (a float16 one only with bTranspose; else it is packed).
  const ConstantB cb{kern.b, cc.constant(kern.b), has_half_weight(cc.graph, op),
                     kern.b_t ? 1 : kern.n, kern.b_t ? kern.k : 1};
  if (cb.data) {
    if (kern.m > kStreamingRows || kern.constant_a || (cb.half && !kern.b_t))
      kern.constant_b = cb.pack(cc, kern.k, kern.n);
    else
      kern.rows_b = cb.shared(cc, kern.k, kern.n);
    if (cb.half && !kern.constant_b && !kern.rows_b)
      kern.half_b = reinterpret_cast<const uint16_t*>(cb.data);
  }
  kern.epilogue = Epilogue::from(op.activations);
  kern.pool = cc.pool;
  const bool applies = kern.epilogue.has_value();
  return FastKernel{std::move(kern), applies};
}

}  // namespace

std::optional<FastKernel> compile_fast_matrix(const CompileContext& cc, const Operation& op) {
  const bool half = has_half_weight(cc.graph, op);  // B float16 (half_weights.h)
  for (size_t i = 0; i < op.inputs.size(); ++i)
    if (op.inputs[i].valid() && !(half && i == 1) &&
        cc.desc(op.inputs[i]).dataType != MLOperandDataType::kFloat32)
      return std::nullopt;
  return op.type == OpType::kGemm ? compile_gemm(cc, op) : compile_matmul(cc, op);
}

}  // namespace cppnn::cpu
