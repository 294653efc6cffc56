// ONNX recurrent operators of the misc family (ops_misc.def). LSTM and GRU map to WebNN lstm/gru:
// ONNX's gate orders are WebNN's "iofg" (i, o, f, c) and "zrn" (z, r, h), peepholes are i, o, f
// in both, B [D, 2·G·H] splits into bias and recurrentBias, linear_before_reset is resetAfter and
// the directions forward/reverse/bidirectional are forward/backward/both; WebNN's sequence
// [steps, D, B, H] is ONNX's Y. LSTM with peepholes and RNN are unrolled over time with gemm and
// the activation. layout 1 (batch first) is transposed in and out. sequence_lens is accepted only
// when every length is the full sequence; clip and activation_alpha/beta are not supported.
#include <algorithm>

#include "src/import/onnx/host_ops.h"
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;
using Act = MLRecurrentNetworkActivation;

// What the three ONNX recurrent operators share.
struct Rnn {
  uint32_t dirs = 1;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  bool batch_first = false;
  uint32_t steps = 0, batch = 0, hidden = 0;
  MLOperand x;                   // [steps, B, I]
  std::vector<Act> activations;  // per direction (empty: the defaults)
};

Act activation_of(const NodeContext& c, const std::string& name) {
  if (name == "Sigmoid") return Act::kSigmoid;
  if (name == "Tanh") return Act::kTanh;
  if (name == "Relu") return Act::kRelu;
  c.unsupported("activation '" + name + "' (WebNN: Relu, Sigmoid, Tanh)");
}

// Reads direction, layout, hidden_size, activations (`per_dir` of them per direction), X and
// sequence_lens; rejects clip and activation parameters.
Rnn read_rnn(NodeContext& c, size_t gates, size_t per_dir) {
  Rnn r;
  const std::string dir = c.attr_string("direction", "forward");
  if (dir == "forward") {
    r.direction = MLRecurrentNetworkDirection::kForward;
  } else if (dir == "reverse") {
    r.direction = MLRecurrentNetworkDirection::kBackward;
  } else if (dir == "bidirectional") {
    r.direction = MLRecurrentNetworkDirection::kBoth;
    r.dirs = 2;
  } else {
    c.invalid("unknown direction '" + dir + "'");
  }
  if (c.has_attr("clip")) c.unsupported("clip (WebNN recurrent ops do not clip)");
  if (!c.attr_floats("activation_alpha").empty() || !c.attr_floats("activation_beta").empty())
    c.unsupported("activation_alpha/activation_beta");
  r.batch_first = c.attr_int("layout", 0) != 0;
  const auto& xs = c.input_shape(0);
  if (xs.size() != 3) c.invalid("X must be 3-D");
  const auto& rs = c.input_shape(2);
  if (rs.size() != 3) c.invalid("R must be 3-D");
  r.hidden = static_cast<uint32_t>(c.attr_int("hidden_size", rs[2]));
  if (rs[0] != r.dirs || rs[1] != gates * r.hidden || rs[2] != r.hidden)
    c.invalid("R has shape " + shape_to_string(rs));
  r.steps = r.batch_first ? xs[1] : xs[0];
  r.batch = r.batch_first ? xs[0] : xs[1];
  if (c.has_attr("activations")) {
    const auto* a = c.attr("activations");
    if (static_cast<size_t>(a->strings_size()) != per_dir * r.dirs)
      c.invalid("activations needs " + std::to_string(per_dir * r.dirs) + " entries");
    for (size_t i = 0; i < per_dir * r.dirs; ++i) {
      const Act act = activation_of(c, a->strings(static_cast<int>(i)));
      if (i < per_dir)
        r.activations.push_back(act);
      else if (act != r.activations[i % per_dir])
        c.unsupported("different activations per direction");
    }
  }
  if (c.has_input(4)) {
    for (int64_t len : c.ints(4, "sequence_lens"))
      if (len != r.steps) c.unsupported("sequence_lens shorter than the sequence");
  }
  r.x = c.input(0);
  if (r.batch_first)
    r.x = c.builder().transpose(
        r.x, {.permutation = std::vector<uint32_t>{1, 0, 2}, .label = c.label()});
  return r;
}

