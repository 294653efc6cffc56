// Decompositions of the recurrent ops (webnn-spec.md §2 rows 53, 54, 61, 62 and the GRU/LSTM
// emulation notes), written with MLGraphBuilder calls on the rewritten graph (see
// src/passes/decompose.h). gru and lstm are unrolled step by step (slice/reshape/concat) around
// the same cell arithmetic as gruCell and lstmCell; each direction's weights are prepared once and
// shared by its steps. A gate block's pre-activation W·x + R·h + b + rb is one matmul of
// concat(x, h, 1, 1) with the stacked weights, so it accumulates like the reference kernel
// (src/backends/reference/recurrent_kernels.cpp) and rounds once. float16 is computed in float32.
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using Act = MLRecurrentNetworkActivation;

// One recurrent activation (MLRecurrentNetworkActivation) through its builder op.
MLOperand activate(MLGraphBuilder& b, Act a, const MLOperand& x) {
  switch (a) {
    case Act::kRelu:
      return b.relu(x);
    case Act::kSigmoid:
      return b.sigmoid(x);
    case Act::kTanh:
      return b.tanh(x);
  }
  return x;
}

// Input i widened to float32 (float16 is computed in float32), or null when absent.
MLOperand wide_input(DecomposeContext& c, size_t i) {
  return c.has_input(i) ? widen(c.builder(), c.input(i)) : MLOperand{};
}

// The non-null operands of `list`.
std::vector<MLOperand> present(std::initializer_list<MLOperand> list) {
  std::vector<MLOperand> out;
  for (const MLOperand& o : list)
    if (!o.is_null()) out.push_back(o);
  return out;
}

// concat(parts, axis), or the only part.
MLOperand join(MLGraphBuilder& b, const std::vector<MLOperand>& parts, uint32_t axis) {
  return parts.size() == 1 ? parts[0] : b.concat(parts, axis);
}

// Rows [start, start + count) of a matrix [G, K].
MLOperand rows(MLGraphBuilder& b, const MLOperand& m, uint32_t start, uint32_t count) {
  const std::vector<uint32_t> shape = m.shape();
  return count == shape[0] ? m : b.slice(m, {start, 0}, {count, shape[1]});
}

// Elements [start, start + count) of a vector [G].
MLOperand segment(MLGraphBuilder& b, const MLOperand& v, uint32_t start, uint32_t count) {
  return count == v.shape()[0] ? v : b.slice(v, {start}, {count});
}

// Columns [start, start + count) of a matrix [B, N].
MLOperand columns(MLGraphBuilder& b, const MLOperand& m, uint32_t start, uint32_t count) {
  const std::vector<uint32_t> shape = m.shape();
  return count == shape[1] ? m : b.slice(m, {0, start}, {shape[0], count});
}

// A gate block's pre-activation concat(xs..., ones) · weight: `weight` [K, count] stacks the
// gate rows of the matrices (W, R) and the biases (b, rb) transposed, `ones` [B, #biases] is
// null without biases.
struct Affine {
  MLOperand weight;
  MLOperand ones;
};

// The Affine of gate rows [start, start + count) of `mats` ([G, K_i] each) and `biases` ([G]).
Affine affine(MLGraphBuilder& b, const std::vector<MLOperand>& mats,
              const std::vector<MLOperand>& biases, uint32_t start, uint32_t count,
              uint32_t batch) {
  std::vector<MLOperand> parts;
  for (const MLOperand& m : mats) parts.push_back(rows(b, m, start, count));
  for (const MLOperand& v : biases)
    parts.push_back(b.reshape(segment(b, v, start, count), {count, 1}));
  Affine a{b.transpose(join(b, parts, 1)), MLOperand{}};
  if (!biases.empty())
    a.ones = filled(b, {mats[0].dataType(), {batch, static_cast<uint32_t>(biases.size())}}, 1.0);
  return a;
}

// Applies an Affine to the operands [B, K_i] matching its matrices.
MLOperand apply(MLGraphBuilder& b, const Affine& a, std::vector<MLOperand> xs) {
  if (!a.ones.is_null()) xs.push_back(a.ones);
  return b.matmul(join(b, xs, 1), a.weight);
}

