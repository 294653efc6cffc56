// `cppnn emit-js` modules run in Node on the polyfill (webnn-graph-format.md §9): for a small
// graph with every constant kind and the file model's API forms (positional parameters, operand
// options, concat lists, multi-output nodes) on every backend, and for the PaddleOCR models
// (scripts/fetch-models.sh) on the first backend, the module is imported, its WeightsFile loads
// the WGWT weights + manifest written by `cppnn extract-weights`, buildGraph builds the graph,
// and its outputs on fixed inputs match `cppnn run` on the same graph, weights and inputs.
// Also the WeightsFile checks (manifest format and version, magic, header version, lookups).
//
// Node-only step: Node's fetch does not read file: URLs, and WeightsFile.load fetches its two
// files, so this test routes file: URLs to the file system while it runs (installFileFetch).
// The tool is ../build/bin/cppnn (CPPNN_TOOL overrides); without it the tests are skipped.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { pathToFileURL } = require('node:url');
const { backends } = require('./helpers');

const root = path.join(__dirname, '..', '..');
const tool = process.env.CPPNN_TOOL || path.join(root, 'build', 'bin', 'cppnn');
const models = path.join(root, '.deps', 'models');
const noTool = fs.existsSync(tool) ? false : `no cppnn tool at ${tool} (make build)`;

let work;
test.before(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'cppnn-emit-js-')); });
test.after(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

// Runs the cppnn tool; its stdout as a string (throws with its stderr on failure).
function cppnn(...args) {
  try {
    return execFileSync(tool, args,
      { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`cppnn ${args.join(' ')} failed: ${e.stderr || e.message}`);
  }
}

// globalThis.fetch answering file: URLs from the file system (404 when unreadable); returns the
// function that puts the original back.
function installFileFetch() {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url);
    if (url.protocol !== 'file:') return original(input, init);
    try {
      return new Response(await fs.promises.readFile(url), { status: 200 });
    } catch (e) {
      return new Response(null, { status: 404, statusText: e.code || 'Not Found' });
    }
  };
  return () => { globalThis.fetch = original; };
}

// .npy files (version 1.0) for `cppnn run --input` and `--output-dir`.
const NPY = {
  float32: ['<f4', Float32Array], float16: ['<f2', Uint16Array], int32: ['<i4', Int32Array],
  uint32: ['<u4', Uint32Array], int64: ['<i8', BigInt64Array], uint64: ['<u8', BigUint64Array],
  int8: ['|i1', Int8Array], uint8: ['|u1', Uint8Array],
};

function writeNpy(file, dataType, shape, data) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${NPY[dataType][0]}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  Buffer.from([0x93, ...Buffer.from('NUMPY'), 1, 0]).copy(head);
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

function readNpy(file) {
  const b = fs.readFileSync(file);
  assert.equal(b.subarray(1, 6).toString('latin1'), 'NUMPY', file);
  const long = b[6] >= 2;
  const length = long ? b.readUInt32LE(8) : b.readUInt16LE(8);
  const start = (long ? 12 : 10);
  const header = b.subarray(start, start + length).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim())
    .filter((s) => s).map(Number);
  const dataType = Object.keys(NPY).find((t) => NPY[t][0] === descr);
  assert.ok(dataType, `${file}: dtype ${descr}`);
  const bytes = b.subarray(start + length);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return { dataType, shape, data: new NPY[dataType][1](copy.buffer) };
}

// Deterministic values in [lo, hi) (a linear congruential generator).
function values(n, seed, lo = -1, hi = 1) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + (hi - lo) * (s / 2 ** 32);
  });
}

// f32 values as the byte list of a @bytes([...]) initializer.
function bytesOf(floats) {
  return Array.from(new Uint8Array(floats.buffer)).join(', ');
}

