// Misuse: an option the operation's dictionary does not have, in an object literal.
import type { MLGraphBuilder, MLOperand } from 'cppnn';

export function convolve(builder: MLGraphBuilder, x: MLOperand, filter: MLOperand): MLOperand {
  // expect error TS2353
  return builder.conv2d(x, filter, { padding: [1, 1, 1, 1], kernelShape: [3, 3] });
}