// gru/gruCell options that the step needs.
struct GruConfig {
  uint32_t hidden = 0;
  bool reset_after = true;
  bool z_first = true;  // layout zrn (else rzn); n is the third block in both
  Act f = Act::kSigmoid, g = Act::kTanh;
};

// The GruConfig of MLGruOptions or MLGruCellOptions (absent activations: sigmoid, tanh).
template <class Options>
GruConfig gru_config(const Options& o, uint32_t hidden) {
  const std::vector<Act> acts = o.activations.value_or({Act::kSigmoid, Act::kTanh});
  return {hidden, o.resetAfter, o.layout == MLGruWeightLayout::kZrn, acts.at(0), acts.at(1)};
}

// One direction's gru weights, prepared once for all of its steps.
struct GruWeights {
  GruConfig cfg;
  Affine zr;      // z and r: W·x + R·h + b + rb (rows 0..2H in either layout)
  Affine nx, nh;  // resetAfter: Wn·x + bn and Rn·h + rbn
  Affine n;       // otherwise: Wn·x + Rn·(r⊙h) + bn + rbn
};

// Prepares W [3H, I], R [3H, H] and the optional biases [3H] for gru steps on batch `batch`.
GruWeights gru_weights(MLGraphBuilder& b, const GruConfig& cfg, const MLOperand& w,
                       const MLOperand& r, const MLOperand& bias, const MLOperand& rbias,
                       uint32_t batch) {
  const uint32_t h = cfg.hidden;
  GruWeights gw{cfg, affine(b, {w, r}, present({bias, rbias}), 0, 2 * h, batch), {}, {}, {}};
  if (cfg.reset_after) {
    gw.nx = affine(b, {w}, present({bias}), 2 * h, h, batch);
    gw.nh = affine(b, {r}, present({rbias}), 2 * h, h, batch);
  } else {
    gw.n = affine(b, {w, r}, present({bias, rbias}), 2 * h, h, batch);
  }
  return gw;
}

// One gru step (spec emulation): z, r = f(W·x + R·h + b + rb); n = g(Wn·x + bn + r⊙(Rn·h +
// rbn)) with resetAfter, else g(Wn·x + Rn·(r⊙h) + bn + rbn); h' = z⊙h + (1−z)⊙n.
MLOperand gru_step(MLGraphBuilder& b, const GruWeights& gw, const MLOperand& x,
                   const MLOperand& h) {
  const uint32_t hs = gw.cfg.hidden;
  const MLOperand zr = activate(b, gw.cfg.f, apply(b, gw.zr, {x, h}));
  const MLOperand z = columns(b, zr, gw.cfg.z_first ? 0 : hs, hs);
  const MLOperand r = columns(b, zr, gw.cfg.z_first ? hs : 0, hs);
  const MLOperand n_pre = gw.cfg.reset_after
                              ? b.add(apply(b, gw.nx, {x}), b.mul(r, apply(b, gw.nh, {h})))
                              : apply(b, gw.n, {x, b.mul(r, h)});
  const MLOperand n = activate(b, gw.cfg.g, n_pre);
  const MLOperand one_minus_z = b.sub(scalar_like(b, z, 1.0), z);
  return b.add(b.mul(z, h), b.mul(one_minus_z, n));
}

// lstm/lstmCell options that the step needs.
struct LstmConfig {
  uint32_t hidden = 0;
  uint32_t i = 0, o = 1, f = 2, g = 3;  // gate blocks (layout iofg, else ifgo)
  Act fa = Act::kSigmoid, ga = Act::kTanh, ha = Act::kTanh;
};

// The LstmConfig of MLLstmOptions or MLLstmCellOptions (absent: sigmoid, tanh, tanh).
template <class Options>
LstmConfig lstm_config(const Options& o, uint32_t hidden) {
  const std::vector<Act> acts = o.activations.value_or({Act::kSigmoid, Act::kTanh, Act::kTanh});
  LstmConfig cfg{hidden, 0, 1, 2, 3, acts.at(0), acts.at(1), acts.at(2)};
  if (o.layout == MLLstmWeightLayout::kIfgo) {
    cfg.f = 1;
    cfg.g = 2;
    cfg.o = 3;
  }
  return cfg;
}

