// lstm, lstmCell, gru and gruCell on the cpu backend (webnn-spec.md §2 rows 61, 62, 53, 54),
// float32: the reference's algorithm and double arithmetic (reference/recurrent_steps.h, so results
// round to the same float32 values but for the order of the dot products' sums). The weights stay
// float32 and are widened in registers (the products are the reference's); the input products
// W·x + b of every step are computed up front, reading each weight row once for all steps; the
// recurrent products of a step and the input rows are split over the pool; the gate dot products
// are vector code (8 double lanes, two accumulators). Biases, initial states and peepholes are
// converted to double once at build when constant.
#include <algorithm>
#include <memory>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/reference/recurrent_steps.h"

namespace cppnn::cpu {
namespace {

// dot(a[0:n], b[0:n]) in double, a float32 row widened in registers (every product is the
// reference's: a float32 value is exact in double), 16 products at a time.
CPPNN_CPU_CLONES double dot_widened(const float* a, const double* b, size_t n) {
  simd::VD s0 = simd::VD{}, s1 = simd::VD{};
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 += simd::load_double(a + i) * simd::load(b + i);
    s1 += simd::load_double(a + i + 8) * simd::load(b + i + 8);
  }
  double tail = 0;
  for (; i < n; ++i) tail += double(a[i]) * b[i];
  return simd::sum_lanes(s0 + s1) + tail;
}

// Products per pool task at least.
constexpr size_t kTaskProducts = 32 * 1024;

// The cpu arithmetic over the float32 operands: the input products W·x + b of every step computed
// up front, a weight row read once for all steps (rows split over the pool), and the recurrent
// products R·h of a step split over the pool by rows; all in double.
struct VectorMath {
  const float *x, *w, *r;  // x [steps, B, I], W [D, G, I], R [D, G, H]
  const double* b;         // [D, G]
  size_t steps, batch, input_size, hidden, gates, dirs;
  ThreadPool* pool;
  std::vector<double>& table;  // [D, steps·B, G]: W·x + b
  std::vector<double>& xd;     // x widened

  void prepare() {
    const size_t rows = steps * batch;
    xd.assign(x, x + rows * input_size);
    table.resize(dirs * rows * gates);
    pool->parallel_ranges(dirs * gates,
                          std::max<size_t>(kTaskProducts / (rows * input_size + 1), 1),
                          [&](size_t k0, size_t k1) {
                            for (size_t k = k0; k < k1; ++k) {
                              const size_t d = k / gates, row = k % gates;
                              const float* wk = w + k * input_size;
                              for (size_t t = 0; t < rows; ++t)
                                table[(d * rows + t) * gates + row] =
                                    dot_widened(wk, xd.data() + t * input_size, input_size) + b[k];
                            }
                          });
  }
  void input(size_t d, size_t t, size_t bi, double* out) const {
    const double* src = table.data() + ((d * steps + t) * batch + bi) * gates;
    std::copy(src, src + gates, out);
  }
  void recurrent(size_t d, size_t row0, size_t rows, const double* v, double* out) const {
    const float* rd = r + (d * gates + row0) * hidden;
    pool->parallel_ranges(rows, std::max<size_t>(kTaskProducts / (hidden + 1), 1),
                          [&](size_t j0, size_t j1) {
                            for (size_t j = j0; j < j1; ++j)
                              out[j] = dot_widened(rd + j * hidden, v, hidden);
                          });
  }
  static void activate(ref::RecurrentAct act, double* v, size_t n) {
    for (size_t i = 0; i < n; ++i) v[i] = ref::activate_one(act, v[i]);
  }
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

// The operands of a recurrent op: x, W and R read as float32 where they are (constant or not),
// the biases, initial states and peepholes as double (constants converted once).
struct RecurrentOperands {
  OperandId x, w, r;
  DoubleOperand bias, rbias, h0, c0, peephole;
  size_t steps, batch, input_size, hidden, gates, dirs;
  std::shared_ptr<ThreadPool> pool;

  // Runs `steps_fn(in, math)` with the operands of this dispatch.
  template <class F>
  void run(std::span<std::byte* const> slots, F&& steps_fn) const {
    thread_local std::vector<double> scratch[5], table, xd;
    ref::RecurrentData in{rbias.read(slots, scratch[0]), h0.read(slots, scratch[1])};
    if (c0.count) in.c0 = c0.read(slots, scratch[2]);
    if (peephole.count) in.peephole = peephole.read(slots, scratch[3]);
    in.has_peephole = peephole.id.valid();
    auto floats = [&](OperandId id) { return reinterpret_cast<const float*>(slots[id.value]); };
    VectorMath math{floats(x), floats(w), floats(r),  bias.read(slots, scratch[4]),
                    steps,     batch,     input_size, hidden,
                    gates,     dirs,      pool.get(), table,
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
    return RecurrentOperands{
        p.x,
        p.w,
        p.rw,
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
