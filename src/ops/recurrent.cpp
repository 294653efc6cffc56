// Recurrent network operations (webnn-spec.md §2 rows 53, 54, 61, 62): gru, gruCell, lstm and
// lstmCell. Every operand is f32 or f16 of one type; the shapes follow from steps, batch size,
// input size, hiddenSize and the number of directions.
#include <initializer_list>

#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// An f32/f16 role of fixed rank with the data type of input (role 0).
RoleLimits same_as_input(std::string_view name, uint8_t rank, bool optional = false) {
  return {name, 0, kFloat, rank, rank, 0, optional};
}
RoleLimits float_role(std::string_view name, uint8_t rank) {
  return {name, kFloat, kFloat, rank, rank};
}

// One operand whose shape must equal `shape`; `index` is its position in InferInput.
struct ExpectedShape {
  size_t index;
  Dims shape;
  std::string_view name;
};

// Each present operand has its expected shape.
Status check_shapes(const InferInput& in, std::initializer_list<ExpectedShape> expected) {
  for (const ExpectedShape& e : expected) {
    const MLOperandDescriptor* d = in.optional(e.index);
    if (d && d->shape != e.shape)
      return type_error(e.name, " shape ", dims_str(d->shape), " must be ", dims_str(e.shape));
  }
  return Ok{};
}

// The row count of the stacked gate weights (gates·hiddenSize), checking that 2·gates·hiddenSize
// is a valid dimension (6·H for gru, 8·H for lstm).
Result<uint32_t> gate_rows(uint32_t hidden_size, uint32_t gates) {
  if (!is_valid_dimension(int64_t{hidden_size} * gates * 2))
    return type_error("hiddenSize ", hidden_size, " is invalid (", gates * 2,
                      " * hiddenSize must be a valid dimension)");
  return gates * hidden_size;
}

// steps is positive and equals input.shape[0].
Status check_steps(uint32_t steps, const MLOperandDescriptor& input) {
  if (steps == 0) return type_error("steps must be greater than 0");
  if (input.shape[0] != steps)
    return type_error("input shape ", dims_str(input.shape), " must have steps (", steps,
                      ") as dimension 0");
  return Ok{};
}

// The activations option, when present, has `n` entries.
Status check_activations(const OptionalList<MLRecurrentNetworkActivation>& activations, size_t n) {
  if (!activations) return Ok{};
  return check_length(activations->size(), n, "activations");
}

uint32_t num_directions(MLRecurrentNetworkDirection d) {
  return d == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
}

}  // namespace

// gru (row 53): input [steps,B,I], weight [D,3H,I], recurrentWeight [D,3H,H], biases [D,3H],
// initialHiddenState [D,B,H]; outputs [D,B,H] and, with returnSequence, [steps,D,B,H].
const OpLimits limits_gru{
    {float_role("input", 3), same_as_input("weight", 3), same_as_input("recurrentWeight", 3),
     same_as_input("bias", 2, true), same_as_input("recurrentBias", 2, true),
     same_as_input("initialHiddenState", 3, true)},
    {same_as_input("output0", 3), same_as_input("output1", 4)}};
Result<OutputDescs> infer_gru(const InferInput& in, const AttrsOf<OpType::kGru>& attrs) {
  const uint32_t steps = attrs.params.steps, h = attrs.params.hiddenSize;
  const MLGruOptions& o = attrs.options;
  CPPNN_RETURN_IF_ERROR(check_steps(steps, in[0]));
  auto rows = gate_rows(h, 3);
  if (!rows) return rows.error();
  const uint32_t d = num_directions(o.direction), b = in[0].shape[1], i = in[0].shape[2];
  CPPNN_RETURN_IF_ERROR(check_shapes(in, {{1, {d, *rows, i}, "weight"},
                                          {2, {d, *rows, h}, "recurrentWeight"},
                                          {3, {d, *rows}, "bias"},
                                          {4, {d, *rows}, "recurrentBias"},
                                          {5, {d, b, h}, "initialHiddenState"}}));
  CPPNN_RETURN_IF_ERROR(check_activations(o.activations, 2));
  const MLOperandDataType t = in[0].dataType;
  OutputDescs out{{t, {d, b, h}}};
  if (o.returnSequence) out.push_back({t, {steps, d, b, h}});
  return out;
}

// gruCell (row 54): input [B,I], weight [3H,I], recurrentWeight [3H,H], hiddenState [B,H],
// biases [3H]; output [B,H].
const OpLimits limits_gruCell{
    {float_role("input", 2), same_as_input("weight", 2), same_as_input("recurrentWeight", 2),
     same_as_input("hiddenState", 2), same_as_input("bias", 1, true),
     same_as_input("recurrentBias", 1, true)},
    {same_as_input("output", 2)}};
