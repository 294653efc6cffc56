// TFLite lowerings of the recurrent ops (lower.h; webnn-spec.md §2 rows 53, 54, 61, 62): gru,
// gruCell, lstm and lstmCell always go through the shared decompositions
// (src/passes/decompose/recurrent.cpp: the steps unrolled with matmul, slice, concat, reshape and
// the activations, float16 computed in float32), which the other families lower.
//
// TFLite's own recurrent builtins cannot say WebNN's semantics in general:
// - UNIDIRECTIONAL_SEQUENCE_LSTM / BIDIRECTIONAL_SEQUENCE_LSTM apply the output gate's peephole
//   to the new cell state (the classic peephole LSTM), WebNN to the previous one; they take one
//   bias per gate where WebNN adds bias and recurrentBias, and W·x and R·h as separate products
//   where the reference (and the decomposition) accumulate each gate's pre-activation in one sum;
//   their gate activation is always the logistic function (WebNN's activations are options);
// - TFLite has no GRU builtin (resetAfter, the zrn/rzn layouts) and no single-step cell ops.
#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"

namespace cppnn::tflite_export {

// Never lowered directly: every recurrent op is decomposed first (see the file comment).
bool lowers_recurrent(const Graph&, const Operation&) {
  return false;
}

// gru (row 53): decomposed (lowers_recurrent), never reached.
void lower_gru(Emitter&, const Operation&, const AttrsOf<OpType::kGru>&) {
  throw OperationError("tflite: gru is decomposed before lowering");
}

// gruCell (row 54): decomposed (lowers_recurrent), never reached.
void lower_gruCell(Emitter&, const Operation&, const AttrsOf<OpType::kGruCell>&) {
  throw OperationError("tflite: gruCell is decomposed before lowering");
}

// lstm (row 61): decomposed (lowers_recurrent), never reached.
void lower_lstm(Emitter&, const Operation&, const AttrsOf<OpType::kLstm>&) {
  throw OperationError("tflite: lstm is decomposed before lowering");
}

// lstmCell (row 62): decomposed (lowers_recurrent), never reached.
void lower_lstmCell(Emitter&, const Operation&, const AttrsOf<OpType::kLstmCell>&) {
  throw OperationError("tflite: lstmCell is decomposed before lowering");
}

}  // namespace cppnn::tflite_export
