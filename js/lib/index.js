// The WebNN JavaScript API for Node.js (webnn-spec.md §1-§4) over cppnn's native addon:
// navigator.ml's ML object, the MLContext, MLGraphBuilder, MLOperand, MLGraph and MLTensor
// classes, and installPolyfill() to set navigator.ml where a browser would have it; and cppnn's
// text generation: LanguageModel and Generator (docs/node.md, "Text generation").
'use strict';
const path = require('node:path');

// The addon: CPPNN_NODE_ADDON, else the one scripts/build.js made.
const native = require(process.env.CPPNN_NODE_ADDON ||
                       path.join(__dirname, '..', 'build', 'Release', 'cppnn.node'));

// ML (navigator.ml): createContext(options) -> Promise<MLContext>. Options: powerPreference,
// accelerated, and cppnn's `backend` ("reference", "ort", ...) and `numThreads`.
class ML {
  createContext(options = {}) {
    return native.createContext(options);
  }
}
Object.defineProperty(ML.prototype, Symbol.toStringTag, { value: 'ML' });

const ml = new ML();

// The interfaces a page sees as globals.
const interfaces = {
  ML,
  MLContext: native.MLContext,
  MLGraphBuilder: native.MLGraphBuilder,
  MLOperand: native.MLOperand,
  MLGraph: native.MLGraph,
  MLTensor: native.MLTensor,
};

// Sets globalThis.navigator.ml (making globalThis.navigator when there is none) and the
// interface globals, each only when missing. Returns the ML object in place.
function installPolyfill(target = globalThis) {
  if (target.navigator === undefined) {
    Object.defineProperty(target, 'navigator', {
      value: {}, writable: true, configurable: true, enumerable: false });
  }
  if (target.navigator.ml === undefined) {
    Object.defineProperty(target.navigator, 'ml', {
      value: ml, writable: true, configurable: true, enumerable: true });
  }
  for (const [name, value] of Object.entries(interfaces)) {
    if (target[name] === undefined) {
      Object.defineProperty(target, name, {
        value, writable: true, configurable: true, enumerable: false });
    }
  }
  return target.navigator.ml;
}

module.exports = {
  ...interfaces,
  ml,
  installPolyfill,
  // Text generation (cppnn extension): `await LanguageModel.load(path, options)`, then
  // `new Generator(model)`, whose generate() and chat() return async iterators of text pieces.
  LanguageModel: native.LanguageModel,
  Generator: native.Generator,
  // The backends compiled into libcppnn (cppnn extension), in order of preference.
  availableBackends: () => native.availableBackends(false),
  version: native.version,
};
