// The conformance suite through the JavaScript API (wpt_conformance.cpp): each case's graph is
// built the way WPT's buildAndExecuteGraph does (graph inputs, constants, operators with their
// positional arguments and options), dispatched once through MLTensors and every output compared
// with the expected descriptor and data under the case's tolerance; cast-storage.json's
// bit-exact storage cases build one identity or cast and dispatch twice.
'use strict';

const path = require('node:path');
const { CaseFailure, numbers, jsNumber, asDouble, dump } = require('./numbers');
const { BITS, VIEWS, UINT_VIEWS, isDataType, elementCount, descriptorStr, encode } =
  require('./encode');
const { Tolerance, checkOutput } = require('./compare');
const { MLGraphBuilder, createContext, errorName, errorText, describe, isPooling, builderMethod,
        asList, jsValue, descriptorProblem } = require('./api');
const { RunnerError, loadJson } = require('./corpus');
const { FAILED, SKIPPED, caseId, caseResult, fileFailure, elapsedMs } = require('./report');

// A malformed case (a required member missing): "corpus: malformed case: ...".
class MalformedCase extends Error {}

// j[key], which must be there (nlohmann's at()).
function at(j, key) {
  if (j === null || typeof j !== 'object' || !Object.prototype.hasOwnProperty.call(j, key))
    throw new MalformedCase(`key '${key}' not found`);
  return j[key];
}

// {dataType, shape} of a corpus descriptor; CaseFailure when it is not a valid descriptor.
function parseDescriptor(j, what) {
  const problem = descriptorProblem(j);
  if (problem) throw new CaseFailure(`corpus: bad descriptor: ${what}: ${problem}`);
  return { dataType: j.dataType, shape: j.shape.map((d) => Math.trunc(Number(d))) };
}

// The failure of an API call at a stage ("build", "dispatch"); rethrows what is no API error.
function apiFailure(stage, e) {
  const name = errorName(e);
  if (name === null) throw e;
  return new CaseFailure(`${stage}: ${name}: ${errorText(e)}`);
}

// One conformance case's graph, built like WPT's buildAndExecuteGraph.
class GraphCase {
  constructor(context, graph) {
    this.context = context;
    this.graph = graph;
    this.inputs = at(graph, 'inputs');
    this.builder = new MLGraphBuilder(context);
    this.operands = new Map();       // operator outputs by name
    this.inputOperands = new Map();  // input() operands by name
    this.data = new Map();           // encoded input data by name
  }

  // Records every operator and builds the graph of the expected outputs; `outputs` receives
  // {name, dataType, shape, expected} of each.
  async build(outputs) {
    for (const op of at(this.graph, 'operators')) this.record(op);
    const named = {};
    for (const [name, exp] of Object.entries(at(this.graph, 'expectedOutputs'))) {
      const found = this.operands.get(name);
      if (found === undefined)
        throw new CaseFailure(`corpus: expected output ${name} is no operator's output`);
      const d = parseDescriptor(at(exp, 'descriptor'), name);
      const out = { name, ...d, expected: numbers(at(exp, 'data')) };
      const gotShape = [...found.shape];
      if (found.dataType !== d.dataType || gotShape.join() !== d.shape.join() ||
          gotShape.length !== d.shape.length)
        throw new CaseFailure(`output ${name} is ${descriptorStr(found.dataType, gotShape)}, ` +
                              `expected ${descriptorStr(d.dataType, d.shape)}`);
      const n = elementCount(d.shape);
      if (out.expected.length !== 1 && out.expected.length !== n)
        throw new CaseFailure(`corpus: expected output ${name} has ${out.expected.length} ` +
                              `values for ${descriptorStr(d.dataType, d.shape)}`);
      named[name] = found;
      outputs.push(out);
    }
    return this.builder.build(named);
  }

  // The encoded data of graph input `name` (encoded once).
  dataOf(name, d) {
    let data = this.data.get(name);
    if (data === undefined) {
      data = encode(at(at(this.inputs, name), 'data'), d.dataType, d.shape, name);
      this.data.set(name, data);
    }
    return data;
  }

  // Binds the graph inputs, dispatches once and returns the outputs' data by name.
  async dispatch(graph, outputs) {
    const ctx = this.context;
    const ins = {};
    const outs = {};
    for (const [name, x] of this.inputOperands) {
      const d = { dataType: x.dataType, shape: [...x.shape] };
      const tensor = await ctx.createTensor({ ...d, readable: false, writable: true });
      ctx.writeTensor(tensor, this.dataOf(name, d));
      ins[name] = tensor;
    }
    for (const o of outputs)
      outs[o.name] = await ctx.createTensor({ dataType: o.dataType, shape: o.shape,
                                              readable: true, writable: false });
    ctx.dispatch(graph, ins, outs);
    const results = new Map();
    for (const [name, t] of Object.entries(outs)) results.set(name, await ctx.readTensor(t));
    for (const t of [...Object.values(ins), ...Object.values(outs)]) t.destroy();
    return results;
  }

