// 3-D ONNX pools as two WebNN 2-D pools (ops_nn_pool3d.cpp), and the pool kinds of
// ops_nn_pool.cpp.
#pragma once

#include "src/import/onnx/node_context.h"
#include "src/import/onnx/ops_nn_util.h"

namespace cppnn::onnx_import {

// WebNN's pool operations: maxPool2d, averagePool2d, l2Pool2d.
enum class PoolKind { kMax, kAverage, kL2 };

// A pool of `kind` over a 5-D [N, C, D, H, W] `x` with the 3-D params p (padded positions never
// count: count_include_pad and ceil_mode already turned into explicit and end padding). The window
// is separable: the HW pool of each depth slice ([N, C·D, H, W]) followed by a [kD, 1] pool over
// [N, C, D, Ho·Wo]; max of maxima, the L2 norm of L2 norms and, since every slice of a window has
// the same valid HW count, the average of averages are the 3-D results.
MLOperand pool3d(NodeContext& c, PoolKind kind, const MLOperand& x, const SpatialParams& p);

}  // namespace cppnn::onnx_import
