// Misuse: a positional argument of the wrong type (softmax's axis is an unsigned long).
import type { MLGraphBuilder, MLOperand } from 'cppnn';

export function normalize(builder: MLGraphBuilder, x: MLOperand): MLOperand {
  // expect error TS2345
  return builder.softmax(x, 'last');
}