  // The operand a name stands for: a graph input (a new constant at every use, one input() per
  // name) or an earlier operator output; undefined for any other value.
  operand(value) {
    if (typeof value !== 'string') return undefined;
    if (Object.prototype.hasOwnProperty.call(this.inputs, value)) {
      const inp = this.inputs[value];
      const d = parseDescriptor(at(inp, 'descriptor'), value);
      if (inp.constant === true) return this.builder.constant(d, this.dataOf(value, d));
      let x = this.inputOperands.get(value);
      if (x === undefined) {
        x = this.builder.input(value, d);
        this.inputOperands.set(value, x);
      }
      return x;
    }
    return this.operands.get(value);
  }

  // An operand for a name, else the literal as the JavaScript value WPT passed.
  operandOr(value) {
    const x = this.operand(value);
    return x !== undefined ? x : jsValue(value);
  }

  // An options dictionary: its members naming operands replaced by them.
  options(o, op) {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return jsValue(o);
    const members = {};
    for (let [key, value] of Object.entries(o)) {
      if (isPooling(op) && key === 'roundingType' && !('outputShapeRounding' in o))
        key = 'outputShapeRounding';  // the pre-rename name (README §8)
      members[key] = this.operandOr(value);
    }
    return members;
  }

  // One positional argument: options, concat's operand list, an operand or a literal.
  argument(op, key, value) {
    if (key === 'options') return this.options(value, op);
    if (op === 'concat' && key === 'inputs' && Array.isArray(value))
      return value.map((v) => this.operandOr(v));
    return this.operandOr(value);
  }

  // Calls the builder method of one corpus operator and names its outputs.
  record(op) {
    const name = at(op, 'name');
    if (typeof name !== 'string') throw new CaseFailure('corpus: an operator name is not a string');
    const args = [];
    for (const a of at(op, 'arguments')) {
      if (a === null) continue;  // a JS array hole: WPT skips it
      if (typeof a !== 'object' || Array.isArray(a))
        throw new CaseFailure(`corpus: ${name}: an argument is not an object`);
      for (const [key, value] of Object.entries(a)) args.push(this.argument(name, key, value));
    }
    const results = asList(builderMethod(this.builder, name).apply(this.builder, args));
    const outs = at(op, 'outputs');
    const names = Array.isArray(outs) ? outs : [outs];
    if (names.length > results.length)
      throw new CaseFailure(`${name} returned ${results.length} operands, the case names ` +
                            `${names.length}`);
    names.forEach((n, i) => this.operands.set(n, results[i]));
  }
}

// The case's tolerance; CaseFailure for an unknown metric.
function toleranceOf(c) {
  const t = at(c, 'tolerance');
  const metric = at(t, 'metricType');
  if (metric !== 'ULP' && metric !== 'ATOL')
    throw new CaseFailure(`corpus: unknown metricType "${metric}"`);
  return new Tolerance(metric, asDouble(jsNumber(at(t, 'value'))));
}

// {maxError, failure ('' when all outputs pass)}.
function compareOutputs(outputs, results, tol, exact) {
  let maxError = 0;
  let failure = '';
  for (const o of outputs) {
    const k = checkOutput(o.dataType, results.get(o.name), elementCount(o.shape), o.expected, tol,
                          exact);
    if (k.maxError > maxError) maxError = k.maxError;
    if (k.mismatches && !failure)
      failure = `${o.name}: ${k.mismatches} of ${k.checked} elements differ, first ${k.first}`;
  }
  return { maxError, failure };
}

// Builds, dispatches and compares one graph case: {maxError, failure}.
async function runGraphCase(context, c, tol) {
  const g = new GraphCase(context, at(c, 'graph'));
  const outputs = [];
  let graph;
  try {
    graph = await g.build(outputs);
  } catch (e) {
    if (e instanceof CaseFailure || e instanceof MalformedCase) throw e;
    throw apiFailure('build', e);
  }
  let results;
  try {
    results = await g.dispatch(graph, outputs);
  } catch (e) {
    if (e instanceof CaseFailure || e instanceof MalformedCase) throw e;
    throw apiFailure('dispatch', e);
  } finally {
    graph.destroy();
  }
  return compareOutputs(outputs, results, tol, c.exactCompare === true);
}

// Whether float bits `b` of `dataType` are a NaN.
function isNanBits(dataType, b) {
  if (dataType === 'float16') return (b & 0x7c00) === 0x7c00 && (b & 0x03ff) !== 0;
  if (dataType === 'float32') return (b & 0x7f800000) === 0x7f800000 && (b & 0x7fffff) !== 0;
  return false;
}

