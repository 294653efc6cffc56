// ONNX lowering of the recurrent ops (see lower.h): gru, gruCell, lstm and lstmCell
// (webnn-spec.md §2 rows 53, 54, 61, 62), each one ONNX GRU or LSTM node. WebNN's operands have
// ONNX's shapes (input [steps, B, I], weights [D, G·H, *], initial states [D, B, H]; outputs
// Y_h/Y_c [D, B, H] and the sequence Y [steps, D, B, H]); the differences are mapped:
//  - gate order: ONNX GRU is z,r,h (WebNN "zrn"; "rzn" is reordered) and ONNX LSTM is i,o,f,c
//    (WebNN "iofg"; "ifgo" is reordered); the reorder of constant
//    weights is a Split/Concat that ONNX Runtime folds at load;
//  - ONNX's B is the concatenation [bias, recurrentBias] (an absent half is zeros);
//  - resetAfter is linear_before_reset; "backward"/"both" are "reverse"/"bidirectional";
//  - activations are listed once per direction;
//  - lstm/lstmCell with peepholes never get here: WebNN's output gate reads the previous cell
//    state, ONNX's the new one, so convert_graph() decomposes them first (target.h).
// A cell is the network with steps = 1 and one direction: its operands get a leading 1
// (Unsqueeze) and its outputs drop it (Squeeze).
#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_reduction_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/export/onnx/target.h"

