// Misuse: a required positional argument left out (softmax's axis has no default).
import type { MLGraphBuilder, MLOperand } from 'cppnn';

export function normalize(builder: MLGraphBuilder, x: MLOperand): MLOperand {
  // expect error TS2554
  return builder.softmax(x);
}
