// Reference kernels for the recurrent ops (webnn-spec.md §2 rows 53, 54, 61, 62 and the numeric
// notes after the table): gru, gruCell, lstm and lstmCell. A cell op is the network op with
// steps = 1 and one forward direction. All arithmetic is in double: operands are read once per
// dispatch into double buffers, the hidden and cell states are carried between steps in double,
// and every output element is rounded once to the operand type. Gate pre-activations sum
// W·x + b + R·h + rb (absent biases and initial states are 0). Direction "backward" (and the
// second direction of "both") walks the steps from last to first; the returned sequence is
// indexed by time step, so sequence[t] is the state after the step that read input[t].
#include <cmath>
#include <cstdint>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

using Act = MLRecurrentNetworkActivation;

double activate(Act a, double x) {
  switch (a) {
    case Act::kRelu:
      return x < 0 ? 0.0 : x;  // NaN stays NaN
    case Act::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Act::kTanh:
      return std::tanh(x);
  }
  return x;
}

// The operand at position i of op.inputs, or kNoOperand when absent.
OperandId input_at(const Operation& op, size_t i) {
  return i < op.inputs.size() ? op.inputs[i] : kNoOperand;
}
OperandId output_at(const Operation& op, size_t i) {
  return i < op.outputs.size() ? op.outputs[i] : kNoOperand;
}

// Reads `count` elements of operand `id` as double; zeros when the operand is absent.
template <class T>
std::vector<double> load(std::span<std::byte* const> slots, OperandId id, size_t count) {
  std::vector<double> v(count, 0.0);
  if (!id.valid()) return v;
  const T* p = data_of<const T>(slots, id);
  for (size_t i = 0; i < count; ++i) v[i] = to_double(p[i]);
  return v;
}

// Rounds `count` doubles starting at `src` into operand `id` at element offset `offset`.
template <class T>
void store(std::span<std::byte* const> slots, OperandId id, size_t offset, const double* src,
           size_t count) {
  T* p = data_of<T>(slots, id) + offset;
  for (size_t i = 0; i < count; ++i) p[i] = from_double<T>(src[i]);
}