let moduleCount = 0;
// Emits GRAPH as a module, imports it, builds it with its WeightsFile over WEIGHTS + MANIFEST
// on BACKEND, dispatches INPUTS ({name: [descriptor, typed array]}) and compares every output
// with `cppnn run` on the same files; `tolerance` is [atol, rtol] for floats.
async function checkAgainstRun(graph, weights, manifest, backend, inputs, tolerance) {
  const module = path.join(work, `module_${++moduleCount}.mjs`);
  fs.writeFileSync(module, cppnn('emit-js', graph));
  const runArgs = ['run', graph, '--weights', weights, '--weights-manifest', manifest,
    '--backend', backend, '--output-dir', path.join(work, `out_${moduleCount}`)];
  for (const [name, [d, data]] of Object.entries(inputs)) {
    const file = path.join(work, `in_${moduleCount}_${Object.keys(inputs).indexOf(name)}.npy`);
    writeNpy(file, d.dataType, d.shape, data);
    runArgs.push('--input', `${name}=${file}`);
  }
  // `name: float32 [1, 2] -> DIR/name.npy` per output.
  const expected = {};
  for (const line of cppnn(...runArgs).split('\n')) {
    const m = /^(.*): \S+ \[[^\]]*\] -> (.*)$/.exec(line);
    if (m) expected[m[1]] = readNpy(m[2]);
  }
  assert.ok(Object.keys(expected).length > 0, 'cppnn run wrote no outputs');

  const { WeightsFile, buildGraph } = await import(pathToFileURL(module).href);
  const restore = installFileFetch();
  let file;
  try {
    file = await WeightsFile.load(pathToFileURL(weights).href, pathToFileURL(manifest).href);
  } finally {
    restore();
  }
  const context = await navigator.ml.createContext({ backend });
  try {
    const graphObject = await buildGraph(context, file);
    const ins = {};
    for (const [name, [d, data]] of Object.entries(inputs)) {
      ins[name] = await context.createTensor({ ...d, writable: true });
      context.writeTensor(ins[name], data);
    }
    const outs = {};
    for (const [name, e] of Object.entries(expected))
      outs[name] = await context.createTensor(
        { dataType: e.dataType, shape: e.shape, readable: true });
    context.dispatch(graphObject, ins, outs);
    for (const [name, e] of Object.entries(expected)) {
      const got = new NPY[e.dataType][1](await context.readTensor(outs[name]));
      assert.equal(got.length, e.data.length, `${name}: element count`);
      if (e.dataType === 'float32') {
        const [atol, rtol] = tolerance;
        let worst = -1, worstAt = -1;
        for (let i = 0; i < got.length; ++i) {
          const excess = Math.abs(got[i] - e.data[i]) - (atol + rtol * Math.abs(e.data[i]));
          if (!(excess <= 0) && (worst < 0 || excess > worst || Number.isNaN(excess))) {
            worst = excess; worstAt = i;
          }
        }
        assert.ok(worstAt < 0,
          `${name}[${worstAt}]: ${got[worstAt]} vs cppnn run ${e.data[worstAt]}`);
      } else {
        assert.deepEqual(got, e.data, `${name}: differs from cppnn run`);
      }
    }
  } finally {
    context.destroy();
  }
}

// A small graph: every constant kind (WGWT weights from extract-weights, a plain scalar, a
// scalar filling a shape, inline bytes added after the extraction), conv2d with a bias option,
// reshape, split into two, concat, cast to int32 and softmax.
function smallGraph() {
  const dir = path.join(work, 'small');
  fs.mkdirSync(dir, { recursive: true });
  const text = `webnn_graph "emit_js_small" v2 {
  inputs { x: f32[1, 2, 4, 4]; }
  consts {
    w: f32[3, 2, 3, 3] @bytes([${bytesOf(values(54, 1))}]);
    b: f32[3] @bytes([${bytesOf(values(3, 2))}]);
    half: f32[] @scalar(0.5);
    two: f32[1, 3, 1, 1] @scalar(2);
  }
  nodes {
    c = conv2d(x, w, bias=b, padding=[1, 1, 1, 1]);
    s = mul(c, half);
    t = add(s, two);
    r = reshape(t, newShape=[3, 16]);
    [p, q] = split(r, splits=[1, 2], axis=0);
    k = concat(q, p, axis=0);
    m = add(k, mask);
    i = cast(m, dataType="i32");
    sm = softmax(m, axis=1);
  }
  outputs { sm; i; q; }
}
`;
  fs.writeFileSync(path.join(dir, 'g.webnn'), text.replace('add(k, mask)', 'add(k, k)'));
  const weights = path.join(dir, 'g.weights'), manifest = path.join(dir, 'g.manifest.json');
  const extracted = path.join(dir, 'extracted.json');
  cppnn('extract-weights', '--input', path.join(dir, 'g.webnn'),
    '--output-dir', path.join(dir, 'tensors'),
    '--weights', weights, '--manifest', manifest, '--output-graph', extracted);
  // Put an inline-bytes constant back (extract-weights moved every one to the WGWT file).
  const doc = JSON.parse(fs.readFileSync(extracted, 'utf8'));
  doc.consts.mask = { dataType: 'float32', shape: [16],
    init: { kind: 'inlineBytes', bytes: Array.from(new Uint8Array(values(16, 3, -4, 4).buffer)) } };
  doc.nodes.find((n) => n.id === 'm').inputs = ['k', 'mask'];
  const graph = path.join(dir, 'g.json');
  fs.writeFileSync(graph, JSON.stringify(doc, null, 2));
  return { graph, weights, manifest };
}

for (const backend of backends) {
  test(`emit-js: a small graph matches cppnn run (${backend})`, { skip: noTool }, async () => {
    const { graph, weights, manifest } = smallGraph();
    const x = values(32, 7, -3, 3);
    await checkAgainstRun(graph, weights, manifest, backend,
      { x: [{ dataType: 'float32', shape: [1, 2, 4, 4] }, x] }, [1e-5, 1e-5]);
  });
}

