// Layout conversion for backends that prefer NHWC (BackendDescriptor::preferred_layout): conv2d,
// convTranspose2d, the pools, resample2d, batchNormalization and instanceNormalization of NCHW
// graphs are rewritten in NHWC (filters in the backend's filter layout) with a transpose before
// and after, and those transposes are sunk: through elementwise unary ops and activations, through
// binary ops (and where, prelu, concat) whose other operands are constants, already in the same
// layout, or a plain reshape away from it, through gather (along the mapped axis) and through the
// reductions and argMin/argMax (over the mapped axes, keepDimensions or not, when the reduced
// elements keep their order); inverse transposes cancel and transposes of constants become
// permuted constants. A chain of convolutions and elementwise ops so carries one transpose at its
// input and one at its output. Values are unchanged (every rewrite only moves data; a reduction
// meets the same elements in the same order).
#pragma once

#include "cppnn/enums.h"
#include "cppnn/graph_model.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::passes {

// The filter layouts the rewritten convolutions use (TFLite's by default: OHWI).
struct LayoutOptions {
  MLConv2dFilterOperandLayout conv2d_filter = MLConv2dFilterOperandLayout::kOhwi;
  // conv2d with groups == input channels > 1 (TFLite's DEPTHWISE_CONV_2D wants ihwo).
  MLConv2dFilterOperandLayout depthwise_conv2d_filter = MLConv2dFilterOperandLayout::kOhwi;
  MLConvTranspose2dFilterOperandLayout conv_transpose2d_filter =
      MLConvTranspose2dFilterOperandLayout::kOhwi;
};

// The pass (see above) with the default LayoutOptions; `changed` tells whether it rewrote anything
// (the graph is returned as it was otherwise). Runs only when backend.preferred_layout is NHWC.
Graph convert_layout(const Graph& graph, const BackendDescriptor& backend, bool* changed);
// The pass with explicit filter layouts.
Graph convert_layout(const Graph& graph, const BackendDescriptor& backend,
                     const LayoutOptions& options, bool* changed);

}  // namespace cppnn::passes
