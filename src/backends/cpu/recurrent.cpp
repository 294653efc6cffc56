// lstm, lstmCell, gru and gruCell on the cpu backend (webnn-spec.md §2 rows 61, 62, 53, 54),
// float32: the reference's algorithm and double arithmetic (reference/recurrent_steps.h), with the
// same products summed in the same order, so the results round to the reference's but in rare
// ties (fused multiply-adds, and vector double exp and tanh a few double ULP from the C
// library's). The weights stay float32, transposed once so that the gate rows are columns
// summed 16 at a time in vector code and widened to double in registers. The input products W·x + b
// of every step are computed up front (each weight read once per eight steps); the gate columns are
// split over the pool in whole blocks. Biases, initial states and peepholes are converted to double
// once at build when constant.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/vector_math.h"
#include "src/backends/reference/recurrent_steps.h"

namespace cppnn::cpu {
namespace {

// The activation of v[0:n] in place, a vector of doubles at a time (vector_math.h's double
// functions).
CPPNN_CPU_CLONES void activate_doubles(ref::RecurrentAct act, double* v, size_t n) {
  auto apply = [act](auto x) CPPNN_SIMD_LAMBDA {
    switch (act) {
      case ref::RecurrentAct::kSigmoid:
        return vmath::sigmoid_double(x);
      case ref::RecurrentAct::kTanh:
        return vmath::tanh_double(x);
      default:  // relu: x for x >= 0 and NaN, else 0
        return simd::sel(x < 0.0, x - x, x);
    }
  };
  size_t i = 0;
  for (; i + simd::kDoubles <= n; i += simd::kDoubles) simd::store(v + i, apply(simd::load(v + i)));
  for (; i < n; ++i) v[i] = apply(v[i]);
}

// Up to kVectors vectors at once.
constexpr size_t kVectors = 8;

// Rows of a chunk: the rows of the weight read side by side (each one sequentially).
constexpr size_t kChunkRows = 32;

// outs[t][k] += Σ_i rows[i·ld + k]·vs[t][i] for t < count (at most kVectors), k in [k0, k1) and
// i in [0, m), in double with the float32 rows widened: each sum taken in order of i, as the
// reference's dot product sums (the products and sums are the reference's, but for fused
// multiply-adds rounding once where the reference rounds twice). Chunks of
// kChunkRows rows are swept across the columns (sequential reads of each row), eight vectors of
// columns at a time for one vector (four for several) with a row's values reused for every
// vector.
template <size_t count>
CPPNN_SIMD_INLINE void accumulate_columns_of(const float* rows, size_t ld, size_t m,
                                             const double* const* vs, double* const* outs,
                                             size_t k0, size_t k1) {
  for (size_t i0 = 0; i0 < m; i0 += kChunkRows) {
    const size_t i1 = std::min(m, i0 + kChunkRows);
    size_t k = k0;
    // Q vectors of columns: Q independent sums (each sum's additions stay in order, so a sum
    // waits on the previous addition's latency; eight of them for one vector, four for up to four
    // and two for more, keep the FMA units busy while a weight row's loads serve every vector).
    constexpr size_t D = simd::kDoubles;
    constexpr size_t Q = count == 1 ? 8 : (count <= 4 ? 4 : 2);
    for (; k + Q * D <= k1; k += Q * D) {
      simd::VD acc[kVectors][Q];
      for (size_t t = 0; t < count; ++t)
        for (size_t q = 0; q < Q; ++q) acc[t][q] = simd::load(outs[t] + k + D * q);
      for (size_t i = i0; i < i1; ++i) {
        simd::VD w[Q];
        for (size_t q = 0; q < Q; ++q) w[q] = simd::load_double(rows + i * ld + k + D * q);
        for (size_t t = 0; t < count; ++t)
          for (size_t q = 0; q < Q; ++q) acc[t][q] += w[q] * vs[t][i];
      }
      for (size_t t = 0; t < count; ++t)
        for (size_t q = 0; q < Q; ++q) simd::store(outs[t] + k + D * q, acc[t][q]);
    }
    for (; k + D <= k1; k += D) {
      simd::VD acc[kVectors];
      for (size_t t = 0; t < count; ++t) acc[t] = simd::load(outs[t] + k);
      for (size_t i = i0; i < i1; ++i) {
        const simd::VD w = simd::load_double(rows + i * ld + k);
        for (size_t t = 0; t < count; ++t) acc[t] += w * vs[t][i];
      }
      for (size_t t = 0; t < count; ++t) simd::store(outs[t] + k, acc[t]);
    }
    for (; k < k1; ++k)
      for (size_t t = 0; t < count; ++t) {
        double acc = outs[t][k];
        for (size_t i = i0; i < i1; ++i) acc += double(rows[i * ld + k]) * vs[t][i];
        outs[t][k] = acc;
      }
  }
}

// accumulate_columns_of for a count of vectors known at run time (1 to kVectors), each count's
// instance inlined into this clone.
CPPNN_CPU_CLONES void accumulate_columns(const float* rows, size_t ld, size_t m,
                                         const double* const* vs, size_t count, double* const* outs,
                                         size_t k0, size_t k1) {
  [&]<size_t... C>(std::index_sequence<C...>) CPPNN_SIMD_LAMBDA {
    (void)((count == C + 1 &&
            (accumulate_columns_of<C + 1>(rows, ld, m, vs, outs, k0, k1), true)) ||
           ...);
  }
  (std::make_index_sequence<kVectors>{});
}

// Columns of a block: the widest group of column sums (Q·kDoubles for one vector), so that a
// pool task's range holds whole groups and no column falls to the scalar loop.
constexpr size_t kColumnBlock = 64;

// fn(k0, k1) over [0, n) split into ranges of whole blocks over the pool, each of at least one
// block and enough for 32K products when a column sums `depth` (a small network's step is over
// before a task split would pay).
template <class F>
void for_column_ranges(ThreadPool* pool, size_t n, size_t depth, F&& fn) {
  const size_t blocks = (n + kColumnBlock - 1) / kColumnBlock;
  const size_t grain = std::max<size_t>(1, 32768 / (std::max<size_t>(depth, 1) * kColumnBlock));
  pool->parallel_ranges(blocks, grain, [&](size_t b0, size_t b1) {
    fn(b0 * kColumnBlock, std::min(n, b1 * kColumnBlock));
  });
}

// A [D, rows, cols] float32 weight transposed to [D, cols, rows] (gate rows become columns).
std::vector<float> transposed(const float* w, size_t dirs, size_t rows, size_t cols) {
  std::vector<float> t(dirs * rows * cols);
  for (size_t d = 0; d < dirs; ++d)
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) t[(d * cols + c) * rows + r] = w[(d * rows + r) * cols + c];
  return t;
}

// The cpu arithmetic over the weights transposed (gate rows as columns): the input products
// W·x + b of every step computed up front (each weight read once for every kVectors steps), the
// recurrent products R·h of a step as the same column sums; gate columns split over the pool.
struct VectorMath {
  const float *x, *wt, *rt;  // x [steps, B, I], Wᵀ [D, I, G], Rᵀ [D, H, G]
  const double* b;           // [D, G]
  size_t steps, batch, input_size, hidden, gates, dirs;
  ThreadPool* pool;
  std::vector<double>& table;  // [D, steps·B, G]: W·x + b
  std::vector<double>& xd;     // x widened

