// The WebNN API through JavaScript on every compiled-in backend: objects and attributes, the
// constant() overloads, ops with options dictionaries and BigInt, tensors and reads, errors as
// TypeError/DOMException, destroy() and the lost promise, and the polyfill.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { cppnn, backends, compute } = require('./helpers');

const f32 = (shape) => ({ dataType: 'float32', shape });

test('installPolyfill sets navigator.ml and the interface globals once', () => {
  assert.equal(navigator.ml, cppnn.ml);
  assert.equal(globalThis.MLGraphBuilder, cppnn.MLGraphBuilder);
  const target = {};
  assert.equal(cppnn.installPolyfill(target), cppnn.ml);
  const other = { navigator: { ml: 'theirs' } };
  assert.equal(cppnn.installPolyfill(other), 'theirs');  // an existing navigator.ml is kept
  assert.equal(Object.prototype.toString.call(navigator.ml), '[object ML]');
});

test('interfaces without a spec constructor throw TypeError when constructed', () => {
  for (const C of [cppnn.MLContext, cppnn.MLOperand, cppnn.MLGraph, cppnn.MLTensor])
    assert.throws(() => new C(), TypeError);
  assert.throws(() => new cppnn.MLGraphBuilder({}), TypeError);
});

test('createContext rejects bad options with TypeError and an unknown backend', async () => {
  await assert.rejects(navigator.ml.createContext({ powerPreference: 'fast' }), TypeError);
  await assert.rejects(navigator.ml.createContext(5), TypeError);
  await assert.rejects(navigator.ml.createContext({ numThreads: -1 }), TypeError);
  await assert.rejects(navigator.ml.createContext({ backend: 'nope' }),
                       (e) => e instanceof DOMException && e.name === 'NotSupportedError');
});