// dot(a[0:n], b[0:n]) accumulated in double.
double dot(const double* a, const double* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// What gru and gruCell share: sizes, options and operand ids. Shapes as in the gru row with
// steps = 1 and D = 1 for gruCell (whose operands have the same memory layout without the
// leading 1).
struct GruPlan {
  size_t steps = 1, dirs = 1, batch = 0, input_size = 0, hidden = 0;
  bool backward = false, reset_after = true;
  size_t z = 0, r = 0, n = 0;  // gate row offsets in units of hidden (layout)
  Act f = Act::kSigmoid, g = Act::kTanh;
  OperandId x, w, rw, bias, rbias, h0, out, seq;
};

template <class T>
void run_gru(const GruPlan& p, std::span<std::byte* const> slots) {
  const size_t B = p.batch, I = p.input_size, H = p.hidden, G = 3 * H;
  const std::vector<double> x = load<T>(slots, p.x, p.steps * B * I);
  const std::vector<double> w = load<T>(slots, p.w, p.dirs * G * I);
  const std::vector<double> rw = load<T>(slots, p.rw, p.dirs * G * H);
  const std::vector<double> bias = load<T>(slots, p.bias, p.dirs * G);
  const std::vector<double> rbias = load<T>(slots, p.rbias, p.dirs * G);
  const std::vector<double> h0 = load<T>(slots, p.h0, p.dirs * B * H);
  std::vector<double> h(B * H), next(B * H), rh(H);
  for (size_t d = 0; d < p.dirs; ++d) {
    const double* W = w.data() + d * G * I;
    const double* R = rw.data() + d * G * H;
    const double* b = bias.data() + d * G;
    const double* rb = rbias.data() + d * G;
    h.assign(h0.begin() + d * B * H, h0.begin() + (d + 1) * B * H);
    const bool reverse = p.backward || d == 1;
    for (size_t s = 0; s < p.steps; ++s) {
      const size_t t = reverse ? p.steps - 1 - s : s;
      for (size_t bi = 0; bi < B; ++bi) {
        const double* xt = x.data() + (t * B + bi) * I;
        const double* ht = h.data() + bi * H;
        // r first: without resetAfter the n gate needs r ⊙ h for every unit.
        for (size_t j = 0; j < H; ++j) {
          const size_t k = p.r * H + j;
          rh[j] = activate(p.f, dot(W + k * I, xt, I) + b[k] + dot(R + k * H, ht, H) + rb[k]);
        }
        if (!p.reset_after)
          for (size_t j = 0; j < H; ++j) rh[j] *= ht[j];
        for (size_t j = 0; j < H; ++j) {
          const size_t kz = p.z * H + j, kn = p.n * H + j;
          const double z =
              activate(p.f, dot(W + kz * I, xt, I) + b[kz] + dot(R + kz * H, ht, H) + rb[kz]);
          const double nx = dot(W + kn * I, xt, I) + b[kn];
          const double nh = p.reset_after ? rh[j] * (dot(R + kn * H, ht, H) + rb[kn])
                                          : dot(R + kn * H, rh.data(), H) + rb[kn];
          const double n = activate(p.g, nx + nh);
          next[bi * H + j] = z * ht[j] + (1 - z) * n;
        }
      }
      h.swap(next);
      if (p.seq.valid()) store<T>(slots, p.seq, (t * p.dirs + d) * B * H, h.data(), B * H);
    }
    store<T>(slots, p.out, d * B * H, h.data(), B * H);
  }
}

GruPlan gru_plan(const KernelContext& kc, const Operation& op, uint32_t hidden, bool reset_after,
                 MLGruWeightLayout layout, const OptionalList<Act>& activations) {
  GruPlan p;
  p.hidden = hidden;
  p.reset_after = reset_after;
  if (layout == MLGruWeightLayout::kZrn) {
    p.z = 0, p.r = 1;
  } else {
    p.r = 0, p.z = 1;
  }
  p.n = 2;
  const std::vector<Act> acts = activations.value_or({Act::kSigmoid, Act::kTanh});
  p.f = acts.at(0);
  p.g = acts.at(1);
  const Dims& in = kc.desc(op.inputs[0]).shape;
  p.batch = in[in.size() - 2];
  p.input_size = in[in.size() - 1];
  p.x = op.inputs[0];
  p.w = op.inputs[1];
  p.rw = op.inputs[2];
  return p;
}

template <class Plan, class Run>
Kernel typed_kernel(const KernelContext& kc, const Operation& op, Plan plan, Run) {
  return visit_data_type(kc.desc(op.inputs[0]).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsFloat<T>) {
      throw OperationError("reference backend: recurrent ops take float32 or float16");
    } else {
      return [plan](std::span<std::byte* const> slots) { Run::template run<T>(plan, slots); };
    }
  });
}

struct GruRunner {
  template <class T>
  static void run(const GruPlan& p, std::span<std::byte* const> slots) {
    run_gru<T>(p, slots);
  }
};

// What lstm and lstmCell share (lstmCell: steps = 1, D = 1).
struct LstmPlan {
  size_t steps = 1, dirs = 1, batch = 0, input_size = 0, hidden = 0;
  bool backward = false;
  size_t i = 0, o = 0, f = 0, g = 0;  // gate row offsets in units of hidden (layout)
  Act fa = Act::kSigmoid, ga = Act::kTanh, ha = Act::kTanh;
  OperandId x, w, rw, bias, rbias, peephole, h0, c0, out_h, out_c, seq;
};