  void prepare() {
    const size_t rows = steps * batch;
    xd.assign(x, x + rows * input_size);
    table.assign(dirs * rows * gates, 0.0);
    for (size_t d = 0; d < dirs; ++d)
      for (size_t t0 = 0; t0 < rows; t0 += kVectors) {
        const size_t count = std::min(kVectors, rows - t0);
        const double* vs[kVectors];
        double* outs[kVectors];
        for (size_t t = 0; t < count; ++t) {
          vs[t] = xd.data() + (t0 + t) * input_size;
          outs[t] = table.data() + (d * rows + t0 + t) * gates;
        }
        for_column_ranges(pool, gates, input_size * count, [&](size_t k0, size_t k1) {
          accumulate_columns(wt + d * input_size * gates, gates, input_size, vs, count, outs, k0,
                             k1);
        });
        for (size_t t = 0; t < count; ++t)
          for (size_t k = 0; k < gates; ++k) outs[t][k] += b[d * gates + k];
      }
  }
  void input(size_t d, size_t t, size_t bi, double* out) const {
    const double* src = table.data() + ((d * steps + t) * batch + bi) * gates;
    std::copy(src, src + gates, out);
  }
  void recurrent(size_t d, size_t row0, size_t rows, const double* v, double* out) const {
    std::fill(out, out + rows, 0.0);
    double* outs[1] = {out - row0};
    const double* const* vs = &v;
    if (concurrent) {  // this direction's own thread
      accumulate_columns(rt + d * hidden * gates, gates, hidden, vs, 1, outs, row0, row0 + rows);
      return;
    }
    for_column_ranges(pool, rows, hidden, [&](size_t j0, size_t j1) {
      accumulate_columns(rt + d * hidden * gates, gates, hidden, vs, 1, outs, row0 + j0, row0 + j1);
    });
  }
  static void activate(ref::RecurrentAct act, double* v, size_t n) { activate_doubles(act, v, n); }
  // Both directions of a bidirectional net at once, one per thread, when the pool has two: no
  // synchronisation at every step (each step's product split over the threads waits on them).
  template <class F>
  void directions(size_t dirs, F&& fn) {
    if (dirs < 2 || pool->size() < 2) {
      for (size_t d = 0; d < dirs; ++d) fn(d);
      return;
    }
    concurrent = true;
    pool->parallel_for(dirs, [&](size_t d) { fn(d); });
    concurrent = false;
  }
  bool concurrent = false;  // directions() runs the directions on their own threads
};

// An operand read as double: a constant converted once at build, or a runtime one at each
// dispatch (absent: zeros).
struct DoubleOperand {
  OperandId id;
  size_t count = 0;
  std::shared_ptr<const std::vector<double>> constant;

