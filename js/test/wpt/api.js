// The WebNN JavaScript API as the runners use it: the package's navigator.ml, the spec error
// names of what it throws, the builder methods' signatures (include/cppnn/ops.def), corpus values
// turned into the JavaScript values WPT passed, and MLOperandDescriptor checks.
'use strict';

const cppnn = require('../..');
const { NON_FINITE } = require('./numbers');
const { isDataType } = require('./encode');

cppnn.installPolyfill();

const UINT32_MAX = 2 ** 32 - 1;

// A new context on `backend` (the package's default when empty) in `state.context`;
// `state.lost` turns true once its lost promise settles. Returns `state`.
async function createContext(backend, state = {}) {
  const context = await navigator.ml.createContext(backend ? { backend } : {});
  state.context = context;
  state.lost = false;
  const lost = () => {
    if (state.context === context) state.lost = true;
  };
  context.lost.then(lost, lost);
  return state;
}

// The spec error name of an exception from the API: TypeError for a JavaScript TypeError, the
// DOMException's name otherwise; null for anything else (a bug, not an API error).
function errorName(e) {
  if (e instanceof DOMException) return e.name;
  if (e instanceof TypeError) return 'TypeError';
  return null;
}

// The message of an exception.
function errorText(e) {
  return e && typeof e.message === 'string' ? e.message : String(e);
}