template <class T>
void run_lstm(const LstmPlan& p, std::span<std::byte* const> slots) {
  const size_t B = p.batch, I = p.input_size, H = p.hidden, G = 4 * H;
  const std::vector<double> x = load<T>(slots, p.x, p.steps * B * I);
  const std::vector<double> w = load<T>(slots, p.w, p.dirs * G * I);
  const std::vector<double> rw = load<T>(slots, p.rw, p.dirs * G * H);
  const std::vector<double> bias = load<T>(slots, p.bias, p.dirs * G);
  const std::vector<double> rbias = load<T>(slots, p.rbias, p.dirs * G);
  const std::vector<double> peep = load<T>(slots, p.peephole, p.dirs * 3 * H);
  const std::vector<double> h0 = load<T>(slots, p.h0, p.dirs * B * H);
  const std::vector<double> c0 = load<T>(slots, p.c0, p.dirs * B * H);
  const bool has_peephole = p.peephole.valid();
  std::vector<double> h(B * H), c(B * H), next_h(B * H), next_c(B * H);
  for (size_t d = 0; d < p.dirs; ++d) {
    const double* W = w.data() + d * G * I;
    const double* R = rw.data() + d * G * H;
    const double* b = bias.data() + d * G;
    const double* rb = rbias.data() + d * G;
    const double* pi = peep.data() + d * 3 * H;  // peephole order i, o, f
    const double* po = pi + H;
    const double* pf = pi + 2 * H;
    h.assign(h0.begin() + d * B * H, h0.begin() + (d + 1) * B * H);
    c.assign(c0.begin() + d * B * H, c0.begin() + (d + 1) * B * H);
    const bool reverse = p.backward || d == 1;
    for (size_t s = 0; s < p.steps; ++s) {
      const size_t t = reverse ? p.steps - 1 - s : s;
      for (size_t bi = 0; bi < B; ++bi) {
        const double* xt = x.data() + (t * B + bi) * I;
        const double* ht = h.data() + bi * H;
        const double* ct = c.data() + bi * H;
        for (size_t j = 0; j < H; ++j) {
          auto pre = [&](size_t gate) {
            const size_t k = gate * H + j;
            return dot(W + k * I, xt, I) + b[k] + dot(R + k * H, ht, H) + rb[k];
          };
          // Without peepholes the term is absent (not 0·c, which is NaN for an infinite c).
          auto peep_term = [&](const double* pw) { return has_peephole ? pw[j] * ct[j] : 0.0; };
          const double ig = activate(p.fa, pre(p.i) + peep_term(pi));
          const double fg = activate(p.fa, pre(p.f) + peep_term(pf));
          const double gg = activate(p.ga, pre(p.g));
          const double og = activate(p.fa, pre(p.o) + peep_term(po));
          const double cn = fg * ct[j] + ig * gg;
          next_c[bi * H + j] = cn;
          next_h[bi * H + j] = og * activate(p.ha, cn);
        }
      }
      h.swap(next_h);
      c.swap(next_c);
      if (p.seq.valid()) store<T>(slots, p.seq, (t * p.dirs + d) * B * H, h.data(), B * H);
    }
    store<T>(slots, p.out_h, d * B * H, h.data(), B * H);
    store<T>(slots, p.out_c, d * B * H, c.data(), B * H);
  }
}

struct LstmRunner {
  template <class T>
  static void run(const LstmPlan& p, std::span<std::byte* const> slots) {
    run_lstm<T>(p, slots);
  }
};

LstmPlan lstm_plan(const KernelContext& kc, const Operation& op, uint32_t hidden,
                   MLLstmWeightLayout layout, const OptionalList<Act>& activations) {
  LstmPlan p;
  p.hidden = hidden;
  if (layout == MLLstmWeightLayout::kIofg) {
    p.i = 0, p.o = 1, p.f = 2, p.g = 3;
  } else {
    p.i = 0, p.f = 1, p.g = 2, p.o = 3;
  }
  const std::vector<Act> acts = activations.value_or({Act::kSigmoid, Act::kTanh, Act::kTanh});
  p.fa = acts.at(0);
  p.ga = acts.at(1);
  p.ha = acts.at(2);
  const Dims& in = kc.desc(op.inputs[0]).shape;
  p.batch = in[in.size() - 2];
  p.input_size = in[in.size() - 1];
  p.x = op.inputs[0];
  p.w = op.inputs[1];
  p.rw = op.inputs[2];
  return p;
}

}  // namespace

