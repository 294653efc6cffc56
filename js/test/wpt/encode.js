// The tensor data of the corpus as typed arrays (value decoding and encoding, wpt_compare.h):
// the conversions WPT's harness applies (Math.fround, its toHalf, the integer typed arrays'
// wrapping, BigInt for 64-bit types), int4/uint4 packed two per byte, and the typed array view of
// each data type (float16 as Uint16Array bits: Node 20 has no Float16Array).
'use strict';

const { CaseFailure, numbers, asDouble } = require('./numbers');

const DATA_TYPES = ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8',
                    'int4', 'uint4'];
const BITS = { float32: 32, float16: 16, int32: 32, uint32: 32, int64: 64, uint64: 64, int8: 8,
               uint8: 8, int4: 4, uint4: 4 };
// The typed array holding a tensor of each type (int4/uint4: bytes packed two per byte).
const VIEWS = { float32: Float32Array, float16: Uint16Array, int32: Int32Array,
                uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
                int8: Int8Array, uint8: Uint8Array, int4: Uint8Array, uint4: Uint8Array };
// The unsigned view of each element size, for bit patterns.
const UINT_VIEWS = { 8: Uint8Array, 16: Uint16Array, 32: Uint32Array, 64: BigUint64Array };
const SIGNED = new Set(['int32', 'int64', 'int8', 'int4']);

// Whether `t` is an MLOperandDataType name.
function isDataType(t) {
  return typeof t === 'string' && Object.prototype.hasOwnProperty.call(BITS, t);
}

// The number of elements of a shape (1 for a scalar).
function elementCount(shape) {
  let n = 1;
  for (const d of shape) n *= Number(d);
  return n;
}

// cppnn's to_string(MLOperandDescriptor): "float32[2,3]".
function descriptorStr(dataType, shape) {
  return `${dataType}[${shape.map(String).join(',')}]`;
}

// ---- float conversions --------------------------------------------------------------------------

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// The bit pattern of Math.fround(x).
function float32Bits(x) {
  f32[0] = x;
  return u32[0];
}

// WPT's toHalf(Float32(x)): the float32 rounding, then James Tursa's conversion (round half up in
// magnitude on the 11th mantissa bit, float32 exponents below 103 flush to signed zero, above 142
// give Infinity; NaN gives the quiet NaN 0x7e00).
function toHalf(x) {
  f32[0] = x;
  if (Number.isNaN(f32[0])) return 0x7e00;
  const b = u32[0];
  let bits = (b >>> 16) & 0x8000;
  let m = (b >>> 12) & 0x07ff;
  const e = (b >>> 23) & 0xff;
  if (e < 103) return bits;
  if (e > 142) return bits | 0x7c00;
  if (e < 113) {
    m |= 0x0800;
    return bits | ((m >>> (114 - e)) + ((m >>> (113 - e)) & 1));
  }
  bits |= ((e - 112) << 10) | (m >>> 1);
  return bits + (m & 1);
}

// The number a float16 bit pattern stands for.
function halfToDouble(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x03ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1024 + m) * 2 ** (e - 25);
}

// ---- integer conversions ------------------------------------------------------------------------

// The BigInt a 64-bit typed array stores for `v` (exact integers wrap modulo 2^64, doubles
// truncate toward zero then wrap; non-finite doubles give 0).
function bigIntBits(v, signed) {
  let b;
  if (typeof v === 'bigint') b = v;
  else if (!Number.isFinite(v)) b = 0n;
  else b = BigInt(Math.trunc(v));
  return signed ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
}

// The value to store in `dataType`'s typed array so that it holds what WPT's typed array holds
// for the corpus number `v` (int4/uint4: the nibble, 0..15).
function storable(dataType, v) {
  switch (dataType) {
    case 'float32':
      return asDouble(v);
    case 'float16':
      return toHalf(asDouble(v));
    case 'int64':
      return bigIntBits(v, true);
    case 'uint64':
      return bigIntBits(v, false);
    case 'int4':
    case 'uint4':
      return typeof v === 'bigint' ? Number(v & 15n) : v & 15;  // ToInt32 keeps the low bits
    default:  // 8/32-bit integers: the typed array wraps (ToInt32 etc.); BigInt wraps here
      return typeof v === 'bigint' ? Number(BigInt.asUintN(BITS[dataType], v)) : v;
  }
}

// int4/uint4 nibbles packed two per byte, the first in the low nibble.
function packNibbles(nibbles) {
  const out = new Uint8Array(Math.ceil(nibbles.length / 2));
  for (let i = 0; i < nibbles.length; i++) out[i >> 1] |= (nibbles[i] & 0x0f) << (i % 2 ? 4 : 0);
  return out;
}

// The first `count` int4/uint4 elements of packed bytes (sign-extended for int4).
function unpackNibbles(packed, count, signed) {
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    const v = (packed[i >> 1] >> (i % 2 ? 4 : 0)) & 0x0f;
    out[i] = signed && v >= 8 ? v - 16 : v;
  }
  return out;
}

// The elements WPT's typed array of `dataType` holds for `values` (int4/uint4: one nibble per
// element, not packed; float16: Uint16Array bits).
function typedArray(dataType, values) {
  const View = BITS[dataType] === 4 ? Uint8Array : VIEWS[dataType];
  const out = new View(values.length);
  for (let i = 0; i < values.length; i++) out[i] = storable(dataType, values[i]);
  return out;
}

// The tensor data WPT uploads for `data` (an array, or one number filling the tensor): the typed
// array of the operand's type (int4/uint4: packed Uint8Array).
function encode(data, dataType, shape, name) {
  const values = numbers(data);
  const count = elementCount(shape);
  const fill = !Array.isArray(data);
  if (!fill && values.length !== count)
    throw new CaseFailure(`corpus: ${name} has ${values.length} values for ` +
                          `${descriptorStr(dataType, shape)}`);
  let elements;
  if (fill) {
    const View = BITS[dataType] === 4 ? Uint8Array : VIEWS[dataType];
    elements = new View(count).fill(storable(dataType, values[0]));
  } else {
    elements = typedArray(dataType, values);
  }
  return BITS[dataType] === 4 ? packNibbles(elements) : elements;
}

// The typed array view of a tensor's bytes.
function viewOf(dataType, buffer) {
  const View = VIEWS[dataType];
  if (ArrayBuffer.isView(buffer))
    return new View(buffer.buffer, buffer.byteOffset, buffer.byteLength / View.BYTES_PER_ELEMENT);
  return new View(buffer);
}

module.exports = {
  DATA_TYPES, BITS, VIEWS, UINT_VIEWS, SIGNED, isDataType, elementCount, descriptorStr,
  float32Bits, toHalf, halfToDouble, bigIntBits, storable, packNibbles, unpackNibbles,
  typedArray, encode, viewOf,
};
