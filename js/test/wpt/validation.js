// The validation suite through the JavaScript API (wpt_validation.cpp): each recorded trace is
// replayed as real JavaScript calls on a builder (the trace's values as the JavaScript values WPT
// passed: typed arrays, ArrayBuffers, numbers, dictionaries), checking what WPT requires of each
// step: success with the expected output descriptors, or the expected exception (and the label in
// its message). As in the C++ runner, a successful input() or constant() of a data type outside
// the context's opSupportLimits() is not run (nor anything using its operand), and a successful
// op call whose operands (or expected outputs) are outside the op's limits must throw TypeError.
'use strict';

const path = require('node:path');
const { isExactInteger } = require('./numbers');
const { DATA_TYPES, isDataType, descriptorStr, toHalf, bigIntBits } = require('./encode');
const { MLOperand, MLGraphBuilder, createContext, errorName, errorText, describe, isPooling,
        POSITIONAL_OPERANDS, PARAM_KINDS, OPTION_OPERANDS, builderMethod, asList, jsValue,
        descriptorProblem, isUnsignedLong } = require('./api');
const { RunnerError, loadJson } = require('./corpus');
const { FAILED, SKIPPED, caseId, caseResult, fileFailure, elapsedMs } = require('./report');

// The step cannot run: it uses an operand WPT would not have created under the real limits.
const NOT_RUN = Symbol('not run');

// A step failed; the case fails with this message.
class StepFailure extends Error {}

// A required member of a recorded call is missing.
class MalformedTrace extends Error {}

// j[key], which must be there (nlohmann's at()).
function at(j, key) {
  if (j === null || typeof j !== 'object' || !Object.prototype.hasOwnProperty.call(j, key))
    throw new MalformedTrace(`key '${key}' not found`);
  return j[key];
}

// Whether object `j` has its own member `key`.
function has(j, key) {
  return j !== null && typeof j === 'object' && Object.prototype.hasOwnProperty.call(j, key);
}

// What a step requires: {success, error ("TypeError", "InvalidStateError", ...), text}.
function parseExpect(s) {
  if (s === 'success') return { success: true, error: '', text: s };
  for (const verb of ['throws ', 'rejects ']) {
    if (typeof s === 'string' && s.startsWith(verb)) {
      let rest = s.slice(verb.length);
      if (rest.startsWith('DOMException ')) rest = rest.slice('DOMException '.length);
      return { success: false, error: rest, text: s };
    }
  }
  throw new RunnerError(`unknown expectation "${s}"`);
}

const labelCache = new Map();

// The pattern of a recorded JavaScript regex literal ("/\\[label\\]/" -> /\[label\]/), without
// its flags (as the C++ runner reads it).
function labelRegex(literal) {
  let r = labelCache.get(literal);
  if (r === undefined) {
    let pattern = literal;
    if (pattern.length >= 2 && pattern[0] === '/')
      pattern = pattern.slice(1, pattern.lastIndexOf('/'));
    r = new RegExp(pattern);
    labelCache.set(literal, r);
  }
  return r;
}

// The typed array types a trace records, as Node 20 has them (Float16Array: Uint16Array bits).
const TYPED_ARRAYS = {
  Float32Array, Float16Array: Uint16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array,
  BigUint64Array, Int8Array, Uint8Array, Int16Array, Uint8ClampedArray, Float64Array,
};