  static DoubleOperand of(const CompileContext& cc, OperandId id, size_t count) {
    DoubleOperand d{id, count, nullptr};
    if (!id.valid()) {
      d.constant = std::make_shared<const std::vector<double>>(count, 0.0);
    } else if (const std::byte* bytes = cc.constant(id)) {
      const float* f = reinterpret_cast<const float*>(bytes);
      d.constant = std::make_shared<const std::vector<double>>(f, f + count);
    }
    return d;
  }
  // The values (into `scratch` for a runtime operand).
  const double* read(std::span<std::byte* const> slots, std::vector<double>& scratch) const {
    if (constant) return constant->data();
    const float* f = reinterpret_cast<const float*>(slots[id.value]);
    scratch.assign(f, f + count);
    return scratch.data();
  }
};

// Writes the states into the float32 output operands, rounded once.
struct FloatOutputs {
  std::span<std::byte* const> slots;
  OperandId h, c, seq;
  size_t dirs, size;  // size: B·H
  static void put(float* dst, const double* src, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  }
  void step(size_t t, size_t d, const double* hs) {
    put(reinterpret_cast<float*>(slots[seq.value]) + (t * dirs + d) * size, hs, size);
  }
  void state(size_t d, const double* hs, const double* cs) {
    put(reinterpret_cast<float*>(slots[h.value]) + d * size, hs, size);
    if (cs) put(reinterpret_cast<float*>(slots[c.value]) + d * size, cs, size);
  }
};

// The operands of a recurrent op: x read as float32 where it is, W and R transposed (constants
// once), the biases, initial states and peepholes as double (constants converted once).
struct RecurrentOperands {
  OperandId x, w, r;
  // Wᵀ and Rᵀ transposed once when the weights are constants (else at each dispatch).
  std::shared_ptr<const std::vector<float>> wt, rt;
  DoubleOperand bias, rbias, h0, c0, peephole;
  size_t steps, batch, input_size, hidden, gates, dirs;
  std::shared_ptr<ThreadPool> pool;