// One direction's lstm weights, prepared once for all of its steps.
struct LstmWeights {
  LstmConfig cfg;
  Affine gates;                      // W·x + R·h + b + rb for all four gates
  MLOperand peep_i, peep_o, peep_f;  // [H] each (peephole order i, o, f), null when absent
};

// Prepares W [4H, I], R [4H, H], the optional biases [4H] and peephole [3H] for lstm steps.
LstmWeights lstm_weights(MLGraphBuilder& b, const LstmConfig& cfg, const MLOperand& w,
                         const MLOperand& r, const MLOperand& bias, const MLOperand& rbias,
                         const MLOperand& peephole, uint32_t batch) {
  const uint32_t h = cfg.hidden;
  LstmWeights lw{cfg, affine(b, {w, r}, present({bias, rbias}), 0, 4 * h, batch), {}, {}, {}};
  if (!peephole.is_null()) {
    lw.peep_i = segment(b, peephole, 0, h);
    lw.peep_o = segment(b, peephole, h, h);
    lw.peep_f = segment(b, peephole, 2 * h, h);
  }
  return lw;
}

// One lstm step (spec emulation): i, f, o = f(W·x + R·h + b + rb + p⊙c) with the previous cell
// state c (also for o, as the reference kernel), g = g(W·x + R·h + b + rb), c' = f⊙c + i⊙g,
// h' = o⊙h(c'). Returns {h', c'}.
std::pair<MLOperand, MLOperand> lstm_step(MLGraphBuilder& b, const LstmWeights& lw,
                                          const MLOperand& x, const MLOperand& h,
                                          const MLOperand& c) {
  const LstmConfig& cfg = lw.cfg;
  const MLOperand pre = apply(b, lw.gates, {x, h});
  // Without a peephole the term is absent (not 0·c, which is NaN for an infinite c).
  auto gate = [&](uint32_t block, const MLOperand& peep, Act act) {
    MLOperand v = columns(b, pre, block * cfg.hidden, cfg.hidden);
    if (!peep.is_null()) v = b.add(v, b.mul(peep, c));
    return activate(b, act, v);
  };
  const MLOperand i = gate(cfg.i, lw.peep_i, cfg.fa);
  const MLOperand f = gate(cfg.f, lw.peep_f, cfg.fa);
  const MLOperand g = gate(cfg.g, MLOperand{}, cfg.ga);
  const MLOperand o = gate(cfg.o, lw.peep_o, cfg.fa);
  const MLOperand c_next = b.add(b.mul(f, c), b.mul(i, g));
  return {b.mul(o, activate(b, cfg.ha, c_next)), c_next};
}

// Direction d of a network operand [D, ...]: the [...] part.
MLOperand direction_part(MLGraphBuilder& b, const MLOperand& t, uint32_t d) {
  if (t.is_null()) return t;
  const std::vector<uint32_t> shape = t.shape();
  std::vector<uint32_t> starts(shape.size(), 0), sizes = shape;
  starts[0] = d;
  sizes[0] = 1;
  const MLOperand part = shape[0] == 1 ? t : b.slice(t, starts, sizes);
  return b.reshape(part, std::vector<uint32_t>(shape.begin() + 1, shape.end()));
}

// `x` with `n` leading 1-dims.
MLOperand lift(MLGraphBuilder& b, const MLOperand& x, size_t n) {
  std::vector<uint32_t> shape(n, 1);
  const std::vector<uint32_t> s = x.shape();
  shape.insert(shape.end(), s.begin(), s.end());
  return b.reshape(x, shape);
}

// A network's shape and how it walks the steps.
struct Network {
  uint32_t steps = 0, dirs = 1, batch = 0, input_size = 0, hidden = 0;
  bool backward = false;
  bool sequence = false;
};

// The Network of gru/lstm options and params (input [steps, B, I]).
template <class Options>
Network network(const DecomposeContext& c, const Options& o, const RecurrentParams& p) {
  const std::vector<uint32_t>& in = c.input_desc(0).shape;
  return {p.steps,         o.direction == MLRecurrentNetworkDirection::kBoth ? 2u : 1u,
          in[1],           in[2],
          p.hiddenSize,    o.direction == MLRecurrentNetworkDirection::kBackward,
          o.returnSequence};
}

