#include "src/backends/reference/recurrent_steps.h"

namespace cppnn::ref {
namespace {

OperandId input_at(const Operation& op, size_t i) {
  return i < op.inputs.size() ? op.inputs[i] : kNoOperand;
}
OperandId output_at(const Operation& op, size_t i) {
  return i < op.outputs.size() ? op.outputs[i] : kNoOperand;
}

// The sizes and operands every recurrent op takes first: input [.., B, I], weight, recurrentWeight.
template <class Plan>
void set_positional(const Graph& g, const Operation& op, Plan& p) {
  const std::vector<uint32_t>& in = g.descriptor(op.inputs[0]).shape;
  p.batch = in[in.size() - 2];
  p.input_size = in[in.size() - 1];
  p.x = op.inputs[0];
  p.w = op.inputs[1];
  p.rw = op.inputs[2];
}

GruPlan gru_common(const Graph& g, const Operation& op, uint32_t hidden, bool reset_after,
                   MLGruWeightLayout layout, const OptionalList<RecurrentAct>& activations) {
  GruPlan p;
  p.hidden = hidden;
  p.reset_after = reset_after;
  if (layout == MLGruWeightLayout::kZrn) {
    p.z = 0, p.r = 1;
  } else {
    p.r = 0, p.z = 1;
  }
  p.n = 2;
  const std::vector<RecurrentAct> acts =
      activations.value_or({RecurrentAct::kSigmoid, RecurrentAct::kTanh});
  p.f = acts.at(0);
  p.g = acts.at(1);
  set_positional(g, op, p);
  return p;
}

LstmPlan lstm_common(const Graph& g, const Operation& op, uint32_t hidden,
                     MLLstmWeightLayout layout, const OptionalList<RecurrentAct>& activations) {
  LstmPlan p;
  p.hidden = hidden;
  if (layout == MLLstmWeightLayout::kIofg) {
    p.i = 0, p.o = 1, p.f = 2, p.g = 3;
  } else {
    p.i = 0, p.f = 1, p.g = 2, p.o = 3;
  }
  const std::vector<RecurrentAct> acts =
      activations.value_or({RecurrentAct::kSigmoid, RecurrentAct::kTanh, RecurrentAct::kTanh});
  p.fa = acts.at(0);
  p.ga = acts.at(1);
  p.ha = acts.at(2);
  set_positional(g, op, p);
  return p;
}

}  // namespace

GruPlan gru_plan(const Graph& g, const Operation& op) {
  if (op.type == OpType::kGruCell) {  // (input, weight, recurrentWeight, hiddenState, ...)
    const auto& a = attrs_of<OpType::kGruCell>(op.attrs);
    const MLGruCellOptions& o = a.options;
    GruPlan p = gru_common(g, op, a.params.hiddenSize, o.resetAfter, o.layout, o.activations);
    p.h0 = op.inputs[3];
    p.bias = input_at(op, 4);
    p.rbias = input_at(op, 5);
    p.out = op.outputs[0];
    return p;
  }
  const auto& a = attrs_of<OpType::kGru>(op.attrs);
  const MLGruOptions& o = a.options;
  GruPlan p = gru_common(g, op, a.params.hiddenSize, o.resetAfter, o.layout, o.activations);
  p.steps = a.params.steps;
  p.dirs = o.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  p.backward = o.direction == MLRecurrentNetworkDirection::kBackward;
  p.bias = input_at(op, 3);
  p.rbias = input_at(op, 4);
  p.h0 = input_at(op, 5);
  p.out = op.outputs[0];
  p.seq = o.returnSequence ? output_at(op, 1) : kNoOperand;
  return p;
}

LstmPlan lstm_plan(const Graph& g, const Operation& op) {
  if (op.type == OpType::kLstmCell) {  // (input, weight, recurrentWeight, hidden, cell, ...)
    const auto& a = attrs_of<OpType::kLstmCell>(op.attrs);
    const MLLstmCellOptions& o = a.options;
    LstmPlan p = lstm_common(g, op, a.params.hiddenSize, o.layout, o.activations);
    p.h0 = op.inputs[3];
    p.c0 = op.inputs[4];
    p.bias = input_at(op, 5);
    p.rbias = input_at(op, 6);
    p.peephole = input_at(op, 7);
    p.out_h = op.outputs[0];
    p.out_c = op.outputs[1];
    return p;
  }
  const auto& a = attrs_of<OpType::kLstm>(op.attrs);
  const MLLstmOptions& o = a.options;
  LstmPlan p = lstm_common(g, op, a.params.hiddenSize, o.layout, o.activations);
  p.steps = a.params.steps;
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
  return p;
}

}  // namespace cppnn::ref
