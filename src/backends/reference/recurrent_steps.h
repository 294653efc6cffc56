// The recurrent ops' algorithm (webnn-spec.md §2 rows 53, 54, 61, 62 and the numeric notes after
// the table), shared by the reference kernels and the cpu backend: gru, gruCell, lstm and lstmCell
// in double over operands already read as double arrays. A cell op is the network op with
// steps = 1 and one forward direction. Gate pre-activations sum W·x + b + R·h + rb (absent biases
// and initial states are 0), computed for every gate row of a step into one array, then activated
// a gate at a time. Direction "backward" (and the second direction of "both") walks the steps from
// last to first; the returned sequence is indexed by time step. A Math policy supplies the input
// and recurrent products and the activations (below), so a backend chooses how they run; an Output
// policy receives each state as it is produced.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "cppnn/graph_model.h"

namespace cppnn::ref {

using RecurrentAct = MLRecurrentNetworkActivation;

// One activation of double x, as the reference computes it.
inline double activate_one(RecurrentAct a, double x) {
  switch (a) {
    case RecurrentAct::kRelu:
      return x < 0 ? 0.0 : x;  // NaN stays NaN
    case RecurrentAct::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case RecurrentAct::kTanh:
      return std::tanh(x);
  }
  return x;
}

// What gru and gruCell share: sizes, options and operand ids. Shapes as in the gru row with
// steps = 1 and D = 1 for gruCell (whose operands have the same memory layout without the
// leading 1).
struct GruPlan {
  size_t steps = 1, dirs = 1, batch = 0, input_size = 0, hidden = 0;
  bool backward = false, reset_after = true;
  size_t z = 0, r = 0, n = 0;  // gate row offsets in units of hidden (layout)
  RecurrentAct f = RecurrentAct::kSigmoid, g = RecurrentAct::kTanh;
  OperandId x, w, rw, bias, rbias, h0, out, seq;
};

// What lstm and lstmCell share (lstmCell: steps = 1, D = 1).
struct LstmPlan {
  size_t steps = 1, dirs = 1, batch = 0, input_size = 0, hidden = 0;
  bool backward = false;
  size_t i = 0, o = 0, f = 0, g = 0;  // gate row offsets in units of hidden (layout)
  RecurrentAct fa = RecurrentAct::kSigmoid, ga = RecurrentAct::kTanh, ha = RecurrentAct::kTanh;
  OperandId x, w, rw, bias, rbias, peephole, h0, c0, out_h, out_c, seq;
};

// The plan of a gru or gruCell op, and of an lstm or lstmCell op.
GruPlan gru_plan(const Graph& graph, const Operation& op);
LstmPlan lstm_plan(const Graph& graph, const Operation& op);

// The operands the algorithm reads itself, as double arrays per direction first (absent ones all
// zeros); the input, the weights and the bias are the Math policy's (see below).
struct RecurrentData {
  const double *rbias, *h0;
  const double *c0 = nullptr, *peephole = nullptr;  // lstm
  bool has_peephole = false;
};

// A Math policy provides, for direction d:
//   input(d, t, bi, out):       out[k] = W_k·x[t, bi] + b_k for every gate row k (G values)
//   recurrent(d, row0, rows, v, out): out[j] = R_{row0 + j}·v for j < rows (v: H values)
//   activate(act, values, n):   in place
// each in double (the reference sums the dot products in order), and
//   directions(dirs, fn):       fn(d) for every direction, in any order or at once (a direction
//                               touches only its own states and outputs).

// gru: per direction and step, z/r = f(W·x + b + R·h + rb); n = g(Wn·x + bn + r⊙(Rn·h + rbn))
// with resetAfter, else g(Wn·x + bn + Rn·(r⊙h) + rbn); h' = z⊙h + (1−z)⊙n. out.state(d, h)
// receives the final state of direction d and, when the plan returns the sequence,
// out.step(t, d, h) every state ([B·H] values each).
template <class Math, class Output>
void gru_steps(const GruPlan& p, const RecurrentData& in, Math& math, Output& out) {
  const size_t B = p.batch, H = p.hidden, G = 3 * H;
  math.directions(p.dirs, [&](size_t d) {
    std::vector<double> h(B * H), next(B * H), pre(G), rec(H), rh(H);
    const double* rb = in.rbias + d * G;
    h.assign(in.h0 + d * B * H, in.h0 + (d + 1) * B * H);
    const bool reverse = p.backward || d == 1;
    for (size_t s = 0; s < p.steps; ++s) {
      const size_t t = reverse ? p.steps - 1 - s : s;
      for (size_t bi = 0; bi < B; ++bi) {
        const double* ht = h.data() + bi * H;
        math.input(d, t, bi, pre.data());
        double* zg = pre.data() + p.z * H;
        double* rg = pre.data() + p.r * H;
        double* ng = pre.data() + p.n * H;
        for (double* gate : {zg, rg}) {
          const size_t row0 = size_t(gate - pre.data());
          math.recurrent(d, row0, H, ht, rec.data());
          for (size_t j = 0; j < H; ++j) gate[j] = (gate[j] + rec[j]) + rb[row0 + j];
        }
        math.activate(p.f, zg, H);
        math.activate(p.f, rg, H);
        const double* rbn = rb + p.n * H;
        if (p.reset_after) {
          math.recurrent(d, p.n * H, H, ht, rec.data());
          for (size_t j = 0; j < H; ++j) ng[j] += rg[j] * (rec[j] + rbn[j]);
        } else {
          for (size_t j = 0; j < H; ++j) rh[j] = rg[j] * ht[j];
          math.recurrent(d, p.n * H, H, rh.data(), rec.data());
          for (size_t j = 0; j < H; ++j) ng[j] += rec[j] + rbn[j];
        }
        math.activate(p.g, ng, H);
        for (size_t j = 0; j < H; ++j) next[bi * H + j] = zg[j] * ht[j] + (1 - zg[j]) * ng[j];
      }
      h.swap(next);
      if (p.seq.valid()) out.step(t, d, h.data());
    }
    out.state(d, h.data(), nullptr);
  });
}

// lstm: per direction and step, i/f/o = f(W·x + b + R·h + rb + p⊙c) with the previous cell state
// c and peephole order i, o, f; g = g(W·x + b + R·h + rb); c' = f⊙c + i⊙g; h' = o⊙h(c').
// out.state(d, h, c) receives the final states, out.step(t, d, h) every hidden state.
template <class Math, class Output>
void lstm_steps(const LstmPlan& p, const RecurrentData& in, Math& math, Output& out) {
  const size_t B = p.batch, H = p.hidden, G = 4 * H;
  math.directions(p.dirs, [&](size_t d) {
    std::vector<double> h(B * H), c(B * H), next_h(B * H), next_c(B * H), pre(G), rec(G);
    const double* rb = in.rbias + d * G;
    const double* pi = in.peephole ? in.peephole + d * 3 * H : nullptr;  // order i, o, f
    h.assign(in.h0 + d * B * H, in.h0 + (d + 1) * B * H);
    c.assign(in.c0 + d * B * H, in.c0 + (d + 1) * B * H);
    const bool reverse = p.backward || d == 1;
    for (size_t s = 0; s < p.steps; ++s) {
      const size_t t = reverse ? p.steps - 1 - s : s;
      for (size_t bi = 0; bi < B; ++bi) {
        const double* ht = h.data() + bi * H;
        const double* ct = c.data() + bi * H;
        math.input(d, t, bi, pre.data());
        math.recurrent(d, 0, G, ht, rec.data());
        for (size_t k = 0; k < G; ++k) pre[k] = (pre[k] + rec[k]) + rb[k];
        double* ig = pre.data() + p.i * H;
        double* fg = pre.data() + p.f * H;
        double* gg = pre.data() + p.g * H;
        double* og = pre.data() + p.o * H;
        // Without peepholes the term is absent (not 0·c, which is NaN for an infinite c).
        if (in.has_peephole)
          for (size_t j = 0; j < H; ++j) {
            ig[j] += pi[j] * ct[j];
            fg[j] += pi[2 * H + j] * ct[j];
            og[j] += pi[H + j] * ct[j];
          }
        math.activate(p.fa, ig, H);
        math.activate(p.fa, fg, H);
        math.activate(p.ga, gg, H);
        math.activate(p.fa, og, H);
        double* cn = next_c.data() + bi * H;
        for (size_t j = 0; j < H; ++j) cn[j] = fg[j] * ct[j] + ig[j] * gg[j];
        double* hn = next_h.data() + bi * H;
        for (size_t j = 0; j < H; ++j) hn[j] = cn[j];
        math.activate(p.ha, hn, H);
        for (size_t j = 0; j < H; ++j) hn[j] *= og[j];
      }
      h.swap(next_h);
      c.swap(next_c);
      if (p.seq.valid()) out.step(t, d, h.data());
    }
    out.state(d, h.data(), c.data());
  });
}

}  // namespace cppnn::ref