// A recorded buffer argument ({"arrayBuffer": n} or {"typedArray": name, "length", "byteLength",
// "values"?}) as the ArrayBuffer or typed array WPT passed (zeros where no values were recorded);
// undefined when `j` is no recorded buffer.
function bufferOf(j) {
  if (has(j, 'arrayBuffer')) return new ArrayBuffer(Number(j.arrayBuffer));
  if (!has(j, 'typedArray')) return undefined;
  const name = j.typedArray;
  const View = Object.prototype.hasOwnProperty.call(TYPED_ARRAYS, name) ? TYPED_ARRAYS[name]
    : undefined;
  if (View === undefined) throw new RunnerError(`unknown typed array type ${name}`);
  const byteLength = Number(j.byteLength ?? 0);
  const view = new View(Math.floor(byteLength / View.BYTES_PER_ELEMENT));
  const values = j.values;
  if (!Array.isArray(values) || values.length !== view.length) return view;
  const big = View === BigInt64Array || View === BigUint64Array;
  values.forEach((v, i) => {
    const x = jsValue(v);
    if (big) view[i] = bigIntBits(x, View === BigInt64Array);
    else if (name === 'Float16Array') view[i] = toHalf(Number(x));
    else view[i] = Number(x);
  });
  return view;
}

// One test's replay: one context, builders by index, operands by id.
class Replay {
  constructor(context, limits) {
    this.context = context;
    this.limits = limits;
    this.builders = new Map();
    this.slots = new Map();  // operand id -> {operand, unsupported}
    this.step = 0;
    this.flipped = 0;  // successful calls that had to throw TypeError under the real limits
  }

  // Runs every step; throws StepFailure at the first failing one. Returns a note on what the
  // support limits changed ("" when nothing).
  async run(steps) {
    let notRun = 0;
    for (let i = 0; i < steps.length; i++) {
      this.step = i + 1;
      try {
        await this.runStep(steps[i]);
      } catch (e) {
        if (e !== NOT_RUN) throw e;
        notRun++;
      }
    }
    if (!notRun && !this.flipped) return '';
    return `outside opSupportLimits(): ${notRun} steps not run, ${this.flipped} calls expected ` +
           'to throw TypeError';
  }

  // Fails the step (throws StepFailure).
  fail(op, message) {
    throw new StepFailure(`step ${this.step} (${op}): ${message}`);
  }

  // Runs one step's calls and checks what the step expects of them.
  async runStep(step) {
    const expect = parseExpect(at(step, 'expect'));
    const single = has(step, 'op');
    const calls = single ? [step] : at(step, 'calls');
    for (const call of calls) {
      const op = at(call, 'op');
      const unsupported = [''];  // non-empty: WPT expects TypeError under the real limits
      let outputs;
      try {
        outputs = await this.invoke(call, expect.success, unsupported);
      } catch (e) {
        if (e === NOT_RUN) {
          this.markUnsupported(call, true);
          throw e;
        }
        if (e instanceof StepFailure) throw e;
        if (e instanceof MalformedTrace) this.fail(op, `malformed trace: ${e.message}`);
        const name = errorName(e);
        if (name === null)
          this.fail(op, `unexpected exception (not a WebNN API error): ${describe(e)}`);
        this.checkError(step, op, expect, unsupported[0], e, name);
        if (unsupported[0]) this.flipped++;
        this.markUnsupported(call, Boolean(unsupported[0]));
        return;
      }
      if (unsupported[0])
        this.fail(op, `expected TypeError (${unsupported[0]} is outside opSupportLimits()), but ` +
                      'the call succeeded');
      this.bind(call, op, outputs);
      if (expect.success) this.checkOutputs(step, op);
    }
    if (!expect.success)
      this.fail(single ? step.op : 'calls', `expected ${expect.error}, but no call threw`);
  }

  // Checks an exception a call threw against what the step expects.
  checkError(step, op, expect, unsupported, e, name) {
    const expected = expect.success ? 'TypeError' : expect.error;
    const text = errorText(e);
    if (expect.success && !unsupported) this.fail(op, `unexpected ${name}: ${text}`);
    if (name !== expected) this.fail(op, `expected ${expected}, got ${name}: ${text}`);
    if (!expect.success && has(step, 'expectLabelMatch')) {
      const literal = step.expectLabelMatch;
      if (!labelRegex(literal).test(text))
        this.fail(op, `the message "${text}" does not match ${literal}`);
    }
  }

  // The slot of an operand id, created empty when new.
  slot(id) {
    let s = this.slots.get(id);
    if (s === undefined) {
      s = { operand: undefined, unsupported: false };
      this.slots.set(id, s);
    }
    return s;
  }