namespace cppnn::onnx_export {
namespace {

using Act = MLRecurrentNetworkActivation;

// One recurrent network node to emit, its operands already in network shapes ("" = absent).
struct RnnNode {
  MLOperandDataType type = MLOperandDataType::kFloat32;
  int64_t hidden = 0;
  int64_t dirs = 1;
  std::string direction = "forward";
  std::string x, w, r, bias, rbias, h0, c0;
  std::vector<Act> activations;  // empty: ONNX's defaults (which are WebNN's)
  std::vector<int> gate_order;   // block i of ONNX's gates is block gate_order[i] of WebNN's
};

// The ONNX name of an activation.
std::string activation_name(Act a) {
  switch (a) {
    case Act::kRelu:
      return "Relu";
    case Act::kSigmoid:
      return "Sigmoid";
    case Act::kTanh:
      return "Tanh";
  }
  return "";
}

// ONNX's direction attribute.
std::string direction_name(MLRecurrentNetworkDirection d) {
  switch (d) {
    case MLRecurrentNetworkDirection::kForward:
      return "forward";
    case MLRecurrentNetworkDirection::kBackward:
      return "reverse";
    case MLRecurrentNetworkDirection::kBoth:
      return "bidirectional";
  }
  return "forward";
}

// `value` with its gate blocks along axis 1 rearranged to `order` (block i of the result is
// block order[i] of value); `value` itself when the order is the identity.
std::string reorder_gates(Emitter& e, const std::string& value, const std::vector<int>& order) {
  if (value.empty()) return value;
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity = identity && order[i] == static_cast<int>(i);
  if (identity) return value;
  const std::vector<std::string> parts =
      e.node_n("Split", {value}, order.size(), {{"axis", int64_t{1}}});
  std::vector<std::string> blocks;
  for (int i : order) blocks.push_back(parts[static_cast<size_t>(i)]);
  return e.node("Concat", blocks, {{"axis", int64_t{1}}});
}

// `value` with a leading dimension of 1 ("" stays absent).
std::string unsqueeze0(Emitter& e, const std::string& value) {
  if (value.empty()) return value;
  return e.node("Unsqueeze", {value, e.const_i64({0})});
}

// Emits the GRU or LSTM node for `n` writing `outputs` (ONNX's Y, Y_h[, Y_c]; "" = unused).
void emit_rnn(Emitter& e, const char* onnx_op, const RnnNode& n, std::vector<std::string> outputs,
              const std::vector<Act>& defaults, bool reset_after) {
  const int64_t gates = static_cast<int64_t>(n.gate_order.size());
  const std::string w = reorder_gates(e, n.w, n.gate_order);
  const std::string r = reorder_gates(e, n.r, n.gate_order);
  std::string b;
  if (!n.bias.empty() || !n.rbias.empty()) {
    const std::vector<int64_t> bias_shape{n.dirs, gates * n.hidden};
    const std::string bias = n.bias.empty() ? const_filled(e, n.type, bias_shape, 0.0)
                                            : reorder_gates(e, n.bias, n.gate_order);
    const std::string rbias = n.rbias.empty() ? const_filled(e, n.type, bias_shape, 0.0)
                                              : reorder_gates(e, n.rbias, n.gate_order);
    b = e.node("Concat", {bias, rbias}, {{"axis", int64_t{1}}});
  }
  std::vector<Attr> a{{"hidden_size", n.hidden}};
  if (n.direction != "forward") a.push_back({"direction", n.direction});
  if (!n.activations.empty() && n.activations != defaults) {
    std::vector<std::string> names;
    for (int64_t d = 0; d < n.dirs; ++d)
      for (Act act : n.activations) names.push_back(activation_name(act));
    a.push_back({"activations", std::move(names)});
  }
  if (reset_after) a.push_back({"linear_before_reset", int64_t{1}});
  std::vector<std::string> inputs{n.x, w, r, b, "", n.h0};
  if (onnx_op == std::string("LSTM")) inputs.push_back(n.c0);
  e.node_to(onnx_op, std::move(inputs), std::move(outputs), std::move(a));
}

// ONNX GRU gate order z,r,h from WebNN's layout.
std::vector<int> gru_order(MLGruWeightLayout layout) {
  return layout == MLGruWeightLayout::kZrn ? std::vector<int>{0, 1, 2} : std::vector<int>{1, 0, 2};
}
// ONNX LSTM gate order i,o,f,c from WebNN's layout (ifgo: i=0, f=1, g=2, o=3).
std::vector<int> lstm_order(MLLstmWeightLayout layout) {
  return layout == MLLstmWeightLayout::kIofg ? std::vector<int>{0, 1, 2, 3}
                                             : std::vector<int>{0, 3, 1, 2};
}

// The fields every network (gru, lstm) shares: type, hidden size, direction, x, W, R.
RnnNode network_node(Emitter& e, const Operation& op, uint32_t hidden,
                     MLRecurrentNetworkDirection direction) {
  RnnNode n;
  n.type = e.type(op.inputs[0]);
  n.hidden = hidden;
  n.dirs = direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  n.direction = direction_name(direction);
  n.x = in(e, op, 0);
  n.w = in(e, op, 1);
  n.r = in(e, op, 2);
  return n;
}

// The fields every cell (gruCell, lstmCell) shares: type, hidden size, and x, W, R, h0 with a
// leading 1.
RnnNode cell_node(Emitter& e, const Operation& op, uint32_t hidden) {
  RnnNode n;
  n.type = e.type(op.inputs[0]);
  n.hidden = hidden;
  n.x = unsqueeze0(e, in(e, op, 0));
  n.w = unsqueeze0(e, in(e, op, 1));
  n.r = unsqueeze0(e, in(e, op, 2));
  n.h0 = unsqueeze0(e, in(e, op, 3));
  return n;
}

const std::vector<Act> kGruDefaults{Act::kSigmoid, Act::kTanh};
const std::vector<Act> kLstmDefaults{Act::kSigmoid, Act::kTanh, Act::kTanh};

// An lstm/lstmCell with a peepholeWeight has no ONNX LSTM form; onnx_target() routes it to the
// shared decomposition, so reaching the lowering is a bug.
void require_no_peephole(const Operation& op) {
  if (has_peephole(op))
    throw OperationError("peepholeWeight has no ONNX LSTM form: decompose it first (target.h)");
}

}  // namespace

// gru (row 53): outputs [hidden [D,B,H], sequence [steps,D,B,H] with returnSequence].
void lower_gru(Emitter& e, const Operation& op, const AttrsOf<OpType::kGru>& attrs) {
  const MLGruOptions& o = attrs.options;
  RnnNode n = network_node(e, op, attrs.params.hiddenSize, o.direction);
  n.bias = in(e, op, 3);
  n.rbias = in(e, op, 4);
  n.h0 = in(e, op, 5);
  n.activations = o.activations.value_or({});
  n.gate_order = gru_order(o.layout);
  emit_rnn(e, "GRU", n, {o.returnSequence ? out(e, op, 1) : "", out(e, op, 0)}, kGruDefaults,
           o.resetAfter);
}

// gruCell (row 54): one forward GRU step on [B,I] from hiddenState [B,H]; output [B,H].
void lower_gruCell(Emitter& e, const Operation& op, const AttrsOf<OpType::kGruCell>& attrs) {
  const MLGruCellOptions& o = attrs.options;
  RnnNode n = cell_node(e, op, attrs.params.hiddenSize);
  n.bias = unsqueeze0(e, in(e, op, 4));
  n.rbias = unsqueeze0(e, in(e, op, 5));
  n.activations = o.activations.value_or({});
  n.gate_order = gru_order(o.layout);
  const std::string h = e.fresh();
  emit_rnn(e, "GRU", n, {"", h}, kGruDefaults, o.resetAfter);
  e.node_to("Squeeze", {h, e.const_i64({0})}, {out(e, op, 0)});
}

// lstm (row 61): outputs [hidden [D,B,H], cell [D,B,H], sequence [steps,D,B,H] with
// returnSequence].
void lower_lstm(Emitter& e, const Operation& op, const AttrsOf<OpType::kLstm>& attrs) {
  const MLLstmOptions& o = attrs.options;
  require_no_peephole(op);
  RnnNode n = network_node(e, op, attrs.params.hiddenSize, o.direction);
  n.bias = in(e, op, 3);
  n.rbias = in(e, op, 4);
  n.h0 = in(e, op, 6);
  n.c0 = in(e, op, 7);
  n.activations = o.activations.value_or({});
  n.gate_order = lstm_order(o.layout);
  emit_rnn(e, "LSTM", n, {o.returnSequence ? out(e, op, 2) : "", out(e, op, 0), out(e, op, 1)},
           kLstmDefaults, false);
}

// lstmCell (row 62): one forward LSTM step on [B,I] from hiddenState and cellState [B,H];
// outputs [hidden [B,H], cell [B,H]].
void lower_lstmCell(Emitter& e, const Operation& op, const AttrsOf<OpType::kLstmCell>& attrs) {
  const MLLstmCellOptions& o = attrs.options;
  require_no_peephole(op);
  RnnNode n = cell_node(e, op, attrs.params.hiddenSize);
  n.c0 = unsqueeze0(e, in(e, op, 4));
  n.bias = unsqueeze0(e, in(e, op, 5));
  n.rbias = unsqueeze0(e, in(e, op, 6));
  n.activations = o.activations.value_or({});
  n.gate_order = lstm_order(o.layout);
  const std::string h = e.fresh(), c = e.fresh();
  emit_rnn(e, "LSTM", n, {"", h, c}, kLstmDefaults, false);
  const std::string axes = e.const_i64({0});
  e.node_to("Squeeze", {h, axes}, {out(e, op, 0)});
  e.node_to("Squeeze", {c, axes}, {out(e, op, 1)});
}

}  // namespace cppnn::onnx_export
