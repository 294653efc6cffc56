#!/usr/bin/env node
// Node.js dispatch overhead: on small graphs where the overhead dominates, for each compiled-in
// backend, the microseconds of (a) one dispatch + `await readTensor` round trip from JavaScript
// against the same round trip in C++ (`cppnn bench --json` on the same graph as a .webnn file:
// dispatch + read, median of its rounds), and (b) dispatch calls queued back to back (the
// JavaScript cost of a dispatch while the timeline works). Prints a table and writes
// reports/bench-node-dispatch.json.
//
//     node bench/node_dispatch_bench.js [--iterations N]
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const cppnn = require(path.join(root, 'js'));
const cli = path.join(process.env.CPPNN_BUILD_DIR || path.join(root, 'build'), 'bin', 'cppnn');
const iterations = Number(process.argv[process.argv.indexOf('--iterations') + 1]) || 2000;

const f32 = (shape) => ({ dataType: 'float32', shape });
const eye4 = new Float32Array(16).map((_, i) => (i % 5 === 0 ? 1 : 0));
// Each graph: its builder form and its .webnn text (the same graph for `cppnn bench`).
const graphs = {
  add_2x2: {
    build: (b) => ({ y: b.add(b.input('a', f32([2, 2])), b.input('b', f32([2, 2]))) }),
    inputs: { a: [2, 2], b: [2, 2] }, output: [2, 2],
    text: 'webnn_graph "add" v1 {\n  inputs { a: f32[2, 2]; b: f32[2, 2]; }\n' +
          '  nodes { y = add(a, b); }\n  outputs { y; }\n}\n',
  },
  matmul_4x4: {
    build: (b) => ({ y: b.matmul(b.input('a', f32([4, 4])), b.constant(f32([4, 4]), eye4)) }),
    inputs: { a: [4, 4] }, output: [4, 4],
    text: 'webnn_graph "matmul" v1 {\n  inputs { a: f32[4, 4]; }\n' +
          `  consts { w: f32[4, 4] @bytes([${[...new Uint8Array(eye4.buffer)].join(', ')}]); }\n` +
          '  nodes { y = matmul(a, w); }\n  outputs { y; }\n}\n',
  },
};

// The C++ round trip (dispatch + read) in microseconds: cppnn bench's median.
function cppRoundTripUs(text, backend) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cppnn-node-bench-'));
  try {
    const file = path.join(dir, 'graph.webnn');
    fs.writeFileSync(file, text);
    const out = execFileSync(cli, ['bench', file, '--backend', backend, '--iterations',
                                   String(iterations), '--warmup', '100', '--json']);
    const b = JSON.parse(out).backends[0];
    return b.latency.median_ms * 1000;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function bench(backend, name, g) {
  const context = await navigator.ml.createContext({ backend });
  const builder = new MLGraphBuilder(context);
  const graph = await builder.build(g.build(builder));
  const inputs = {};
  for (const [n, shape] of Object.entries(g.inputs)) {
    inputs[n] = await context.createTensor({ ...f32(shape), writable: true });
    context.writeTensor(inputs[n], new Float32Array(shape[0] * shape[1]).fill(1));
  }
  const y = await context.createTensor({ ...f32(g.output), readable: true });
  const outputs = { y };
  const into = new Float32Array(g.output[0] * g.output[1]);
  for (let i = 0; i < 200; ++i) {  // warm-up
    context.dispatch(graph, inputs, outputs);
    await context.readTensor(y, into);
  }
  const samples = [];
  for (let i = 0; i < iterations; ++i) {
    const start = process.hrtime.bigint();
    context.dispatch(graph, inputs, outputs);
    await context.readTensor(y, into);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  const roundTrip = samples[samples.length >> 1];
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; ++i) context.dispatch(graph, inputs, outputs);
  const queued = Number(process.hrtime.bigint() - start) / 1000 / iterations;
  await context.readTensor(y, into);
  const cpp = cppRoundTripUs(g.text, backend);
  context.destroy();
  return { backend, graph: name, js_round_trip_us: roundTrip, cpp_round_trip_us: cpp,
           ratio: roundTrip / cpp, overhead_us: roundTrip - cpp, js_dispatch_call_us: queued };
}

(async () => {
  cppnn.installPolyfill();
  const results = [];
  for (const backend of cppnn.availableBackends())
    for (const [name, g] of Object.entries(graphs)) results.push(await bench(backend, name, g));
  console.log('backend    graph        JS round trip  C++ round trip  ratio  overhead  JS dispatch call');
  for (const r of results)
    console.log(`${r.backend.padEnd(10)} ${r.graph.padEnd(12)} ${r.js_round_trip_us.toFixed(2).padStart(10)} µs ` +
                `${r.cpp_round_trip_us.toFixed(2).padStart(11)} µs ${r.ratio.toFixed(2).padStart(6)}x ` +
                `${r.overhead_us.toFixed(2).padStart(7)} µs ${r.js_dispatch_call_us.toFixed(2).padStart(10)} µs`);
  fs.mkdirSync(path.join(root, 'reports'), { recursive: true });
  fs.writeFileSync(path.join(root, 'reports', 'bench-node-dispatch.json'),
                   `${JSON.stringify({ iterations, node: process.version, results }, null, 2)}\n`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
