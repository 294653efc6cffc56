// Activation patterns, for backends that opt in (PassSelection::recognize_activations): the
// elementwise spellings exporters use for activations WebNN has, rewritten into those ops so that
// the fusion pass can fold them into the convolution or matrix product before them:
//  - hardSwish: div(mul(x, clamp(add(x, 3), 0, 6)), 6) (either operand order of add and mul),
//    each intermediate read once (webnn-spec.md §2 row 56);
//  - gelu: the erf form 0.5·x·(1 + erf(x/√2)) as mul(mul(x, add(erf(div(x, √2)), 1)), 0.5) or
//    mul(mul(x, 0.5), add(erf(·), 1)), x/√2 also as mul(x, 1/√2), any operand order, each
//    intermediate read once (§2 row 51; computed as gelu computes it, in double and rounded once,
//    where the spelled-out ops round at every step);
//  - linear: mul, add or sub of a one-element float constant right after a convolution, a matrix
//    product or an activation (mul: linear(c, 0), add: linear(1, c), sub: linear(1, −c); the same
//    single rounding as the op it replaces, §2 row 61).
#pragma once

#include "cppnn/graph_model.h"

namespace cppnn::passes {

// The pass (see above); `changed` tells whether it rewrote anything.
Graph recognize_activations(const Graph& graph, bool* changed);

}  // namespace cppnn::passes
