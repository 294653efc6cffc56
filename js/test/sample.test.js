// A WebNN sample written for a browser (samples/digit_classifier.js) runs unchanged in Node on
// the polyfill: loaded as a classic script into the global scope, it classifies images, and its
// probabilities match a plain JavaScript computation of the same network.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { backends } = require('./helpers');

// Loads the sample as a <script> would (its class declaration becomes a global binding).
const source = fs.readFileSync(path.join(__dirname, 'samples', 'digit_classifier.js'), 'utf8');
const DigitClassifier = vm.runInThisContext(`${source}\nDigitClassifier;`, { filename: 'digit_classifier.js' });

// Deterministic pseudo-random weights (a linear congruential generator in [-0.5, 0.5)).
function weightsFor(seed) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
  const out = {};
  for (const [name, shape] of DigitClassifier.layers)
    out[name] = Float32Array.from({ length: shape.reduce((a, b) => a * b) }, next);
  return out;
}

// The network in plain JavaScript (float64), for comparison.
function reference(w, pixels) {
  const conv = (x, c, h, filter, bias, oc) => {
    const o = h - 4, y = new Float64Array(oc * o * o);
    for (let k = 0; k < oc; ++k)
      for (let i = 0; i < o; ++i)
        for (let j = 0; j < o; ++j) {
          let sum = bias[k];
          for (let ch = 0; ch < c; ++ch)
            for (let u = 0; u < 5; ++u)
              for (let v = 0; v < 5; ++v)
                sum += x[(ch * h + i + u) * h + j + v] * filter[((k * c + ch) * 5 + u) * 5 + v];
          y[(k * o + i) * o + j] = Math.max(0, sum);
        }
    return [y, o];
  };
  const pool = (x, c, h) => {
    const o = h / 2, y = new Float64Array(c * o * o);
    for (let k = 0; k < c; ++k)
      for (let i = 0; i < o; ++i)
        for (let j = 0; j < o; ++j) {
          let m = -Infinity;
          for (let u = 0; u < 2; ++u)
            for (let v = 0; v < 2; ++v) m = Math.max(m, x[(k * h + 2 * i + u) * h + 2 * j + v]);
          y[(k * o + i) * o + j] = m;
        }
    return y;
  };
  let [a, h] = conv(pixels, 1, 28, w.conv1, w.bias1, 8);
  a = pool(a, 8, h);
  [a, h] = conv(a, 8, 12, w.conv2, w.bias2, 16);
  a = pool(a, 16, h);
  const logits = Array.from({ length: 10 }, (_, k) => {
    let sum = w.bias3[k];
    for (let i = 0; i < 256; ++i) sum += a[i] * w.dense[i * 10 + k];
    return sum;
  });
  const top = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - top));
  const total = e.reduce((x, y) => x + y);
  return e.map((x) => x / total);
}

for (const backend of backends) {
  test(`${backend}: the browser sample classifies images like a plain computation`, async () => {
    const weights = weightsFor(7);
    const classifier = new DigitClassifier();
    await classifier.load(weights, { backend });
    for (let image = 0; image < 3; ++image) {
      const pixels = Float32Array.from({ length: 784 }, (_, i) =>
        ((i * (image + 3) + image * 17) % 29) / 29);
      const { probabilities, label } = await classifier.classify(pixels);
      const want = reference(weights, pixels);
      for (let k = 0; k < 10; ++k) assert.ok(Math.abs(probabilities[k] - want[k]) < 1e-5, `class ${k}`);
      assert.equal(label, want.indexOf(Math.max(...want)));
    }
  });
}
