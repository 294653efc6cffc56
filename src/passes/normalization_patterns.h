// Normalization patterns, for backends that opt in (PassSelection::recognize_normalizations): the
// layer normalization that exporters spell out op by op (PyTorch before ONNX opset 17,
// TensorFlow's Keras layers) becomes one layerNormalization (webnn-spec.md §2 row 60), which a
// backend runs as one pass over each row in double instead of nine elementwise and reduction
// kernels each rounding to float32:
//   m = reduceMean(x, A, keepDimensions) ; d = sub(x, m)
//   v = reduceMean(pow(d, 2) or mul(d, d), A, keepDimensions)
//   n = div(d, sqrt(add(v, ε))) or mul(d, reciprocal(sqrt(add(v, ε))))   (add in either order)
//   then optionally mul(n, γ) and add(·, β) (either order),
// on float32, the two reductions over the same axes A, ε a one-element constant, γ and β of
// x's sizes at A (leading ones allowed), every intermediate read only where the pattern reads it
// (d twice, the rest once).
#pragma once

#include "cppnn/graph_model.h"

namespace cppnn::passes {

// The pass (see above); `changed` tells whether it rewrote anything.
Graph recognize_normalizations(const Graph& graph, bool* changed);

}  // namespace cppnn::passes