  // The operand-id slots of a call's recorded outputs are marked as not created.
  markUnsupported(call, unsupported) {
    if (!unsupported || !has(call, 'outputs')) return;
    for (const id of call.outputs) this.slot(Number(id)).unsupported = true;
  }

  // Binds the operands a call returned to its recorded output ids.
  bind(call, op, outputs) {
    if (!has(call, 'outputs')) return;
    const ids = call.outputs;
    if (ids.length !== outputs.length)
      this.fail(op, `returned ${outputs.length} operands, the trace has ${ids.length}`);
    ids.forEach((id, i) => this.slots.set(Number(id), { operand: outputs[i], unsupported: false }));
  }

  // Checks the descriptors of the step's expected outputs.
  checkOutputs(step, op) {
    if (!has(step, 'expectedOutputs')) return;
    for (const [key, rec] of Object.entries(step.expectedOutputs)) {
      const s = this.slots.get(Number(key));
      if (s === undefined || s.operand === undefined) this.fail(op, `no operand ${key}`);
      const gotType = s.operand.dataType;
      const gotShape = [...s.operand.shape];
      const recorded = { ...rec };
      // A few traces recorded no usable dataType (an object); check the shape only there.
      if (typeof recorded.dataType !== 'string') recorded.dataType = gotType;
      const problem = descriptorProblem(recorded);
      if (problem) this.fail(op, `bad expected descriptor: ${op}: expected output: ${problem}`);
      const shape = recorded.shape.map((d) => Math.trunc(Number(d)));
      if (gotType !== recorded.dataType || gotShape.length !== shape.length ||
          gotShape.some((d, i) => d !== shape[i]))
        this.fail(op, `operand ${key} is ${descriptorStr(gotType, gotShape)}, expected ` +
                      `${descriptorStr(recorded.dataType, shape)}`);
    }
  }

  // A recorded argument as the JavaScript value WPT passed, with {"operand": id} replaced by
  // the operand.
  arg(j, op) {
    if (Array.isArray(j)) return j.map((v) => this.arg(v, op));
    if (j !== null && typeof j === 'object') {
      const keys = Object.keys(j);
      if (keys.length === 1 && keys[0] === 'operand' && isExactInteger(j.operand)) {
        const id = Number(j.operand);
        const s = this.slots.get(id);
        if (s !== undefined && s.unsupported) throw NOT_RUN;
        if (s === undefined || s.operand === undefined)
          this.fail(op, `operand ${id} was never created`);
        return s.operand;
      }
      const o = {};
      for (const k of keys) o[k] = this.arg(j[k], op);
      return o;
    }
    return jsValue(j);
  }

  // The builder of a recorded index, created on first use.
  builder(index) {
    let b = this.builders.get(index);
    if (b === undefined) {
      b = new MLGraphBuilder(this.context);
      this.builders.set(index, b);
    }
    return b;
  }

  // Runs one recorded call; resolves to the operands it returned. For a call that must succeed,
  // sets unsupported[0] (before calling) when its operands or outputs are outside the op's
  // support limits.
  async invoke(call, mustSucceed, unsupported) {
    const op = at(call, 'op');
    const args = at(call, 'args');
    if (!Array.isArray(args)) throw new MalformedTrace('args is not an array');
    const b = this.builder(Number(call.builder ?? 0));
    if (op === 'input') return [this.input(b, args, mustSucceed)];
    if (op === 'constant') return [this.constant(b, args, mustSucceed)];
    if (op === 'build') {
      const dyn = args.map((a) => this.arg(a, op));
      await b.build(...dyn);
      return [];
    }
    const dyn = args.map((a) => this.arg(a, op));
    // The 2025-03 corpus spells outputShapeRounding by its old name (webnn-spec.md §6 item 20).
    if (isPooling(op) && dyn.length > 1 && dyn[1] !== null && typeof dyn[1] === 'object' &&
        !Array.isArray(dyn[1]) && !('outputShapeRounding' in dyn[1])) {
      const renamed = {};
      for (const [k, v] of Object.entries(dyn[1]))
        renamed[k === 'roundingType' ? 'outputShapeRounding' : k] = v;
      dyn[1] = renamed;
    }
    const method = builderMethod(b, op);
    // As in the C++ runner, the limits decide only for a call whose arguments convert.
    if (mustSucceed && this.converts(op, dyn)) unsupported[0] = this.outsideLimits(op, dyn, call);
    return asList(method.apply(b, dyn));
  }

