// The Indices output of ONNX MaxPool (ops_nn_pool_indices.cpp).
#pragma once

#include "src/import/onnx/node_context.h"
#include "src/import/onnx/ops_nn_util.h"

namespace cppnn::onnx_import {

// MaxPool's second output for the pooled maxima `y` ([N, C, O...]) of input 0 ([N, C, S...], 1 to
// 3 spatial axes) with params p (end padding extended for ceil_mode): per output, the int64 flat
// index into the input of the first window element (row-major window order, padded positions
// excluded) equal to the maximum, as ONNX Runtime picks it. storage_order 0 numbers the input
// row-major (((n·C + c)·S1 + s1)·S2 + s2 ...), 1 numbers the spatial axes column-major
// ((n·C + c)·ΠS + s1 + S1·(s2 + S2·...)). WebNN: one strided slice of the padded input per window
// element, concatenated to [N·C, K, O...], compared with y; where a window element matches, its
// row-major input position (the padding: ΠS, past every position) and a reduceMin over K picks
// the first match, since window order is row-major position order.
MLOperand maxpool_indices(NodeContext& c, const SpatialParams& p, const MLOperand& y);

}  // namespace cppnn::onnx_import
