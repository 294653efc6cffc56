// A realistic program over the package's declarations (index.d.ts): a small convolutional
// network built, dispatched and read back with the WebNN API. js/test/types.test.js checks that
// `tsc --noEmit --strict` accepts it (with and without the DOM library) and runs its output.
import { availableBackends, installPolyfill, ml, MLGraphBuilder, MLOperand } from 'cppnn';
import type {
  MLContext,
  MLConv2dOptions,
  MLGraph,
  MLNamedTensors,
  MLOperandDataType,
  MLOperandDescriptor,
  MLOpSupportLimits,
  MLTensor,
  MLTensorLimits,
} from 'cppnn';

// Node's globals used here (the project installs no @types/node).
declare const console: { log(...data: unknown[]): void; error(...data: unknown[]): void };
declare const process: { env: Record<string, string | undefined>; exitCode?: number };

// Throws unless `condition` holds.
function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`usage.ts: ${what}`);
}

function sameShape(shape: readonly number[], expected: readonly number[]): boolean {
  return shape.length === expected.length && shape.every((d, i) => d === expected[i]);
}

// The graph: conv2d (3x3, padding and bias) -> clamp -> split into two channels -> add ->
// averagePool2d -> reshape -> softmax, plus argMax as int64.
function buildGraph(builder: MLGraphBuilder, image: MLOperandDescriptor): Promise<MLGraph> {
  const x: MLOperand = builder.input('image', image);
  const filter = builder.constant(
    { dataType: 'float32', shape: [2, 1, 3, 3] },
    new Float32Array(18).fill(1 / 9),
  );
  const bias = builder.constant({ dataType: 'float32', shape: [2] }, new Float32Array([0, 1]));
  const options: MLConv2dOptions = { padding: [1, 1, 1, 1], strides: [1, 1], bias, label: 'conv' };
  const conv = builder.conv2d(x, filter, options);
  check(sameShape(conv.shape, [1, 2, 4, 4]), 'conv2d shape');
  const clamped = builder.clamp(conv, { minValue: 0, maxValue: 100n });
  const [first, second] = builder.split(clamped, 2, { axis: 1 });
  const parts: MLOperand[] = builder.split(clamped, [1, 1], { axis: 1 });
  check(parts.length === 2 && first !== undefined && second !== undefined, 'split outputs');
  const sum = builder.add(first, builder.mul(second, builder.constant('float32', 0.5)));
  const pooled = builder.averagePool2d(sum, {
    windowDimensions: [2, 2],
    strides: [2, 2],
    layout: 'nchw',
    outputShapeRounding: 'floor',
  });
  const logits = builder.reshape(pooled, [1, 4]);
  const probabilities = builder.softmax(logits, 1);
  const index = builder.argMax(logits, 1, { outputDataType: 'int64' });
  const type: MLOperandDataType = index.dataType;
  check(type === 'int64' && sameShape(index.shape, [1]), 'argMax output');
  return builder.build({ probabilities, index });
}

async function main(): Promise<void> {
  check(installPolyfill() === ml && navigator.ml === ml, 'installPolyfill');
  const backend = process.env.CPPNN_BACKEND ?? availableBackends()[0];
  const context: MLContext = await navigator.ml.createContext({ backend, numThreads: 1 });
  check(typeof context.backend === 'string' && typeof context.accelerated === 'boolean', 'attrs');

  const limits: MLOpSupportLimits = context.opSupportLimits();
  const conv: MLTensorLimits = limits.conv2d.input;
  const splitOutputs: MLTensorLimits = limits.split['outputs'];
  check(conv.dataTypes.includes('float32') && splitOutputs.rankRange.max >= 1, 'limits');

  const image: MLOperandDescriptor = { dataType: 'float32', shape: [1, 1, 4, 4] };
  const builder = new MLGraphBuilder(context);
  const graph = await buildGraph(builder, image);

  const input: MLTensor = await context.createTensor({ ...image, writable: true });
  const probabilities = await context.createTensor({
    dataType: 'float32',
    shape: [1, 4],
    readable: true,
  });
  const index = await context.createTensor({ dataType: 'int64', shape: [1], readable: true });
  context.writeTensor(input, new Float32Array(16).map((_, i) => i));
  const inputs: MLNamedTensors = { image: input };
  context.dispatch(graph, inputs, { probabilities, index });

  const p = new Float32Array(await context.readTensor(probabilities));
  check(Math.abs(p.reduce((s, v) => s + v, 0) - 1) < 1e-5, 'softmax sums to 1');
  const into = new BigInt64Array(1);
  const nothing: undefined = await context.readTensor(index, into);
  check(nothing === undefined && into[0] === 3n, 'argMax is the last window');

  // A constant tensor through the interface globals installPolyfill() set.
  const weights = await context.createConstantTensor(
    { dataType: 'float32', shape: [2] },
    new Float32Array([1, 2]),
  );
  const other: globalThis.MLGraphBuilder = new globalThis.MLGraphBuilder(context);
  const w: globalThis.MLOperand = other.constant(weights);
  check(w instanceof MLOperand && weights.constant && !weights.writable, 'constant tensor');

  try {
    builder.relu(builder.input('late', image));
    check(false, 'a built builder throws');
  } catch (e: unknown) {
    check(e instanceof Error && e.name === 'InvalidStateError', 'InvalidStateError');
  }
  graph.destroy();
  for (const t of [input, probabilities, index, weights]) t.destroy();
  context.destroy();
  const lost = await context.lost;
  check(typeof lost.message === 'string', 'lost');
  console.log(`usage.ts: ok (${context.backend})`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
