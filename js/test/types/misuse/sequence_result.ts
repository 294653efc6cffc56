// Misuse: the result of a multi-output operation (split returns MLOperand[]) used as one operand,
// and the BYOB readTensor() result used as an ArrayBuffer.
import type { MLContext, MLGraphBuilder, MLOperand, MLTensor } from 'cppnn';

export async function firstHalf(builder: MLGraphBuilder, x: MLOperand): Promise<MLOperand> {
  // expect error TS2739
  const half: MLOperand = builder.split(x, 2);
  return half;
}

export async function read(context: MLContext, tensor: MLTensor): Promise<ArrayBuffer> {
  // expect error TS2322
  const bytes: ArrayBuffer = await context.readTensor(tensor, new Float32Array(4));
  return bytes;
}
