// CoreML lowering of the recurrent ops (see lower.h; webnn-spec.md §2 rows 53, 54, 61, 62): gru,
// gruCell, lstm and lstmCell always go through the shared decompositions
// (src/passes/decompose/recurrent.cpp: the steps unrolled with matmul, slice, concat, reshape and
// the activations, float16 computed in float32), which the other families lower.
//
// MIL's own recurrent ops cannot say WebNN's semantics in general:
// - gru (iOS17) takes a single bias added outside the reset gate's product, so it has no form of
//   resetAfter with a recurrent bias (n = g(Wn·x + bn + r ⊙ (Rn·h + rbn))) nor of resetAfter =
//   false (n = g(Wn·x + Rn·(r ⊙ h) + ...)), and no "both" direction;
// - lstm (iOS17) documents no formula for its peephole terms (the classic peephole LSTM, ONNX's
//   too, applies the output gate's to the new cell state, WebNN to the previous one), and takes
//   W·x, R·h and one summed bias separately where the reference (and the decomposition)
//   accumulate each gate's pre-activation in one sum rounded once (WPT's lstmCell tolerance is
//   1 ULP);
// - both need constant weights (their `const` parameters), while WebNN's may be any operand;
// - neither has a single-step cell form.
#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"

namespace cppnn::coreml_export {

// Never lowered directly: every recurrent op is decomposed first (see the file comment).
bool lowers_recurrent(const Graph&, const Operation&) {
  return false;
}

// gru (row 53): decomposed (lowers_recurrent), never reached.
void lower_gru(Emitter&, const Operation&, const AttrsOf<OpType::kGru>&) {
  throw OperationError("coreml: gru is decomposed before lowering");
}

// gruCell (row 54): decomposed (lowers_recurrent), never reached.
void lower_gruCell(Emitter&, const Operation&, const AttrsOf<OpType::kGruCell>&) {
  throw OperationError("coreml: gruCell is decomposed before lowering");
}

// lstm (row 61): decomposed (lowers_recurrent), never reached.
void lower_lstm(Emitter&, const Operation&, const AttrsOf<OpType::kLstm>&) {
  throw OperationError("coreml: lstm is decomposed before lowering");
}

// lstmCell (row 62): decomposed (lowers_recurrent), never reached.
void lower_lstmCell(Emitter&, const Operation&, const AttrsOf<OpType::kLstmCell>&) {
  throw OperationError("coreml: lstmCell is decomposed before lowering");
}

}  // namespace cppnn::coreml_export