// gru (row 53): per direction and step, z/r = f(W·x + b + R·h + rb); n = g(Wn·x + bn +
// r⊙(Rn·h + rbn)) with resetAfter, else g(Wn·x + bn + Rn·(r⊙h) + rbn); h' = z⊙h + (1−z)⊙n.
// Outputs the final state [D,B,H] and, with returnSequence, every state [steps,D,B,H].
Kernel compile_gru(const KernelContext& kc, const Operation& op,
                   const AttrsOf<OpType::kGru>& attrs) {
  const MLGruOptions& o = attrs.options;
  GruPlan p = gru_plan(kc, op, attrs.params.hiddenSize, o.resetAfter, o.layout, o.activations);
  p.steps = attrs.params.steps;
  p.dirs = o.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  p.backward = o.direction == MLRecurrentNetworkDirection::kBackward;
  p.bias = input_at(op, 3);
  p.rbias = input_at(op, 4);
  p.h0 = input_at(op, 5);
  p.out = op.outputs[0];
  p.seq = o.returnSequence ? output_at(op, 1) : kNoOperand;
  return typed_kernel(kc, op, p, GruRunner{});
}

// gruCell (row 54): one gru step on [B,I] with hiddenState [B,H]; output [B,H].
Kernel compile_gruCell(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kGruCell>& attrs) {
  const MLGruCellOptions& o = attrs.options;
  GruPlan p = gru_plan(kc, op, attrs.params.hiddenSize, o.resetAfter, o.layout, o.activations);
  p.h0 = op.inputs[3];
  p.bias = input_at(op, 4);
  p.rbias = input_at(op, 5);
  p.out = op.outputs[0];
  return typed_kernel(kc, op, p, GruRunner{});
}

// lstm (row 61): per direction and step, i/f/o = f(W·x + b + R·h + rb + p⊙c) with the previous
// cell state c and peephole order i,o,f; g = g(W·x + b + R·h + rb); c' = f⊙c + i⊙g;
// h' = o⊙h(c'). Outputs hidden and cell [D,B,H] and, with returnSequence, every hidden state.
Kernel compile_lstm(const KernelContext& kc, const Operation& op,
                    const AttrsOf<OpType::kLstm>& attrs) {
  const MLLstmOptions& o = attrs.options;
  LstmPlan p = lstm_plan(kc, op, attrs.params.hiddenSize, o.layout, o.activations);
  p.steps = attrs.params.steps;
  p.dirs = o.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  p.backward = o.direction == MLRecurrentNetworkDirection::kBackward;
  p.bias = input_at(op, 3);
  p.rbias = input_at(op, 4);
  p.peephole = input_at(op, 5);
  p.h0 = input_at(op, 6);
  p.c0 = input_at(op, 7);
  p.out_h = op.outputs[0];
  p.out_c = op.outputs[1];
  p.seq = o.returnSequence ? output_at(op, 2) : kNoOperand;
  return typed_kernel(kc, op, p, LstmRunner{});
}

// lstmCell (row 62): one lstm step on [B,I] with hiddenState and cellState [B,H]; outputs the
// new hidden and cell states [B,H].
Kernel compile_lstmCell(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kLstmCell>& attrs) {
  const MLLstmCellOptions& o = attrs.options;
  LstmPlan p = lstm_plan(kc, op, attrs.params.hiddenSize, o.layout, o.activations);
  p.h0 = op.inputs[3];
  p.c0 = op.inputs[4];
  p.bias = input_at(op, 5);
  p.rbias = input_at(op, 6);
  p.peephole = input_at(op, 7);
  p.out_h = op.outputs[0];
  p.out_c = op.outputs[1];
  return typed_kernel(kc, op, p, LstmRunner{});
}

}  // namespace cppnn::ref
