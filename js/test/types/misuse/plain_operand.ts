// Misuse: a plain object where an MLOperand is expected (MLOperand is nominal, not structural),
// and a constructor the spec does not have.
import { MLOperand } from 'cppnn';
import type { MLGraphBuilder } from 'cppnn';

export function activate(builder: MLGraphBuilder): MLOperand {
  // expect error TS2345
  builder.relu({ dataType: 'float32', shape: [2] });
  // expect error TS2673
  return new MLOperand();
}