// The states of one network, per direction: finals[d] (the hidden state first) and, with
// returnSequence, seq[t][d] the hidden state after the step that read input[t].
struct Unrolled {
  std::vector<std::vector<MLOperand>> finals;
  std::vector<std::vector<MLOperand>> seq;
};

// Runs `step(d, x_t, states) -> states` over every direction and time step; direction
// "backward" (and the second direction of "both") walks the steps from last to first.
template <class Step>
Unrolled unroll(MLGraphBuilder& b, const Network& net, const MLOperand& x,
                std::vector<std::vector<MLOperand>> states, Step step) {
  Unrolled u;
  u.seq.assign(net.steps, std::vector<MLOperand>(net.dirs));
  std::vector<MLOperand> xs(net.steps);
  for (uint32_t t = 0; t < net.steps; ++t) {
    const MLOperand part =
        net.steps == 1 ? x : b.slice(x, {t, 0, 0}, {1, net.batch, net.input_size});
    xs[t] = b.reshape(part, {net.batch, net.input_size});
  }
  for (uint32_t d = 0; d < net.dirs; ++d) {
    const bool reverse = net.backward || d == 1;
    for (uint32_t s = 0; s < net.steps; ++s) {
      const uint32_t t = reverse ? net.steps - 1 - s : s;
      states[d] = step(d, xs[t], states[d]);
      u.seq[t][d] = states[d][0];
    }
  }
  u.finals = std::move(states);
  return u;
}

// State k of every direction stacked to [D, B, H], narrowed to `type`.
MLOperand stack_final(MLGraphBuilder& b, const Unrolled& u, size_t k, MLOperandDataType type) {
  std::vector<MLOperand> parts;
  for (const std::vector<MLOperand>& s : u.finals) parts.push_back(lift(b, s[k], 1));
  return narrow(b, join(b, parts, 0), type);
}

// The hidden sequence stacked to [steps, D, B, H], narrowed to `type`.
MLOperand stack_sequence(MLGraphBuilder& b, const Unrolled& u, MLOperandDataType type) {
  std::vector<MLOperand> steps;
  for (const std::vector<MLOperand>& at : u.seq) {
    std::vector<MLOperand> dirs;
    for (const MLOperand& h : at) dirs.push_back(lift(b, h, 2));
    steps.push_back(join(b, dirs, 1));
  }
  return narrow(b, join(b, steps, 0), type);
}

// The initial state of direction d: that part of the given [D, B, H] state, or zeros [B, H].
MLOperand initial_state(MLGraphBuilder& b, const MLOperand& given, const Network& net, uint32_t d) {
  if (!given.is_null()) return direction_part(b, given, d);
  return filled(b, {MLOperandDataType::kFloat32, {net.batch, net.hidden}}, 0.0);
}

// gru (row 53): unrolled gru steps per direction; inputs x, W, R, bias, rbias, h0.
std::vector<MLOperand> decompose_gru(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& a = c.attrs<OpType::kGru>();
  const Network net = network(c, a.options, a.params);
  const GruConfig cfg = gru_config(a.options, net.hidden);
  const MLOperand x = wide_input(c, 0), w = wide_input(c, 1), r = wide_input(c, 2);
  const MLOperand bias = wide_input(c, 3), rbias = wide_input(c, 4), h0 = wide_input(c, 5);
  std::vector<GruWeights> weights;
  std::vector<std::vector<MLOperand>> states;
  for (uint32_t d = 0; d < net.dirs; ++d) {
    weights.push_back(gru_weights(b, cfg, direction_part(b, w, d), direction_part(b, r, d),
                                  direction_part(b, bias, d), direction_part(b, rbias, d),
                                  net.batch));
    states.push_back({initial_state(b, h0, net, d)});
  }
  const Unrolled u = unroll(b, net, x, std::move(states),
                            [&](uint32_t d, const MLOperand& xt, const std::vector<MLOperand>& s) {
                              return std::vector<MLOperand>{gru_step(b, weights[d], xt, s[0])};
                            });
  const MLOperandDataType type = c.output_desc(0).dataType;
  std::vector<MLOperand> out{stack_final(b, u, 0, type)};
  if (net.sequence) out.push_back(stack_sequence(b, u, type));
  return out;
}