// Slice [d0, d1) of the last axis of 2-D input i (on the host when known).
MLOperand bias_half(NodeContext& c, size_t i, uint32_t dirs, uint32_t begin, uint32_t size) {
  if (c.input_shape(i) != std::vector<uint32_t>{dirs, 2 * size})
    c.invalid("B has shape " + shape_to_string(c.input_shape(i)));
  if (c.is_constant(i))
    return c.constant_operand(host_slice(c.constant(i), {0, begin}, {1, 1}, {dirs, size}));
  return c.builder().slice(c.input(i), {0, begin}, {dirs, size}, c.opts<MLSliceOptions>());
}

// An initial state input [D, B, H] (ONNX layout 1: [B, D, H]).
std::optional<MLOperand> initial_state(NodeContext& c, size_t i, const Rnn& r) {
  if (!c.has_input(i)) return std::nullopt;
  MLOperand s = c.input(i);
  if (r.batch_first)
    s = c.builder().transpose(s,
                              {.permutation = std::vector<uint32_t>{1, 0, 2}, .label = c.label()});
  return s;
}

// Sets Y (output 0, from [steps, D, B, H]) and the [D, B, H] states at `first_state`...
void set_outputs(NodeContext& c, const Rnn& r, std::optional<MLOperand> sequence,
                 const std::vector<MLOperand>& states) {
  MLGraphBuilder& b = c.builder();
  if (sequence && c.wants_output(0)) {
    MLOperand y = *sequence;
    if (r.batch_first)
      y = b.transpose(y, {.permutation = std::vector<uint32_t>{2, 0, 1, 3}, .label = c.label()});
    c.set_output(0, y);
  }
  for (size_t i = 0; i < states.size(); ++i) {
    MLOperand s = states[i];
    if (r.batch_first)
      s = b.transpose(s, {.permutation = std::vector<uint32_t>{1, 0, 2}, .label = c.label()});
    c.set_output(i + 1, s);
  }
}

void check_float(const NodeContext& c) {
  const DT t = c.input_type(0);
  if (t != DT::kFloat32 && t != DT::kFloat16) c.unsupported("a non-float input");
}

MLOperand activate(NodeContext& c, Act a, const MLOperand& x) {
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  switch (a) {
    case Act::kRelu:
      return b.relu(x, o);
    case Act::kSigmoid:
      return b.sigmoid(x, o);
    case Act::kTanh:
      return b.tanh(x, o);
  }
  return x;
}