for (const backend of backends) {
  test(`${backend}: a small graph with options, constants of every form, split and BigInt`,
       async () => {
    const context = await navigator.ml.createContext({ backend });
    assert.equal(context.backend, backend);
    assert.equal(context.accelerated, false);
    const b = new MLGraphBuilder(context);
    const x = b.input('x', f32([2, 3]));
    assert.equal(x.dataType, 'float32');
    assert.deepEqual(x.shape, [2, 3]);
    assert.ok(Object.isFrozen(x.shape));
    const w = b.constant(f32([2, 3]), new Float32Array([1, 2, 3, 4, 5, 6]));
    const shared = new SharedArrayBuffer(24);
    new Float32Array(shared).set([1, 1, 1, 1, 1, 1]);
    const ones = b.constant(f32([2, 3]), shared);
    const half = b.constant('float32', 0.5);
    const y = b.clamp(b.mul(b.add(b.add(x, w), ones), half), { minValue: 0, maxValue: 4 });
    const parts = b.split(y, [1, 2], { axis: 1, label: 'parts' });
    assert.ok(Array.isArray(parts));
    assert.deepEqual(parts.map((p) => p.shape), [[2, 1], [2, 2]]);
    const i64 = b.constant({ dataType: 'int64', shape: [2] },
                           new BigInt64Array([9007199254740993n, -3n]));
    const big = b.add(i64, b.constant('int64', 1n));
    const graph = await b.build({ y, tail: parts[1], big });
    const r = await compute(context, graph, { x: [f32([2, 3]), new Float32Array([0, 1, 2, -10, 0, 10])] },
                            { y: f32([2, 3]), tail: f32([2, 2]), big: { dataType: 'int64', shape: [2] } });
    assert.deepEqual([...new Float32Array(r.y)], [1, 2, 3, 0, 3, 4]);
    assert.deepEqual([...new Float32Array(r.tail)], [2, 3, 3, 4]);
    assert.deepEqual([...new BigInt64Array(r.big)], [9007199254740994n, -2n]);
  });

  test(`${backend}: errors are TypeError or DOMException with the spec's names`, async () => {
    const context = await navigator.ml.createContext({ backend });
    const b = new MLGraphBuilder(context);
    const x = b.input('x', f32([2, 2]));
    assert.throws(() => b.conv2d(x, x), (e) => e instanceof TypeError && /conv2d/.test(e.message));
    assert.throws(() => b.add(x, 'x'), TypeError);
    assert.throws(() => b.reshape(x, [3]), TypeError);
    assert.throws(() => b.input('y', { dataType: 'float99', shape: [1] }), TypeError);
    assert.throws(() => b.constant(f32([2]), new Float32Array(3)), TypeError);
    assert.throws(() => b.add(x, x, { label: Symbol('s') }), TypeError);
    const cyclic = {};
    cyclic.self = cyclic;
    assert.throws(() => b.add(x, x, cyclic), TypeError);
    await assert.rejects(b.build({}), TypeError);
    await assert.rejects(b.build({ x }), TypeError);  // an input is not an output
    const other = new MLGraphBuilder(context);
    await assert.rejects(other.build({ y: b.relu(x) }), TypeError);
    const y = b.relu(x);
    const graph = await b.build({ y });
    assert.throws(() => b.relu(x), (e) => e instanceof DOMException && e.name === 'InvalidStateError');
    await assert.rejects(b.build({ y }), (e) => e.name === 'InvalidStateError');
    const t = await context.createTensor({ ...f32([2, 2]), readable: true });
    assert.throws(() => context.writeTensor(t, new Float32Array(4)), TypeError);  // not writable
    await assert.rejects(context.readTensor(t, new Float32Array(3)), TypeError);
    await assert.rejects(context.createTensor(f32([0])), TypeError);
    assert.throws(() => context.dispatch(graph, {}, {}), TypeError);
    assert.throws(() => context.dispatch({}, {}, {}), TypeError);
    graph.destroy();
    graph.destroy();  // idempotent
    assert.throws(() => context.dispatch(graph, {}, {}),
                  (e) => e instanceof DOMException && e.name === 'InvalidStateError');
  });

  test(`${backend}: readTensor into a buffer, destroy() rejects pending reads, lost`, async () => {
    const context = await navigator.ml.createContext({ backend });
    const t = await context.createTensor({ ...f32([4]), readable: true, writable: true });
    assert.deepEqual([t.dataType, t.shape, t.readable, t.writable, t.constant],
                     ['float32', [4], true, true, false]);
    context.writeTensor(t, new Float32Array([1, 2, 3, 4]));
    const into = new Float32Array(4);
    assert.equal(await context.readTensor(t, into), undefined);
    assert.deepEqual([...into], [1, 2, 3, 4]);
    const bytes = new Uint8Array(16);  // a Uint8Array fits any data type
    await context.readTensor(t, bytes);
    assert.equal(new DataView(bytes.buffer).getFloat32(12, true), 4);
    // Other views must match the data type ("validate buffer with descriptor").
    await assert.rejects(context.readTensor(t, new DataView(new ArrayBuffer(16))), TypeError);
    await assert.rejects(context.readTensor(t, new Int32Array(4)), TypeError);
    assert.throws(() => context.writeTensor(t, new Uint32Array(4)), TypeError);
    const b16 = new MLGraphBuilder(context);
    assert.throws(() => b16.constant({ dataType: 'float16', shape: [2] }, new Int16Array(2)), TypeError);
    b16.constant({ dataType: 'float16', shape: [2] }, new Uint16Array(2));  // float16 bits
    b16.constant({ dataType: 'int4', shape: [4] }, new Uint8Array(2));     // packed nibbles
    await assert.rejects(context.createConstantTensor(f32([1]), new Int32Array(1)), TypeError);
    const pending = context.readTensor(t);
    t.destroy();
    await assert.rejects(pending, (e) => e.name === 'InvalidStateError');
    assert.throws(() => context.writeTensor(t, new Float32Array(4)), TypeError);
    await assert.rejects(context.readTensor(t), TypeError);
    const c = await context.createConstantTensor(f32([2]), new Float32Array([5, 6]));
    assert.equal(c.constant, true);
    const b = new MLGraphBuilder(context);
    const y = b.add(b.constant(c), b.input('x', f32([2])));
    const g = await b.build({ y });
    const r = await compute(context, g, { x: [f32([2]), new Float32Array([1, 1])] }, { y: f32([2]) });
    assert.deepEqual([...new Float32Array(r.y)], [6, 7]);
    const limits = context.opSupportLimits();
    assert.ok(limits.conv2d && limits.input && typeof limits.maxTensorByteLength === 'number');
    const lost = context.lost;
    assert.equal(context.lost, lost);
    context.destroy();
    assert.equal(typeof (await lost).message, 'string');
    await assert.rejects(context.createTensor(f32([1])), (e) => e.name === 'InvalidStateError');
    assert.throws(() => new MLGraphBuilder(context), (e) => e.name === 'InvalidStateError');
  });
}