// gruCell (row 54): one gru step; inputs x, W, R, h, bias, rbias.
std::vector<MLOperand> decompose_gru_cell(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& a = c.attrs<OpType::kGruCell>();
  const GruConfig cfg = gru_config(a.options, a.params.hiddenSize);
  const MLOperand x = wide_input(c, 0), h = wide_input(c, 3);
  const GruWeights gw = gru_weights(b, cfg, wide_input(c, 1), wide_input(c, 2), wide_input(c, 4),
                                    wide_input(c, 5), c.input_desc(0).shape[0]);
  return {narrow(b, gru_step(b, gw, x, h), c.output_desc(0).dataType)};
}

// lstm (row 61): unrolled lstm steps per direction; inputs x, W, R, bias, rbias, peephole, h0,
// c0. Outputs the hidden and cell states [D, B, H] and, with returnSequence, every hidden state.
std::vector<MLOperand> decompose_lstm(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& a = c.attrs<OpType::kLstm>();
  const Network net = network(c, a.options, a.params);
  const LstmConfig cfg = lstm_config(a.options, net.hidden);
  const MLOperand x = wide_input(c, 0), w = wide_input(c, 1), r = wide_input(c, 2);
  const MLOperand bias = wide_input(c, 3), rbias = wide_input(c, 4), peep = wide_input(c, 5);
  const MLOperand h0 = wide_input(c, 6), c0 = wide_input(c, 7);
  std::vector<LstmWeights> weights;
  std::vector<std::vector<MLOperand>> states;
  for (uint32_t d = 0; d < net.dirs; ++d) {
    weights.push_back(lstm_weights(b, cfg, direction_part(b, w, d), direction_part(b, r, d),
                                   direction_part(b, bias, d), direction_part(b, rbias, d),
                                   direction_part(b, peep, d), net.batch));
    states.push_back({initial_state(b, h0, net, d), initial_state(b, c0, net, d)});
  }
  const Unrolled u = unroll(b, net, x, std::move(states),
                            [&](uint32_t d, const MLOperand& xt, const std::vector<MLOperand>& s) {
                              auto [h, cs] = lstm_step(b, weights[d], xt, s[0], s[1]);
                              return std::vector<MLOperand>{h, cs};
                            });
  const MLOperandDataType type = c.output_desc(0).dataType;
  std::vector<MLOperand> out{stack_final(b, u, 0, type), stack_final(b, u, 1, type)};
  if (net.sequence) out.push_back(stack_sequence(b, u, type));
  return out;
}

// lstmCell (row 62): one lstm step; inputs x, W, R, h, c, bias, rbias, peephole.
std::vector<MLOperand> decompose_lstm_cell(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& a = c.attrs<OpType::kLstmCell>();
  const LstmConfig cfg = lstm_config(a.options, a.params.hiddenSize);
  const LstmWeights lw = lstm_weights(b, cfg, wide_input(c, 1), wide_input(c, 2), wide_input(c, 5),
                                      wide_input(c, 6), wide_input(c, 7), c.input_desc(0).shape[0]);
  auto [h, cs] = lstm_step(b, lw, wide_input(c, 0), wide_input(c, 3), wide_input(c, 4));
  const MLOperandDataType type = c.output_desc(0).dataType;
  return {narrow(b, h, type), narrow(b, cs, type)};
}

}  // namespace

// gru, gruCell, lstm and lstmCell decompose into the same cell arithmetic.
void register_recurrent(DecompositionTable& t) {
  using enum OpType;
  // The arithmetic runs in float32 (float16 widened by cast); the activations are those the
  // options may name.
  const std::vector<DecompositionUse> uses{{kCast},
                                           {kSlice, dt::kF32},
                                           {kReshape, dt::kF32},
                                           {kConcat, dt::kF32},
                                           {kTranspose, dt::kF32},
                                           {kMatmul, dt::kF32},
                                           {kAdd, dt::kF32},
                                           {kSub, dt::kF32},
                                           {kMul, dt::kF32},
                                           {kRelu, dt::kF32},
                                           {kSigmoid, dt::kF32},
                                           {kTanh, dt::kF32}};
  t.add(kGru, decompose_gru, uses);
  t.add(kGruCell, decompose_gru_cell, uses);
  t.add(kLstm, decompose_lstm, uses);
  t.add(kLstmCell, decompose_lstm_cell, uses);
}

}  // namespace cppnn::passes
