// Fusion, for backends that opt in (PassSelection::fuse): conv2d/convTranspose2d/matmul/gemm
// followed by a bias add (folded into the op's bias where the op has one) and elementwise
// activations or clamps (recorded in Operation::activations), when each intermediate has no other
// use; with PassSelection::fuse_silu also mul(x, sigmoid(x)) on float32, as a sigmoid times its
// input (FusedActivation::times_input).
#pragma once

#include "cppnn/graph_model.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::passes {

// The pass (see above); `changed` tells whether it rewrote anything (the graph is returned as it
// was otherwise).
Graph fuse(const Graph& graph, const BackendDescriptor& backend, bool* changed);

}  // namespace cppnn::passes