// A non-API exception, for messages: "<name>: <message>".
function describe(e) {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

// Whether `op` is one of the pooling ops (whose roundingType the 2025-03 corpus spells so).
function isPooling(op) {
  return op === 'averagePool2d' || op === 'l2Pool2d' || op === 'maxPool2d';
}

// The builder methods: the number of positional operand parameters of each ("list": concat's
// sequence), the kinds of its positional parameters, and its operand-valued options in the
// options dictionary's field order (include/cppnn/options.h). Together they give the op's input
// operands in the order of its opSupportLimits() roles.
const POSITIONAL = {
  Unary: 1, Binary: 2, Ternary: 3, Axis: 1, Cast: 1, Concat: 'list', Shape: 1, TwoLists: 1,
  Split: 1, Recurrent: 3, GruCell: 4, LstmCell: 5,
};
const SIGNATURES = {
  Axis: 'argMin argMax cumulativeSum softmax',
  Ternary: 'batchNormalization dequantizeLinear quantizeLinear scatterElements scatterND where',
  Cast: 'cast',
  Concat: 'concat',
  Binary: 'conv2d convTranspose2d add sub mul div max min pow equal notEqual greater ' +
          'greaterOrEqual lesser lesserOrEqual logicalAnd logicalOr logicalXor gather ' +
          'gatherElements gatherND gemm matmul prelu',
  Unary: 'clamp logicalNot isNaN isInfinite abs ceil cos erf exp floor identity log neg ' +
         'reciprocal roundEven sin sign sqrt tan elu gelu hardSigmoid hardSwish ' +
         'instanceNormalization layerNormalization leakyRelu linear averagePool2d l2Pool2d ' +
         'maxPool2d reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean ' +
         'reduceMin reduceProduct reduceSum reduceSumSquare relu resample2d reverse sigmoid ' +
         'softplus softsign tanh transpose triangular',
  Shape: 'expand reshape tile',
  TwoLists: 'pad slice',
  Split: 'split',
  Recurrent: 'gru lstm',
  GruCell: 'gruCell',
  LstmCell: 'lstmCell',
};
const KINDS = {
  Unary: ['operand'], Binary: ['operand', 'operand'], Ternary: ['operand', 'operand', 'operand'],
  Axis: ['operand', 'unsigned long'], Cast: ['operand', 'string'],
  Concat: ['operands', 'unsigned long'], Shape: ['operand', 'sequence'],
  TwoLists: ['operand', 'sequence', 'sequence'], Split: ['operand', 'unsigned long or sequence'],
  Recurrent: ['operand', 'operand', 'operand', 'unsigned long', 'unsigned long'],
  GruCell: ['operand', 'operand', 'operand', 'operand', 'unsigned long'],
  LstmCell: ['operand', 'operand', 'operand', 'operand', 'operand', 'unsigned long'],
};
const POSITIONAL_OPERANDS = new Map();
const PARAM_KINDS = new Map();
for (const [sig, ops] of Object.entries(SIGNATURES)) {
  for (const op of ops.split(' ')) {
    POSITIONAL_OPERANDS.set(op, POSITIONAL[sig]);
    PARAM_KINDS.set(op, KINDS[sig]);
  }
}
const OPTION_OPERANDS = {
  batchNormalization: ['scale', 'bias'],
  conv2d: ['bias'],
  convTranspose2d: ['bias'],
  gemm: ['c'],
  gru: ['bias', 'recurrentBias', 'initialHiddenState'],
  gruCell: ['bias', 'recurrentBias'],
  instanceNormalization: ['scale', 'bias'],
  layerNormalization: ['scale', 'bias'],
  lstm: ['bias', 'recurrentBias', 'peepholeWeight', 'initialHiddenState', 'initialCellState'],
  lstmCell: ['bias', 'recurrentBias', 'peepholeWeight'],
};

// The builder's method for operation `op`, as a page would call builder[op](...); TypeError (as
// calling a missing method throws) for a name that is not a builder operation.
function builderMethod(builder, op) {
  const method = POSITIONAL_OPERANDS.has(op) ? builder[op] : undefined;
  if (typeof method !== 'function')
    throw new TypeError(`"${op}" is not an MLGraphBuilder operation`);
  return method;
}

// An op's result as a list of operands (multi-output ops return arrays).
function asList(result) {
  return Array.isArray(result) ? result : [result];
}

// A literal corpus value as the JavaScript value WPT passed: the strings JSON uses for non-finite
// numbers become those numbers (README §3.1), exact integers stay exact (BigInt beyond 2^53).
function jsValue(v) {
  if (typeof v === 'string') return Object.prototype.hasOwnProperty.call(NON_FINITE, v)
    ? NON_FINITE[v] : v;
  if (Array.isArray(v)) return v.map(jsValue);
  if (v !== null && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = jsValue(x);
    return o;
  }
  return v;
}

// Why `j` does not convert to an MLOperandDescriptor, "" when it does (descriptor_from_dyn).
function descriptorProblem(j) {
  if (j === null || typeof j !== 'object' || Array.isArray(j))
    return 'the descriptor must be an object';
  const t = j.dataType;
  if (t === undefined || t === null) return 'dataType is required';
  if (!isDataType(t)) return 'dataType is not an MLOperandDataType';
  const shape = j.shape;
  if (shape === undefined || shape === null) return 'shape is required';
  if (!Array.isArray(shape)) return 'shape must be a sequence';
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (typeof d !== 'number' && typeof d !== 'bigint') return `shape[${i}] must be a number`;
    if (typeof d === 'number' && !Number.isFinite(d)) return `shape[${i}] must be a finite number`;
    const v = typeof d === 'bigint' ? d : Math.trunc(d);
    if (v < 0 || v > UINT32_MAX) return `shape[${i}] is outside the unsigned long range`;
  }
  return '';
}

// Whether `v` converts to an [EnforceRange] unsigned long.
function isUnsignedLong(v) {
  if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(NON_FINITE, v))
    v = NON_FINITE[v];
  if (typeof v === 'bigint') return v >= 0n && v <= BigInt(UINT32_MAX);
  if (typeof v !== 'number') return false;
  return Number.isFinite(v) && Math.trunc(v) >= 0 && Math.trunc(v) <= UINT32_MAX;
}

module.exports = {
  cppnn, MLOperand: cppnn.MLOperand, MLGraphBuilder: cppnn.MLGraphBuilder, UINT32_MAX,
  createContext, errorName, errorText, describe, isPooling, POSITIONAL_OPERANDS, PARAM_KINDS,
  OPTION_OPERANDS, builderMethod, asList, jsValue, descriptorProblem, isUnsignedLong,
};
