// WPT's comparison rules (../shared/wpt/README.md §4, wpt_compare.h): the float32 and float16 ULP
// distances, the ATOL metric, NaN and infinity, exactCompare, exact integers, and the check of one
// output tensor with its first mismatch.
'use strict';

const { asDouble, formatDouble, numberStr, isExactInteger } = require('./numbers');
const { float32Bits, toHalf, halfToDouble, unpackNibbles, viewOf } = require('./encode');

const MAXIMUM_INDEX_TO_VALIDATE = 1000;

// A case's tolerance: metric "ULP" or "ATOL", and its value.
class Tolerance {
  constructor(metric = 'ULP', value = 0) {
    this.metric = metric;
    this.value = value;
  }
}

// The float32 ordering key: the bit pattern of |x| negated for negative x.
function float32Key(x) {
  const magnitude = float32Bits(x) & 0x7fffffff;
  return x < 0 ? -magnitude : magnitude;
}

// WPT's float32 ULP distance: -0 and +0 are the same, distances across zero add up.
function float32UlpDistance(a, b) {
  return Math.abs(float32Key(a) - float32Key(b));
}

// WPT's float16 ULP distance: |a - b| of the raw 16-bit patterns (sign bit included), 0 when
// both are zeros.
function float16UlpDistance(a, b) {
  if ((a & 0x7fff) === 0 && (b & 0x7fff) === 0) return 0;
  return Math.abs(a - b);
}

// The NaN and infinity rules shared by the float checks: {pass, error}, or null when both values
// are finite and the metric decides.
function specialValues(actual, expected) {
  if (Number.isNaN(expected)) {
    const nan = Number.isNaN(actual);
    return { pass: nan, error: nan ? 0 : Infinity };
  }
  if (Number.isNaN(actual)) return { pass: false, error: Infinity };
  if (!Number.isFinite(expected) || !Number.isFinite(actual)) {
    const same = actual === expected;
    return { pass: same, error: same ? 0 : Infinity };
  }
  return null;
}

// A float32 result (a number from a Float32Array) against an expected corpus number.
function checkFloat32(actual, expected, t, exact) {
  const e = asDouble(expected);
  const ef = Math.fround(e);
  const s = specialValues(actual, t.metric === 'ULP' ? ef : e);
  if (s) return s;
  const error = t.metric === 'ULP' ? float32UlpDistance(actual, ef) : Math.abs(actual - e);
  let pass = error <= t.value;
  if (exact && float32Bits(actual) !== float32Bits(ef)) pass = false;
  return { pass, error };
}

// A float16 result (its bits) against an expected corpus number (through toHalf for ULP and
// exactCompare; ATOL compares the decoded value with the expected double).
function checkFloat16(actual, expected, t, exact) {
  const e = asDouble(expected);
  const eh = toHalf(e);
  const a = halfToDouble(actual);
  const s = specialValues(a, t.metric === 'ULP' ? halfToDouble(eh) : e);
  if (s) return s;
  const error = t.metric === 'ULP' ? float16UlpDistance(actual, eh) : Math.abs(a - e);
  let pass = error <= t.value;
  if (exact && actual !== eh) pass = false;
  return { pass, error };
}

// |a - b| as a double, exact where it fits (C++ integer_distance).
function integerDistance(a, b) {
  if (!isExactInteger(a) || !isExactInteger(b)) return Math.abs(asDouble(a) - asDouble(b));
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b);
  const x = BigInt(a);
  const y = BigInt(b);
  if ((x < 0n) === (y < 0n)) return Number(x > y ? x - y : y - x);
  return Number(x < 0n ? -x : x) + Number(y < 0n ? -y : y);  // opposite signs: exact to 2^53
}

// An integer result against an expected number: {pass, error}.
function checkInteger(actual, t, expected) {
  if (!isExactInteger(expected) && !Number.isFinite(expected))
    return { pass: false, error: Infinity };
  const error = integerDistance(actual, expected);
  return { pass: error <= t.value, error };
}

// The check of one output tensor (wpt_compare.h check_output): `actual` is the tensor's data (an
// ArrayBuffer or a view of it; int4/uint4 packed), `expected` one number per element or one
// number that the first min(1000, count) elements are checked against (as WPT does).
// Returns {checked, mismatches, maxError, first}.
function checkOutput(dataType, actual, count, expected, t, exact) {
  const r = { checked: 0, mismatches: 0, maxError: 0, first: '' };
  const fill = expected.length === 1 && count !== 1;
  r.checked = fill ? Math.min(count, MAXIMUM_INDEX_TO_VALIDATE) : Math.min(count, expected.length);
  const n = r.checked;
  if (n === 0) return r;
  const view = viewOf(dataType, actual);
  const packed = dataType === 'int4' || dataType === 'uint4';
  const got = packed ? unpackNibbles(view, n, dataType === 'int4') : view;
  for (let i = 0; i < n; i++) {
    const e = expected[fill ? 0 : i];
    let c;
    let text;
    if (dataType === 'float32') {
      c = checkFloat32(got[i], e, t, exact);
      if (!c.pass) text = formatDouble(got[i]);
    } else if (dataType === 'float16') {
      c = checkFloat16(got[i], e, t, exact);
      if (!c.pass) text = formatDouble(halfToDouble(got[i]));
    } else {
      c = checkInteger(got[i], t, e);
      if (!c.pass) text = String(got[i]);
    }
    if (c.error > r.maxError) r.maxError = c.error;
    if (c.pass) continue;
    if (r.mismatches++ === 0)
      r.first = `[${i}] got ${text}, expected ${numberStr(e)} (error ${formatDouble(c.error)})`;
  }
  return r;
}

module.exports = {
  Tolerance, MAXIMUM_INDEX_TO_VALIDATE, float32UlpDistance, float16UlpDistance, checkFloat32,
  checkFloat16, integerDistance, checkInteger, checkOutput,
};