// The OCR demo's models, converted like tests/CMakeLists.txt's paddleocr tests do.
const ocr = [
  ['det', 'ch_PP-OCRv4_det_infer.onnx',
    ['p2o.DynamicDimension.1=320', 'p2o.DynamicDimension.2=320'], [1, 3, 320, 320]],
  ['rec', 'ch_PP-OCRv4_rec_infer.onnx', ['p2o.DynamicDimension.1=320'], [1, 3, 48, 320]],
];
for (const [name, onnx, dims, shape] of ocr) {
  const model = path.join(models, onnx);
  const skip = noTool || (fs.existsSync(model) ? false : `no ${model} (scripts/fetch-models.sh)`);
  const title = `emit-js: the OCR ${name} model matches cppnn run (${backends[0]})`;
  test(title, { skip, timeout: 600000 },
    async () => {
      const dir = path.join(work, name);
      fs.mkdirSync(dir, { recursive: true });
      const inline = path.join(dir, `${name}.inline.json`);
      cppnn('convert-onnx', model, '--inline-weights', '-o', inline,
        ...dims.flatMap((d) => ['--override-dim', d]));
      const graph = path.join(dir, `${name}.json`);
      const weights = path.join(dir, `${name}.weights`);
      const manifest = path.join(dir, `${name}.manifest.json`);
      cppnn('extract-weights', '--input', inline, '--output-dir', path.join(dir, 'tensors'),
        '--weights', weights, '--manifest', manifest, '--output-graph', graph);
      fs.rmSync(inline);
      fs.rmSync(path.join(dir, 'tensors'), { recursive: true });
      const input = Object.keys(JSON.parse(fs.readFileSync(graph, 'utf8')).inputs)[0];
      const n = shape.reduce((a, b) => a * b);
      await checkAgainstRun(graph, weights, manifest, backends[0],
        { [input]: [{ dataType: 'float32', shape }, values(n, 11, 0, 1)] }, [1e-4, 1e-3]);
    });
}

// WeightsFile (§9 part 1): the header and manifest checks, lookups and slices.
test('emit-js: WeightsFile checks and lookups', { skip: noTool }, async () => {
  const dir = path.join(work, 'weights_file');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'g.webnn'),
    'webnn_graph "g" v1 { consts { a: u8[3] @bytes([1, 2, 3]); b: u8[2] @bytes([9, 8]); } ' +
    'nodes { y = add(a, a); } outputs { y; } }\n');
  const weights = path.join(dir, 'g.weights'), manifest = path.join(dir, 'g.manifest.json');
  cppnn('extract-weights', '--input', path.join(dir, 'g.webnn'),
    '--output-dir', path.join(dir, 't'),
    '--weights', weights, '--manifest', manifest, '--output-graph', path.join(dir, 'g.json'));
  const module = path.join(dir, 'g.mjs');
  fs.writeFileSync(module, cppnn('emit-js', path.join(dir, 'g.json')));
  const { WeightsFile } = await import(pathToFileURL(module).href);
  const url = (f) => pathToFileURL(path.join(dir, f)).href;
  const write = (f, data) => fs.writeFileSync(path.join(dir, f), data);
  const restore = installFileFetch();
  try {
    const w = await WeightsFile.load(url('g.weights'), url('g.manifest.json'));
    assert.deepEqual(w.getTensorNames().sort(), ['a', 'b']);
    assert.equal(w.getSlice('a').byteOffset, 8);
    assert.deepEqual(Array.from(new Uint8Array(w.getData('a'))), [1, 2, 3]);
    assert.deepEqual(Array.from(new Uint8Array(w.getData('b'))), [9, 8]);
    assert.throws(() => w.getSlice('nope'), { message: 'Tensor not found in manifest: nope' });
    assert.throws(() => w.getSlice('constructor'), /Tensor not found in manifest: constructor/);

    const good = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    write('format.json', JSON.stringify({ ...good, format: 'other' }));
    await assert.rejects(WeightsFile.load(url('g.weights'), url('format.json')),
      /Invalid manifest format: other/);
    write('version.json', JSON.stringify({ ...good, version: 2 }));
    await assert.rejects(WeightsFile.load(url('g.weights'), url('version.json')),
      /Unsupported manifest version: 2/);
    const bytes = fs.readFileSync(weights);
    write('magic.weights', Buffer.concat([Buffer.from('XGWT'), bytes.subarray(4)]));
    await assert.rejects(WeightsFile.load(url('magic.weights'), url('g.manifest.json')),
      /Invalid weights file magic/);
    const v2 = Buffer.from(bytes);
    v2.writeUInt32LE(2, 4);
    write('v2.weights', v2);
    await assert.rejects(WeightsFile.load(url('v2.weights'), url('g.manifest.json')),
      /Unsupported weights file version: 2/);
    await assert.rejects(WeightsFile.load(url('missing.weights'), url('g.manifest.json')),
      /Failed to load weights: /);
    await assert.rejects(WeightsFile.load(url('g.weights'), url('missing.json')),
      /Failed to load manifest: /);
  } finally {
    restore();
  }
});