// LSTM with peepholes, unrolled: ONNX's output gate peeps at the new cell state C_t, WebNN lstm's
// at the previous one, so lstm cannot express it. Per step (gates i, o, f, c of one gemm):
// i = f(.. + Pi⊙C), f' = f(.. + Pf⊙C), C' = f'⊙C + i⊙g(c), o = f(.. + Po⊙C'), H' = o⊙h(C').
void lstm_peephole(NodeContext& c, const Rnn& r) {
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  const uint32_t H = r.hidden, B = r.batch, T = r.steps, G = 4 * H;
  if (c.input_rank(1) != 3) c.invalid("W must have rank 3 [num_directions, gates*hidden, input]");
  const uint32_t I = c.input_shape(1)[2];
  const std::vector<Act> acts = r.activations.empty()
                                    ? std::vector<Act>{Act::kSigmoid, Act::kTanh, Act::kTanh}
                                    : r.activations;
  std::optional<MLOperand> h0 = initial_state(c, 5, r), c0 = initial_state(c, 6, r);
  MLOperand x2 = b.reshape(r.x, {T * B, I}, o);
  MLOperand zeros = c.constant_operand(
      HostTensor::of_int64(std::vector<int64_t>(size_t{B} * H, 0), {B, H}, c.input_type(0)));
  std::vector<MLOperand> ys, hs, cs;
  for (uint32_t d = 0; d < r.dirs; ++d) {
    MLOperand w = b.reshape(b.slice(c.input(1), {d, 0, 0}, {1, G, I}), {G, I}, o);
    MLOperand rw = b.reshape(b.slice(c.input(2), {d, 0, 0}, {1, G, H}), {G, H}, o);
    MLGemmOptions g = c.opts<MLGemmOptions>();
    g.bTranspose = true;
    if (c.has_input(3)) {
      MLOperand wb = bias_half(c, 3, r.dirs, 0, G), rb = bias_half(c, 3, r.dirs, G, G);
      g.c = b.reshape(b.slice(b.add(wb, rb, o), {d, 0}, {1, G}), {G}, o);
    }
    MLOperand proj = b.reshape(b.gemm(x2, w, g), {T, B, G}, o);
    MLOperand p = b.reshape(b.slice(c.input(7), {d, 0}, {1, 3 * H}), {3 * H}, o);
    std::vector<MLOperand> pg = b.split(p, 3u, c.opts<MLSplitOptions>());  // i, o, f
    auto state = [&](const std::optional<MLOperand>& s) {
      return s ? b.reshape(b.slice(*s, {d, 0, 0}, {1, B, H}), {B, H}, o) : zeros;
    };
    MLOperand h = state(h0), cell = state(c0);
    std::vector<MLOperand> steps(T);
    const bool reverse = r.direction == MLRecurrentNetworkDirection::kBackward || d == 1;
    for (uint32_t s = 0; s < T; ++s) {
      const uint32_t t = reverse ? T - 1 - s : s;
      MLGemmOptions gr = c.opts<MLGemmOptions>();
      gr.bTranspose = true;
      gr.c = b.reshape(b.slice(proj, {t, 0, 0}, {1, B, G}), {B, G}, o);
      MLSplitOptions so = c.opts<MLSplitOptions>();
      so.axis = 1;
      std::vector<MLOperand> z = b.split(b.gemm(h, rw, gr), 4u, so);  // i, o, f, c
      MLOperand ig = activate(c, acts[0], b.add(z[0], b.mul(pg[0], cell, o), o));
      MLOperand fg = activate(c, acts[0], b.add(z[2], b.mul(pg[2], cell, o), o));
      cell = b.add(b.mul(fg, cell, o), b.mul(ig, activate(c, acts[1], z[3]), o), o);
      MLOperand og = activate(c, acts[0], b.add(z[1], b.mul(pg[1], cell, o), o));
      h = b.mul(og, activate(c, acts[2], cell), o);
      steps[t] = b.reshape(h, {1, 1, B, H}, o);
    }
    ys.push_back(T == 1 ? steps[0] : b.concat(steps, 0, o));
    hs.push_back(b.reshape(h, {1, B, H}, o));
    cs.push_back(b.reshape(cell, {1, B, H}, o));
  }
  auto join = [&](const std::vector<MLOperand>& v, uint32_t axis) {
    return v.size() == 1 ? v[0] : b.concat(v, axis, o);
  };
  set_outputs(c, r, join(ys, 1), {join(hs, 0), join(cs, 0)});
}

}  // namespace

void import_LSTM(NodeContext& c) {
  check_float(c);
  if (c.attr_int("input_forget", 0) != 0) c.unsupported("input_forget = 1");
  Rnn r = read_rnn(c, 4, 3);
  if (c.has_input(7)) return lstm_peephole(c, r);
  MLLstmOptions o = c.opts<MLLstmOptions>();
  o.direction = r.direction;
  o.layout = MLLstmWeightLayout::kIofg;
  o.returnSequence = c.wants_output(0);
  if (!r.activations.empty()) o.activations = r.activations;
  if (c.has_input(3)) {
    o.bias = bias_half(c, 3, r.dirs, 0, 4 * r.hidden);
    o.recurrentBias = bias_half(c, 3, r.dirs, 4 * r.hidden, 4 * r.hidden);
  }
  o.initialHiddenState = initial_state(c, 5, r);
  o.initialCellState = initial_state(c, 6, r);
  std::vector<MLOperand> out = c.builder().lstm(r.x, c.input(1), c.input(2), r.steps, r.hidden, o);
  set_outputs(c, r, o.returnSequence ? std::optional<MLOperand>(out[2]) : std::nullopt,
              {out[0], out[1]});
}

