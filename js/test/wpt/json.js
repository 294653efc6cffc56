// An integer-preserving JSON parser for the WPT corpus (../shared/wpt/README.md §3.1). JSON
// integers below 2^53 in magnitude become numbers (exact), larger ones within the int64/uint64
// range BigInt (exact, as nlohmann and the Python runner keep them), the rest numbers (doubles);
// an integer -0 reads as 0 (nlohmann's int64 0). Object members keep their file order.
'use strict';

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
// Nesting deeper than this is refused (as the C++ runner's parse does).
const MAX_DEPTH = 256;

// A JSON syntax error at a position of the text.
class JsonSyntaxError extends Error {}

// Parses `text`; throws JsonSyntaxError on malformed input.
function parseJson(text) {
  let i = 0;
  const n = text.length;

  function fail(what) {
    throw new JsonSyntaxError(`${what} at position ${i}`);
  }
  function ws() {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  }
  function string() {
    const start = ++i;  // after the opening quote
    let end = text.indexOf('"', start);
    for (;;) {
      if (end < 0) fail('an unterminated string');
      let slashes = 0;  // an odd number of backslashes before the quote escapes it
      while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
      if (slashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    const raw = text.slice(start, end);
    i = end + 1;
    // Escapes (and the control characters JSON forbids) go through JSON.parse.
    if (/[\\\u0000-\u001f]/.test(raw)) return JSON.parse(`"${raw}"`);
    return raw;
  }
  function number() {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    const digits = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    if (i === digits) fail('a malformed number');
    if (text.charCodeAt(digits) === 0x30 && i - digits > 1) fail('a number with a leading zero');
    let integer = true;
    if (text.charCodeAt(i) === 0x2e) {
      integer = false;
      const f = ++i;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
      if (i === f) fail('a malformed number');
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      i++;
      const s = text.charCodeAt(i);
      if (s === 0x2b || s === 0x2d) i++;
      const d = i;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
      if (i === d) fail('a malformed number');
    }
    const literal = text.slice(start, i);
    if (!integer) return Number(literal);
    const d = Number(literal) + 0;  // + 0: -0 reads as 0
    if (Number.isSafeInteger(d)) return d;
    const v = BigInt(literal);
    return v >= INT64_MIN && v <= UINT64_MAX ? v : Number(literal);
  }
  function literal(word, value) {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail('an unexpected character');
  }
  function value(depth) {
    if (depth > MAX_DEPTH) fail(`nesting more than ${MAX_DEPTH} levels deep`);
    ws();
    if (i >= n) fail('unexpected end of input');
    const c = text.charCodeAt(i);
    if (c === 0x7b) {  // {
      i++;
      const o = {};
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 0x22) fail('expected a member name');
        const key = string();
        ws();
        if (text.charCodeAt(i) !== 0x3a) fail("expected ':'");
        i++;
        const v = value(depth + 1);
        if (key === '__proto__')
          Object.defineProperty(o, key, { value: v, writable: true, enumerable: true,
                                          configurable: true });
        else o[key] = v;
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x7d) return o;
        if (d !== 0x2c) fail("expected ',' or '}'");
      }
    }
    if (c === 0x5b) {  // [
      i++;
      const a = [];
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return a;
      }
      for (;;) {
        a.push(value(depth + 1));
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x5d) return a;
        if (d !== 0x2c) fail("expected ',' or ']'");
      }
    }
    if (c === 0x22) return string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number();
    if (c === 0x74) return literal('true', true);
    if (c === 0x66) return literal('false', false);
    if (c === 0x6e) return literal('null', null);
    return fail('an unexpected character');
  }

  const v = value(0);
  ws();
  if (i < n) fail('trailing characters');
  return v;
}

// The integer literals JSON.parse would not read as parseJson() does: from 9e15 up (they may
// exceed 2^53), and -0. A match inside a string only costs the slower parser.
const NEEDS_EXACT = /(?<![\d.eE+-])(?:-?(?:9\d{15}|[1-9]\d{16,})|-0)(?![\d.eE])/;

// parseJson(text), through the native JSON.parse where that gives the same result.
function parseCorpusJson(text) {
  if (!NEEDS_EXACT.test(text)) {
    try {
      return JSON.parse(text);
    } catch (e) {
      // fall through: parseJson reports the error its way
    }
  }
  return parseJson(text);
}

module.exports = { parseJson, parseCorpusJson, JsonSyntaxError, INT64_MIN, UINT64_MAX };
