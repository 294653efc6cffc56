// Batch normalization folding, for backends that opt in (PassSelection::fold_batch_norm): a
// float32 conv2d or convTranspose2d with a constant filter (and constant or no bias), followed by
// a chain of per-channel affine operations each the only reader of the one before
// (batchNormalization over the channel axis, mul/add/sub by a constant that is one value or one
// value per channel, with the conv result's shape), becomes one conv of the same kind:
// y = conv(x)·s + t folds into
//   filter'[oc] = filter[oc] · s[oc],  bias'[oc] = bias[oc] · s[oc] + t[oc]
// where filter[oc] is the filter's slice feeding output channel oc (for convTranspose2d, with
// groups, the slice [group's input channels, oc mod (Cout/groups)], group = oc / (Cout/groups)),
// with batchNormalization's s = scale / sqrt(variance + epsilon), t = beta − mean · s
// (webnn-spec.md §2 row 3), computed in double and rounded once to float32, as ONNX Runtime does
// with Conv+BatchNormalization and Conv+Mul/Add.
#pragma once

#include "cppnn/graph_model.h"

namespace cppnn::passes {

// The pass (see above); `changed` tells whether it rewrote anything.
Graph fold_batch_norm(const Graph& graph, bool* changed);

}  // namespace cppnn::passes
