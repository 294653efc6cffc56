// Misuse: option values of the wrong type: an enum string the spec removed, and a BigInt for an
// unsigned long (WebIDL takes BigInt only for MLNumber).
import type { MLGraphBuilder, MLOperand } from 'cppnn';

export function padAndGather(builder: MLGraphBuilder, x: MLOperand, i: MLOperand): MLOperand {
  // expect error TS2322
  const padded = builder.pad(x, [1, 1], [1, 1], { mode: 'symmetric' });
  // expect error TS2322
  return builder.gather(padded, i, { axis: 1n });
}
