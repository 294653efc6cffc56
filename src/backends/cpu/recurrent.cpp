// lstm, lstmCell, gru and gruCell on the cpu backend (webnn-spec.md §2 rows 61, 62, 53, 54),
// float32: the reference's algorithm and double arithmetic (reference/recurrent_steps.h, so results
// round to the same float32 values but for the order of the dot products' sums), with constant
// weights, biases and peepholes converted to double once at build instead of at every dispatch,
// and the gate dot products in vector code (8 double lanes, two accumulators).
#include <memory>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/reference/recurrent_steps.h"

namespace cppnn::cpu {
namespace {

// dot(a[0:n], b[0:n]) in double, 16 products at a time.
CPPNN_CPU_CLONES double dot_double(const double* a, const double* b, size_t n) {
  simd::VD s0 = simd::VD{}, s1 = simd::VD{};
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 += simd::load(a + i) * simd::load(b + i);
    s1 += simd::load(a + i + 8) * simd::load(b + i + 8);
  }
  double tail = 0;
  for (; i < n; ++i) tail += a[i] * b[i];
  return simd::sum_lanes(s0 + s1) + tail;
}

struct VectorMath {
  static double dot(const double* a, const double* b, size_t n) { return dot_double(a, b, n); }
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

// The operands every recurrent op reads (lstm: c0 and peephole too).
struct RecurrentOperands {
  DoubleOperand x, w, rw, bias, rbias, h0, c0, peephole;

  ref::RecurrentData read(std::span<std::byte* const> slots,
                          std::vector<double> (&scratch)[8]) const {
    ref::RecurrentData in{x.read(slots, scratch[0]),     w.read(slots, scratch[1]),
                          rw.read(slots, scratch[2]),    bias.read(slots, scratch[3]),
                          rbias.read(slots, scratch[4]), h0.read(slots, scratch[5])};
    if (c0.count) in.c0 = c0.read(slots, scratch[6]);
    if (peephole.count) in.peephole = peephole.read(slots, scratch[7]);
    in.has_peephole = peephole.id.valid();
    return in;
  }
};

struct LstmKernel {
  ref::LstmPlan plan;
  RecurrentOperands operands;
  void operator()(std::span<std::byte* const> slots) const {
    thread_local std::vector<double> scratch[8];
    const ref::RecurrentData in = operands.read(slots, scratch);
    VectorMath math;
    FloatOutputs out{slots, plan.out_h, plan.out_c, plan.seq, plan.dirs, plan.batch * plan.hidden};
    ref::lstm_steps(plan, in, math, out);
  }
};

struct GruKernel {
  ref::GruPlan plan;
  RecurrentOperands operands;
  void operator()(std::span<std::byte* const> slots) const {
    thread_local std::vector<double> scratch[8];
    const ref::RecurrentData in = operands.read(slots, scratch);
    VectorMath math;
    FloatOutputs out{slots, plan.out, kNoOperand, plan.seq, plan.dirs, plan.batch * plan.hidden};
    ref::gru_steps(plan, in, math, out);
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_recurrent(const CompileContext& cc, const Operation& op) {
  for (OperandId id : op.inputs)
    if (id.valid() && cc.desc(id).dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const bool lstm = op.type == OpType::kLstm || op.type == OpType::kLstmCell;
  if (lstm) {
    const ref::LstmPlan p = ref::lstm_plan(cc.graph, op);
    const size_t B = p.batch, I = p.input_size, H = p.hidden, G = 4 * H, D = p.dirs;
    RecurrentOperands o{
        DoubleOperand::of(cc, p.x, p.steps * B * I), DoubleOperand::of(cc, p.w, D * G * I),
        DoubleOperand::of(cc, p.rw, D * G * H),      DoubleOperand::of(cc, p.bias, D * G),
        DoubleOperand::of(cc, p.rbias, D * G),       DoubleOperand::of(cc, p.h0, D * B * H),
        DoubleOperand::of(cc, p.c0, D * B * H),      DoubleOperand::of(cc, p.peephole, D * 3 * H)};
    return FastKernel{LstmKernel{p, std::move(o)}, false};
  }
  const ref::GruPlan p = ref::gru_plan(cc.graph, op);
  const size_t B = p.batch, I = p.input_size, H = p.hidden, G = 3 * H, D = p.dirs;
  RecurrentOperands o{DoubleOperand::of(cc, p.x, p.steps * B * I),
                      DoubleOperand::of(cc, p.w, D * G * I),
                      DoubleOperand::of(cc, p.rw, D * G * H),
                      DoubleOperand::of(cc, p.bias, D * G),
                      DoubleOperand::of(cc, p.rbias, D * G),
                      DoubleOperand::of(cc, p.h0, D * B * H),
                      {},
                      {}};
  return FastKernel{GruKernel{p, std::move(o)}, false};
}

}  // namespace cppnn::cpu