Result<OutputDescs> infer_gruCell(const InferInput& in, const AttrsOf<OpType::kGruCell>& attrs) {
  const uint32_t h = attrs.params.hiddenSize;
  auto rows = gate_rows(h, 3);
  if (!rows) return rows.error();
  const uint32_t b = in[0].shape[0], i = in[0].shape[1];
  CPPNN_RETURN_IF_ERROR(check_shapes(in, {{1, {*rows, i}, "weight"},
                                          {2, {*rows, h}, "recurrentWeight"},
                                          {3, {b, h}, "hiddenState"},
                                          {4, {*rows}, "bias"},
                                          {5, {*rows}, "recurrentBias"}}));
  CPPNN_RETURN_IF_ERROR(check_activations(attrs.options.activations, 2));
  return OutputDescs{{in[0].dataType, {b, h}}};
}

// lstm (row 61): input [steps,B,I], weight [D,4H,I], recurrentWeight [D,4H,H], biases [D,4H],
// peepholeWeight [D,3H], initial states [D,B,H]; outputs hidden and cell [D,B,H] and, with
// returnSequence, [steps,D,B,H].
const OpLimits limits_lstm{
    {float_role("input", 3), same_as_input("weight", 3), same_as_input("recurrentWeight", 3),
     same_as_input("bias", 2, true), same_as_input("recurrentBias", 2, true),
     same_as_input("peepholeWeight", 2, true), same_as_input("initialHiddenState", 3, true),
     same_as_input("initialCellState", 3, true)},
    {same_as_input("output0", 3), same_as_input("output1", 3), same_as_input("output2", 4)}};
Result<OutputDescs> infer_lstm(const InferInput& in, const AttrsOf<OpType::kLstm>& attrs) {
  const uint32_t steps = attrs.params.steps, h = attrs.params.hiddenSize;
  const MLLstmOptions& o = attrs.options;
  CPPNN_RETURN_IF_ERROR(check_steps(steps, in[0]));
  auto rows = gate_rows(h, 4);
  if (!rows) return rows.error();
  const uint32_t d = num_directions(o.direction), b = in[0].shape[1], i = in[0].shape[2];
  CPPNN_RETURN_IF_ERROR(check_shapes(in, {{1, {d, *rows, i}, "weight"},
                                          {2, {d, *rows, h}, "recurrentWeight"},
                                          {3, {d, *rows}, "bias"},
                                          {4, {d, *rows}, "recurrentBias"},
                                          {5, {d, 3 * h}, "peepholeWeight"},
                                          {6, {d, b, h}, "initialHiddenState"},
                                          {7, {d, b, h}, "initialCellState"}}));
  CPPNN_RETURN_IF_ERROR(check_activations(o.activations, 3));
  const MLOperandDataType t = in[0].dataType;
  OutputDescs out{{t, {d, b, h}}, {t, {d, b, h}}};
  if (o.returnSequence) out.push_back({t, {steps, d, b, h}});
  return out;
}

// lstmCell (row 62): input [B,I], weight [4H,I], recurrentWeight [4H,H], hiddenState and
// cellState [B,H], biases [4H], peepholeWeight [3H]; outputs hidden and cell [B,H].
const OpLimits limits_lstmCell{
    {float_role("input", 2), same_as_input("weight", 2), same_as_input("recurrentWeight", 2),
     same_as_input("hiddenState", 2), same_as_input("cellState", 2), same_as_input("bias", 1, true),
     same_as_input("recurrentBias", 1, true), same_as_input("peepholeWeight", 1, true)},
    {same_as_input("output0", 2), same_as_input("output1", 2)}};
Result<OutputDescs> infer_lstmCell(const InferInput& in, const AttrsOf<OpType::kLstmCell>& attrs) {
  const uint32_t h = attrs.params.hiddenSize;
  auto rows = gate_rows(h, 4);
  if (!rows) return rows.error();
  const uint32_t b = in[0].shape[0], i = in[0].shape[1];
  CPPNN_RETURN_IF_ERROR(check_shapes(in, {{1, {*rows, i}, "weight"},
                                          {2, {*rows, h}, "recurrentWeight"},
                                          {3, {b, h}, "hiddenState"},
                                          {4, {b, h}, "cellState"},
                                          {5, {*rows}, "bias"},
                                          {6, {*rows}, "recurrentBias"},
                                          {7, {3 * h}, "peepholeWeight"}}));
  CPPNN_RETURN_IF_ERROR(check_activations(attrs.options.activations, 3));
  const MLOperandDataType t = in[0].dataType;
  return OutputDescs{{t, {b, h}}, {t, {b, h}}};
}

}  // namespace cppnn
