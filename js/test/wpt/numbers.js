// The numbers of the corpus (C++ JsNumber, wpt_compare.h): a JavaScript number (a double, or an
// exact integer when it is a safe integer, see isExactInteger) or a BigInt (an exact integer
// beyond 2^53, within the int64/uint64 range), as json.js reads them; their conversions from
// corpus values and their printing as the C++ runner prints them.
'use strict';

const { INT64_MIN, UINT64_MAX } = require('./json');

// The case fails with this message.
class CaseFailure extends Error {}

const NON_FINITE = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
const INT_RE = /^-?[0-9]+$/;
const FLOAT_RE = new RegExp('^-?(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?' +
                            '|inf(?:inity)?|nan(?:\\([0-9A-Za-z_]*\\))?)$', 'i');

// Whether a corpus number is an exact integer (a C++ int64/uint64 JsNumber): a BigInt, or a safe
// integer other than -0 (the corpus writes integral doubles below 2^64 as JSON integers, §3.1).
function isExactInteger(v) {
  return typeof v === 'bigint' || (Number.isSafeInteger(v) && !Object.is(v, -0));
}

// An exact integer as a number when it is safe, else as a BigInt.
function exactInteger(b) {
  const d = Number(b);
  return Number.isSafeInteger(d) ? d : b;
}

// A string where a number is expected: "NaN", "Infinity", "-Infinity", a decimal integer (exact,
// as for BigInt("45")) or another decimal number; undefined for anything else.
function numericString(s) {
  if (Object.prototype.hasOwnProperty.call(NON_FINITE, s)) return NON_FINITE[s];
  if (INT_RE.test(s)) {
    const v = BigInt(s);
    if (v >= INT64_MIN && v <= UINT64_MAX) return exactInteger(v);
  }
  if (s && FLOAT_RE.test(s)) {
    const t = s.toLowerCase().replace(/^(-?)inf(inity)?$/, '$1Infinity');
    if (t.includes('nan')) return NaN;
    return Number(t);
  }
  return undefined;
}

// A corpus value where a number is expected; CaseFailure for anything else.
function jsNumber(v) {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (typeof v === 'string') {
    const n = numericString(v);
    if (n !== undefined) return n;
  }
  throw new CaseFailure(`corpus: ${dump(v)} is not a number`);
}

// A tensor's `data`: one number per element, or a single number (WPT fills the tensor).
function numbers(data) {
  if (!Array.isArray(data)) return [jsNumber(data)];
  return data.map(jsNumber);
}

// The double a number stands for (integers rounded to nearest).
function asDouble(v) {
  return Number(v);
}

// std::to_chars(double) shortest round trip: the shorter of %f and %e style, %f on a tie.
function formatDouble(d) {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  const sign = d < 0 || Object.is(d, -0) ? '-' : '';
  if (d === 0) return `${sign}0`;
  const [mantissa, e] = Math.abs(d).toExponential().split('e');  // the shortest digits
  const digits = mantissa.replace('.', '');
  const n = digits.length;
  const sciExp = Number(e);
  const exp = sciExp - n + 1;  // value = digits * 10^exp
  let fixed;
  if (exp >= 0) fixed = digits + '0'.repeat(exp);
  else if (n + exp > 0) fixed = `${digits.slice(0, n + exp)}.${digits.slice(n + exp)}`;
  else fixed = `0.${'0'.repeat(-(n + exp))}${digits}`;
  const mant = digits[0] + (n > 1 ? `.${digits.slice(1)}` : '');
  const abs = Math.abs(sciExp);
  const sci = `${mant}e${sciExp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  return sign + (fixed.length <= sci.length ? fixed : sci);
}

// JsNumber::to_string: exact integers in decimal, doubles through formatDouble.
function numberStr(v) {
  return isExactInteger(v) ? String(v) : formatDouble(v);
}

// A corpus value printed as JSON (nlohmann's dump, BigInt as plain digits).
function dump(v) {
  const marks = [];
  const text = JSON.stringify(v, (_key, x) => {
    if (typeof x !== 'bigint') return x;
    marks.push(String(x));
    return `\u0000${marks.length - 1}\u0000`;
  });
  if (text === undefined) return String(v);
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_match, i) => marks[Number(i)]);
}

module.exports = {
  CaseFailure, NON_FINITE, isExactInteger, exactInteger, numericString, jsNumber, numbers,
  asDouble, formatDouble, numberStr, dump,
};