  // builder.input(name, descriptor); not run when it must succeed with a data type outside
  // opSupportLimits().input.
  input(b, args, mustSucceed) {
    const dyn = args.map((a) => this.arg(a, 'input'));
    const desc = dyn[1];
    if (mustSucceed && dyn.length >= 2 && !descriptorProblem(desc) &&
        !this.limits.input.dataTypes.includes(desc.dataType))
      throw NOT_RUN;
    return b.input(...dyn);
  }

  // builder.constant(dataType, value) or builder.constant(descriptor, buffer); not run when it
  // must succeed with a data type outside opSupportLimits().constant.
  constant(b, args, mustSucceed) {
    const limit = this.limits.constant.dataTypes;
    if (typeof args[0] === 'string') {  // constant(dataType, value)
      const dyn = args.map((a) => this.arg(a, 'constant'));
      if (mustSucceed && isDataType(args[0]) && dyn.length >= 2 && !limit.includes(args[0]))
        throw NOT_RUN;
      return b.constant(...dyn);
    }
    const desc = args.length ? this.arg(args[0], 'constant') : undefined;
    if (mustSucceed && !descriptorProblem(desc) && !limit.includes(desc.dataType)) throw NOT_RUN;
    const rest = args.slice(1).map((a) => {
      const buffer = bufferOf(a);
      return buffer !== undefined ? buffer : this.arg(a, 'constant');
    });
    return b.constant(desc, ...rest);
  }

  // False when the call's arguments certainly fail WebIDL conversion (a positional parameter of
  // the wrong kind or missing, an options argument that is not a dictionary, an operand-valued
  // option that is not an MLOperand): the Python runner's stand-in for the C++ runner's
  // decode_builder_call().
  converts(op, dyn) {
    const kinds = PARAM_KINDS.get(op);
    for (let i = 0; i < kinds.length; i++) {
      const v = dyn[i];
      let ok;
      switch (kinds[i]) {
        case 'operand':
          ok = v instanceof MLOperand;
          break;
        case 'operands':
          ok = Array.isArray(v) && v.every((x) => x instanceof MLOperand);
          break;
        case 'unsigned long':
          ok = isUnsignedLong(v);
          break;
        case 'string':
          ok = typeof v === 'string';
          break;
        case 'sequence':
          ok = Array.isArray(v);
          break;
        default:
          ok = Array.isArray(v) || isUnsignedLong(v);
      }
      if (!ok) return false;
    }
    const options = dyn.length > kinds.length ? dyn[kinds.length] : undefined;
    if (options === undefined || options === null) return true;
    if (typeof options !== 'object' || Array.isArray(options)) return false;
    return (OPTION_OPERANDS[op] || []).every(
      (k) => options[k] === undefined || options[k] === null || options[k] instanceof MLOperand);
  }

