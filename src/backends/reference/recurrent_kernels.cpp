// Reference kernels for the recurrent ops (webnn-spec.md §2 rows 53, 54, 61, 62): gru, gruCell,
// lstm and lstmCell through the shared algorithm of recurrent_steps.h, all arithmetic in double:
// operands are read once per dispatch into double buffers, the hidden and cell states are carried
// between steps in double, dot products summed in order, activations one element at a time, and
// every output element is rounded once to the operand type.
#include <cstdint>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/recurrent_steps.h"

namespace cppnn::ref {
namespace {

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

// dot(a[0:n], b[0:n]) summed in order.
double dot(const double* a, const double* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// The reference arithmetic over double copies of x [steps, B, I], W [D, G, I], b [D, G] and
// R [D, G, H]: dot products summed in order, activations element by element.
struct ScalarMath {
  const double *x, *w, *b, *r;
  size_t batch, input_size, hidden, gates;
  void input(size_t d, size_t t, size_t bi, double* out) const {
    const double* xt = x + (t * batch + bi) * input_size;
    for (size_t k = 0; k < gates; ++k)
      out[k] = dot(w + (d * gates + k) * input_size, xt, input_size) + b[d * gates + k];
  }
  void recurrent(size_t d, size_t row0, size_t rows, const double* v, double* out) const {
    for (size_t j = 0; j < rows; ++j) out[j] = dot(r + (d * gates + row0 + j) * hidden, v, hidden);
  }
  static void activate(RecurrentAct act, double* v, size_t n) {
    for (size_t i = 0; i < n; ++i) v[i] = activate_one(act, v[i]);
  }
  template <class F>
  static void directions(size_t dirs, F&& fn) {
    for (size_t d = 0; d < dirs; ++d) fn(d);
  }
};

// Writes the states into the output operands, rounded to T.
template <class T>
struct Outputs {
  std::span<std::byte* const> slots;
  OperandId h, c, seq;
  size_t dirs, size;  // size: B·H
  void step(size_t t, size_t d, const double* hs) {
    store<T>(slots, seq, (t * dirs + d) * size, hs, size);
  }
  void state(size_t d, const double* hs, const double* cs) {
    store<T>(slots, h, d * size, hs, size);
    if (cs) store<T>(slots, c, d * size, cs, size);
  }
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
  const RecurrentData in{rbias.data(), h0.data()};
  ScalarMath math{x.data(), w.data(), bias.data(), rw.data(), B, I, H, G};
  Outputs<T> out{slots, p.out, kNoOperand, p.seq, p.dirs, B * H};
  gru_steps(p, in, math, out);
}

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
  RecurrentData in{rbias.data(), h0.data()};
  in.c0 = c0.data();
  in.peephole = peep.data();
  in.has_peephole = p.peephole.valid();
  ScalarMath math{x.data(), w.data(), bias.data(), rw.data(), B, I, H, G};
  Outputs<T> out{slots, p.out_h, p.out_c, p.seq, p.dirs, B * H};
  lstm_steps(p, in, math, out);
}

// A kernel running run<T> for the input's float type.
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

struct LstmRunner {
  template <class T>
  static void run(const LstmPlan& p, std::span<std::byte* const> slots) {
    run_lstm<T>(p, slots);
  }
};

}  // namespace

// gru (row 53): outputs the final state [D,B,H] and, with returnSequence, every state
// [steps,D,B,H] (recurrent_steps.h).
Kernel compile_gru(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kGru>&) {
  return typed_kernel(kc, op, gru_plan(kc.graph, op), GruRunner{});
}

// gruCell (row 54): one gru step on [B,I] with hiddenState [B,H]; output [B,H].
Kernel compile_gruCell(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kGruCell>&) {
  return typed_kernel(kc, op, gru_plan(kc.graph, op), GruRunner{});
}

// lstm (row 61): outputs hidden and cell [D,B,H] and, with returnSequence, every hidden state
// (recurrent_steps.h).
Kernel compile_lstm(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kLstm>&) {
  return typed_kernel(kc, op, lstm_plan(kc.graph, op), LstmRunner{});
}

// lstmCell (row 62): one lstm step on [B,I] with hiddenState and cellState [B,H]; outputs the
// new hidden and cell states [B,H].
Kernel compile_lstmCell(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kLstmCell>&) {
  return typed_kernel(kc, op, lstm_plan(kc.graph, op), LstmRunner{});
}

}  // namespace cppnn::ref
