// Shared by the node:test files: the package with navigator.ml installed, the backends to test
// (CPPNN_NODE_BACKENDS, default every compiled-in one) and small graph helpers.
'use strict';
const cppnn = require('..');

cppnn.installPolyfill();

const backends = process.env.CPPNN_NODE_BACKENDS
  ? process.env.CPPNN_NODE_BACKENDS.split(',')
  : cppnn.availableBackends();

// Writes `data` to a new writable tensor of `descriptor`.
async function inputTensor(context, descriptor, data) {
  const t = await context.createTensor({ ...descriptor, writable: true });
  context.writeTensor(t, data);
  return t;
}

// Runs `graph` once: inputs as {name: [descriptor, typed array]}, outputs as {name: descriptor};
// returns {name: ArrayBuffer}.
async function compute(context, graph, inputs, outputs) {
  const ins = {};
  for (const [name, [d, data]] of Object.entries(inputs))
    ins[name] = await inputTensor(context, d, data);
  const outs = {};
  for (const [name, d] of Object.entries(outputs))
    outs[name] = await context.createTensor({ ...d, readable: true });
  context.dispatch(graph, ins, outs);
  const results = {};
  for (const [name, t] of Object.entries(outs)) results[name] = await context.readTensor(t);
  return results;
}

module.exports = { cppnn, backends, inputTensor, compute };