  // Runs `steps_fn(in, math)` with the operands of this dispatch.
  template <class F>
  void run(std::span<std::byte* const> slots, F&& steps_fn) const {
    thread_local std::vector<double> scratch[5], table, xd;
    thread_local std::vector<float> wt_scratch, rt_scratch;
    ref::RecurrentData in{rbias.read(slots, scratch[0]), h0.read(slots, scratch[1])};
    if (c0.count) in.c0 = c0.read(slots, scratch[2]);
    if (peephole.count) in.peephole = peephole.read(slots, scratch[3]);
    in.has_peephole = peephole.id.valid();
    auto floats = [&](OperandId id) { return reinterpret_cast<const float*>(slots[id.value]); };
    const float* wt_data = wt ? wt->data() : nullptr;
    const float* rt_data = rt ? rt->data() : nullptr;
    if (!wt_data) {
      wt_scratch = transposed(floats(w), dirs, gates, input_size);
      wt_data = wt_scratch.data();
    }
    if (!rt_data) {
      rt_scratch = transposed(floats(r), dirs, gates, hidden);
      rt_data = rt_scratch.data();
    }
    VectorMath math{floats(x), wt_data, rt_data,    bias.read(slots, scratch[4]),
                    steps,     batch,   input_size, hidden,
                    gates,     dirs,    pool.get(), table,
                    xd};
    math.prepare();
    steps_fn(in, math);
  }
};

struct LstmKernel {
  ref::LstmPlan plan;
  RecurrentOperands operands;
  void operator()(std::span<std::byte* const> slots) const {
    operands.run(slots, [&](const ref::RecurrentData& in, VectorMath& math) {
      FloatOutputs out{slots,    plan.out_h, plan.out_c,
                       plan.seq, plan.dirs,  plan.batch * plan.hidden};
      ref::lstm_steps(plan, in, math, out);
    });
  }
};

struct GruKernel {
  ref::GruPlan plan;
  RecurrentOperands operands;
  void operator()(std::span<std::byte* const> slots) const {
    operands.run(slots, [&](const ref::RecurrentData& in, VectorMath& math) {
      FloatOutputs out{slots, plan.out, kNoOperand, plan.seq, plan.dirs, plan.batch * plan.hidden};
      ref::gru_steps(plan, in, math, out);
    });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_recurrent(const CompileContext& cc, const Operation& op) {
  for (OperandId id : op.inputs)
    if (id.valid() && cc.desc(id).dataType != MLOperandDataType::kFloat32) return std::nullopt;
  auto operands = [&](const auto& p, size_t gates, OperandId c0, OperandId peephole) {
    const size_t B = p.batch, H = p.hidden, D = p.dirs;
    auto transposed_constant = [&](OperandId id, size_t cols) {
      const std::byte* bytes = cc.constant(id);
      return bytes ? std::make_shared<const std::vector<float>>(
                         transposed(reinterpret_cast<const float*>(bytes), D, gates, cols))
                   : nullptr;
    };
    return RecurrentOperands{
        p.x,
        p.w,
        p.rw,
        transposed_constant(p.w, p.input_size),
        transposed_constant(p.rw, H),
        DoubleOperand::of(cc, p.bias, D * gates),
        DoubleOperand::of(cc, p.rbias, D * gates),
        DoubleOperand::of(cc, p.h0, D * B * H),
        c0.valid() || gates == 4 * H ? DoubleOperand::of(cc, c0, D * B * H) : DoubleOperand{},
        gates == 4 * H ? DoubleOperand::of(cc, peephole, D * 3 * H) : DoubleOperand{},
        p.steps,
        B,
        p.input_size,
        H,
        gates,
        D,
        cc.pool};
  };
  if (op.type == OpType::kLstm || op.type == OpType::kLstmCell) {
    const ref::LstmPlan p = ref::lstm_plan(cc.graph, op);
    return FastKernel{LstmKernel{p, operands(p, 4 * p.hidden, p.c0, p.peephole)}, false};
  }
  const ref::GruPlan p = ref::gru_plan(cc.graph, op);
  return FastKernel{GruKernel{p, operands(p, 3 * p.hidden, kNoOperand, kNoOperand)}, false};
}

}  // namespace cppnn::cpu
