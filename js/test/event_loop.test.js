// Promise and event-loop behaviour: build() and dispatch run on the thread pool, so a timer keeps
// firing while a large graph compiles or runs; timeline order within a context (write, dispatch,
// read); two contexts dispatching at once.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { backends } = require('./helpers');

const f32 = (shape) => ({ dataType: 'float32', shape });

// A chain of `n` matmul+add+tanh blocks on a [64, 64] input (large enough to take a while).
function chain(builder, n) {
  const x = builder.input('x', f32([64, 64]));
  const w = builder.constant(f32([64, 64]), new Float32Array(64 * 64).fill(1 / 64));
  let y = x;
  for (let i = 0; i < n; ++i) y = builder.tanh(builder.add(builder.matmul(y, w), y));
  return y;
}

// Counts timer ticks while `promise` is pending: [ticks, milliseconds].
async function ticksDuring(promise) {
  let ticks = 0;
  const timer = setInterval(() => ++ticks, 1);
  const start = performance.now();
  try {
    await promise;
  } finally {
    clearInterval(timer);
  }
  return [ticks, performance.now() - start];
}

const slowBackend = backends.includes('ort') ? 'ort' : backends[0];

test(`build() does not block the event loop (${slowBackend}, 1500 blocks)`, async () => {
  const context = await navigator.ml.createContext({ backend: slowBackend });
  const builder = new MLGraphBuilder(context);
  const y = chain(builder, 1500);
  const [ticks, ms] = await ticksDuring(builder.build({ y }));
  // A blocked loop would tick at most once or twice; a free one about once per millisecond.
  assert.ok(ms > 100, `the build took ${ms.toFixed(0)} ms: too short to tell`);
  assert.ok(ticks >= ms / 10, `${ticks} ticks in ${ms.toFixed(0)} ms of build`);
});

test('dispatch() returns at once and the work runs off the JavaScript thread', async () => {
  const context = await navigator.ml.createContext({ backend: 'reference' });
  const builder = new MLGraphBuilder(context);
  const graph = await builder.build({ y: chain(builder, 200) });
  const x = await context.createTensor({ ...f32([64, 64]), writable: true });
  const y = await context.createTensor({ ...f32([64, 64]), readable: true });
  const start = performance.now();
  for (let i = 0; i < 10; ++i) context.dispatch(graph, { x }, { y });
  const returned = performance.now() - start;
  const [ticks, ms] = await ticksDuring(context.readTensor(y));
  assert.ok(returned < ms, `dispatch calls took ${returned} ms, the runs ${ms} ms`);
  assert.ok(ms > 50, `the runs took ${ms.toFixed(0)} ms: too short to tell`);
  assert.ok(ticks >= ms / 10, `${ticks} ticks in ${ms.toFixed(0)} ms of dispatch`);
});

test('timeline order: write, dispatch, write, dispatch, then reads see each result', async () => {
  const context = await navigator.ml.createContext({ backend: 'reference' });
  const b = new MLGraphBuilder(context);
  const graph = await b.build({ y: b.mul(b.input('x', f32([4])), b.constant('float32', 2)) });
  const x = await context.createTensor({ ...f32([4]), writable: true });
  const y1 = await context.createTensor({ ...f32([4]), readable: true });
  const y2 = await context.createTensor({ ...f32([4]), readable: true });
  const data = new Float32Array([1, 2, 3, 4]);
  context.writeTensor(x, data);
  context.dispatch(graph, { x }, { y: y1 });
  data.fill(10);  // writeTensor copied at call time
  context.writeTensor(x, data);
  context.dispatch(graph, { x }, { y: y2 });
  const [r2, r1] = await Promise.all([context.readTensor(y2), context.readTensor(y1)]);
  assert.deepEqual([...new Float32Array(r1)], [2, 4, 6, 8]);
  assert.deepEqual([...new Float32Array(r2)], [20, 20, 20, 20]);
});

test('two graphs on two contexts dispatched concurrently both complete correctly', async () => {
  const make = async (factor) => {
    const context = await navigator.ml.createContext({ backend: 'reference' });
    const b = new MLGraphBuilder(context);
    const y = b.mul(chain(b, 100), b.constant('float32', factor));
    const graph = await b.build({ y });
    const x = await context.createTensor({ ...f32([64, 64]), writable: true });
    const out = await context.createTensor({ ...f32([64, 64]), readable: true });
    context.writeTensor(x, new Float32Array(64 * 64).fill(0.25));
    return { context, graph, x, out };
  };
  const [a, b] = await Promise.all([make(1), make(-1)]);
  a.context.dispatch(a.graph, { x: a.x }, { y: a.out });
  b.context.dispatch(b.graph, { x: b.x }, { y: b.out });
  const [ra, rb] = await Promise.all([a.context.readTensor(a.out), b.context.readTensor(b.out)]);
  const va = new Float32Array(ra), vb = new Float32Array(rb);
  assert.ok(va[0] > 0.25);
  for (let i = 0; i < va.length; ++i) assert.equal(vb[i], -va[i]);
});