  // Which operand (or expected output) of the call is outside its role's support limits, or ""
  // when all are inside.
  outsideLimits(op, dyn, recorded) {
    const roles = Object.entries(this.limits[op] || {});
    const positional = POSITIONAL_OPERANDS.get(op);
    const isList = positional === 'list';
    let inputs;
    if (isList) {
      inputs = Array.isArray(dyn[0]) ? [...dyn[0]] : [];
    } else {
      inputs = [];
      for (let i = 0; i < positional; i++) inputs.push(dyn[i]);
      const options = dyn[positional];
      for (const key of OPTION_OPERANDS[op] || [])
        inputs.push(options !== null && typeof options === 'object' ? options[key] : undefined);
    }
    const inputRoles = isList ? 1 : inputs.length;
    for (let i = 0; i < inputs.length; i++) {
      const x = inputs[i];
      const r = isList ? 0 : i;
      if (!(x instanceof MLOperand) || r >= roles.length) continue;
      const [name, lim] = roles[r];
      if (!lim.dataTypes.includes(x.dataType)) return `${name} data type ${x.dataType}`;
      const rank = x.shape.length;
      if (rank < lim.rankRange.min || rank > lim.rankRange.max) return `${name} rank ${rank}`;
    }
    if (roles.length <= inputRoles || !has(recorded, 'expectedOutputs') ||
        !has(recorded, 'outputs'))
      return '';
    const outputRoles = roles.length - inputRoles;
    const expected = recorded.expectedOutputs;
    for (let k = 0; k < recorded.outputs.length; k++) {
      const e = expected[String(recorded.outputs[k])];
      if (e === null || typeof e !== 'object' || typeof e.dataType !== 'string') continue;
      const t = e.dataType;
      const [name, lim] = roles[inputRoles + Math.min(k, outputRoles - 1)];
      if (DATA_TYPES.includes(t) && !lim.dataTypes.includes(t)) return `${name} data type ${t}`;
    }
    return '';
  }
}

// Why a test cannot be replayed, or "".
function unreplayable(test) {
  if (has(test, 'harnessError')) return `the trace has a harness error: ${test.harnessError}`;
  const steps = has(test, 'steps') ? test.steps : [];
  if (!steps.length) return 'no recorded builder calls';
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (!has(s, 'op') && !(has(s, 'calls') && s.calls.length))
      return `step ${i + 1} expects "${has(s, 'expect') ? s.expect : ''}" but has no recorded ` +
             'calls (it needs an API the trace does not record)';
  }
  return '';
}

// Replays one test on a new default context: its result.
async function runValidationCase(file, test, limits) {
  const start = process.hrtime.bigint();
  const name = has(test, 'name') ? test.name : '';
  const r = caseResult(file, name, has(test, 'variant') ? test.variant : null);
  const why = unreplayable(test);
  if (why) {
    r.status = SKIPPED;
    r.message = why;
  } else {
    let context;
    try {
      ({ context } = await createContext());
      r.message = await new Replay(context, limits).run(test.steps);
    } catch (e) {
      r.status = FAILED;
      r.message = e instanceof StepFailure ? e.message : `cannot replay the trace: ${describe(e)}`;
    } finally {
      if (context) context.destroy();
    }
  }
  r.timeMs = elapsedMs(start);
  return r;
}

let cachedLimits;

// The default context's opSupportLimits() (the C++ runner's static limits).
async function validationLimits() {
  if (cachedLimits === undefined) {
    const { context } = await createContext();
    cachedLimits = context.opSupportLimits();
    context.destroy();
  }
  return cachedLimits;
}

// Replays the tests of one validation file whose id contains `filter`. A file that cannot be
// loaded gives one failed case.
async function runValidationFile(file, filter) {
  const name = path.basename(file);
  let tests;
  try {
    tests = loadJson(file);
    if (!Array.isArray(tests)) throw new RunnerError(`${file}: expected an array of tests`);
  } catch (e) {
    if (!(e instanceof RunnerError)) throw e;
    return name.includes(filter) ? [fileFailure(name, e.message)] : [];
  }
  const limits = await validationLimits();
  const results = [];
  for (const test of tests) {
    const variant = has(test, 'variant') ? test.variant : null;
    if (!caseId(name, has(test, 'name') ? test.name : '', variant).includes(filter)) continue;
    results.push(await runValidationCase(name, test, limits));
  }
  return results;
}

module.exports = { parseExpect, labelRegex, bufferOf, Replay, unreplayable, runValidationFile };