// cast-storage.json's bit-exact storage cases: one identity or cast, dispatched twice.
async function runStorageCase(context, c) {
  const type = (j) => {
    if (!isDataType(j)) throw new CaseFailure(`corpus: unknown data type ${dump(j)}`);
    return j;
  };
  const inType = type(at(c, 'inputType'));
  const outType = type(at(c, 'outputType'));
  const shape = at(c, 'shape').map(Number);
  const n = elementCount(shape);
  const inBits = at(c, 'inputBits');
  const expected = at(c, 'expectedBits');
  if (BITS[inType] < 8 || BITS[outType] < 8)
    throw new CaseFailure('corpus: bit-exact cases need whole-byte data types');
  if (inBits.length !== n || expected.length !== n)
    throw new CaseFailure('corpus: inputBits/expectedBits do not have one value per element');
  // The bits in an unsigned view, handed over as the type's own view (a Float32Array for float32).
  const InBits = UINT_VIEWS[BITS[inType]];
  const raw = new InBits(n);
  inBits.forEach((v, i) => { raw[i] = InBits === BigUint64Array ? BigInt(v) : Number(v); });
  const data = new VIEWS[inType](raw.buffer);
  const desc = { dataType: inType, shape };
  let graph;
  try {
    const b = new MLGraphBuilder(context);
    const x = c.constant === true ? b.constant(desc, data) : b.input('input', desc);
    const op = at(c, 'operator');
    const method = builderMethod(b, op);
    const y = asList(op === 'cast' ? method.call(b, x, outType) : method.call(b, x))[0];
    graph = await b.build({ output: y });
  } catch (e) {
    if (e instanceof CaseFailure) throw e;
    throw apiFailure('build', e);
  }
  let maxError = 0;
  let failure = '';
  try {
    const ins = {};
    if (c.constant !== true) {
      const t = await context.createTensor({ ...desc, readable: false, writable: true });
      context.writeTensor(t, data);
      ins.input = t;
    }
    const out = await context.createTensor({ dataType: outType, shape, readable: true,
                                             writable: false });
    const OutBits = UINT_VIEWS[BITS[outType]];
    for (const run of [1, 2]) {  // WPT dispatches twice; both must match
      context.dispatch(graph, ins, { output: out });
      const got = new OutBits(await context.readTensor(out));
      for (let i = 0; i < n && !failure; i++) {
        const g = got[i];
        const e = OutBits === BigUint64Array ? BigInt(expected[i]) : Number(expected[i]);
        if (g === e || (isNanBits(outType, e) && isNanBits(outType, g))) continue;
        maxError = 1;
        failure = `dispatch ${run}: [${i}] bits ${g}, expected ${e}`;
      }
    }
  } catch (e) {
    throw apiFailure('dispatch', e);
  }
  return { maxError, failure };
}

// One case: {id, file, name, variant, status, message, timeMs, fields: {metric, tolerance,
// max_error}}.
async function runConformanceCase(file, c, context) {
  const start = process.hrtime.bigint();
  const name = typeof c.name === 'string' ? c.name : '';
  const r = caseResult(file, name, null, { metric: null, tolerance: null, max_error: null });
  try {
    const storage = !('graph' in c) && 'expectedBits' in c;
    if (c.dynamicShapes === true) {
      r.status = SKIPPED;
      r.message = 'dynamic-shape descriptors (a WebNN proposal) are not supported';
    } else if (storage) {
      r.fields.metric = 'bitExact';
      r.fields.tolerance = 0;
      const o = await runStorageCase(context, c);
      r.fields.max_error = o.maxError;
      if (o.failure) r.status = FAILED;
      r.message = o.failure;
    } else {
      const tol = toleranceOf(c);
      r.fields.metric = tol.metric;
      r.fields.tolerance = tol.value;
      const o = await runGraphCase(context, c, tol);
      r.fields.max_error = o.maxError;  // an infinite error is written as null
      if (o.failure) r.status = FAILED;
      r.message = o.failure;
    }
  } catch (e) {
    r.status = FAILED;
    if (e instanceof CaseFailure) r.message = e.message;
    else if (e instanceof MalformedCase) r.message = `corpus: malformed case: ${e.message}`;
    else if (errorName(e) !== null) r.message = `${errorName(e)}: ${errorText(e)}`;
    else r.message = `unexpected exception (not a WebNN API error): ${describe(e)}`;
  }
  r.timeMs = elapsedMs(start);
  return r;
}

// Runs the cases of one conformance file whose id contains `filter` on state.context (replaced
// by a new context of the same backend when it is lost). A file that cannot be loaded gives one
// failed case.
async function runConformanceFile(file, filter, state) {
  const name = path.basename(file);
  let cases;
  try {
    cases = loadJson(file);
    if (!Array.isArray(cases)) throw new RunnerError(`${file}: expected an array of cases`);
  } catch (e) {
    if (!(e instanceof RunnerError)) throw e;
    return name.includes(filter) ? [fileFailure(name, e.message)] : [];
  }
  const results = [];
  for (const c of cases) {
    const isObject = c !== null && typeof c === 'object' && !Array.isArray(c);
    const cname = isObject && typeof c.name === 'string' ? c.name : '';
    if (!caseId(name, cname, null).includes(filter)) continue;
    if (state.lost) await createContext(state.context.backend, state);
    if (!isObject) {
      const r = caseResult(name, '', null, { metric: null, tolerance: null, max_error: null });
      r.status = FAILED;
      r.message = 'corpus: malformed case: not an object';
      results.push(r);
      continue;
    }
    results.push(await runConformanceCase(name, c, state.context));
  }
  return results;
}

module.exports = { GraphCase, parseDescriptor, compareOutputs, runConformanceCase,
                   runConformanceFile };