void import_GRU(NodeContext& c) {
  check_float(c);
  Rnn r = read_rnn(c, 3, 2);
  MLGruOptions o = c.opts<MLGruOptions>();
  o.direction = r.direction;
  o.layout = MLGruWeightLayout::kZrn;
  o.resetAfter = c.attr_int("linear_before_reset", 0) != 0;
  o.returnSequence = c.wants_output(0);
  if (!r.activations.empty()) o.activations = r.activations;
  if (c.has_input(3)) {
    o.bias = bias_half(c, 3, r.dirs, 0, 3 * r.hidden);
    o.recurrentBias = bias_half(c, 3, r.dirs, 3 * r.hidden, 3 * r.hidden);
  }
  o.initialHiddenState = initial_state(c, 5, r);
  std::vector<MLOperand> out = c.builder().gru(r.x, c.input(1), c.input(2), r.steps, r.hidden, o);
  set_outputs(c, r, o.returnSequence ? std::optional<MLOperand>(out[1]) : std::nullopt, {out[0]});
}

// RNN, unrolled: H_t = f(X_t·Wᵀ + H_{t-1}·Rᵀ + Wb + Rb) per direction (reverse walks t down).
void import_RNN(NodeContext& c) {
  check_float(c);
  Rnn r = read_rnn(c, 1, 1);
  const Act act = r.activations.empty() ? Act::kTanh : r.activations[0];
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  const uint32_t H = r.hidden, B = r.batch, T = r.steps;
  if (c.input_rank(1) != 3) c.invalid("W must have rank 3 [num_directions, gates*hidden, input]");
  const uint32_t I = c.input_shape(1)[2];
  std::optional<MLOperand> h0 = initial_state(c, 5, r);
  MLOperand x2 = b.reshape(r.x, {T * B, I}, o);
  std::vector<MLOperand> ys, hs;
  for (uint32_t d = 0; d < r.dirs; ++d) {
    MLOperand w = b.reshape(b.slice(c.input(1), {d, 0, 0}, {1, H, I}), {H, I}, o);
    MLOperand rw = b.reshape(b.slice(c.input(2), {d, 0, 0}, {1, H, H}), {H, H}, o);
    MLGemmOptions g = c.opts<MLGemmOptions>();
    g.bTranspose = true;
    if (c.has_input(3)) {
      MLOperand wb = bias_half(c, 3, r.dirs, 0, H), rb = bias_half(c, 3, r.dirs, H, H);
      g.c = b.reshape(b.slice(b.add(wb, rb, o), {d, 0}, {1, H}), {H}, o);
    }
    MLOperand proj = b.reshape(b.gemm(x2, w, g), {T, B, H}, o);
    std::optional<MLOperand> h;
    if (h0) h = b.reshape(b.slice(*h0, {d, 0, 0}, {1, B, H}), {B, H}, o);
    std::vector<MLOperand> steps(T);
    const bool reverse = r.direction == MLRecurrentNetworkDirection::kBackward || d == 1;
    for (uint32_t s = 0; s < T; ++s) {
      const uint32_t t = reverse ? T - 1 - s : s;
      MLOperand pre = b.reshape(b.slice(proj, {t, 0, 0}, {1, B, H}), {B, H}, o);
      if (h) {
        MLGemmOptions gr = c.opts<MLGemmOptions>();
        gr.bTranspose = true;
        gr.c = pre;
        pre = b.gemm(*h, rw, gr);
      }
      h = activate(c, act, pre);
      steps[t] = b.reshape(*h, {1, 1, B, H}, o);
    }
    ys.push_back(T == 1 ? steps[0] : b.concat(steps, 0, o));
    hs.push_back(b.reshape(*h, {1, B, H}, o));
  }
  MLOperand y = ys.size() == 1 ? ys[0] : b.concat(ys, 1, o);
  MLOperand yh = hs.size() == 1 ? hs[0] : b.concat(hs, 0, o);
  set_outputs(c, r, y, {yh});
}

}  // namespace cppnn::onnx_import
