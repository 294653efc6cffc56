// int4/uint4 unpacking (webnn-spec.md dequantizeLinear/quantizeLinear of int4 and uint4): for a
// backend without native int4/uint4 (no native role lists the type), every int4/uint4 constant
// becomes an int8/uint8 constant, unpacked once at build, never per dispatch; the operations
// reading it are re-recorded on the wider type (dequantizeLinear on int8/uint8; quantizeLinear to
// int8/uint8 clamped to the 4-bit range where a dequantizeLinear reads its result). A packed
// graph input, and a packed graph output, keep their type: the op reading or producing them then
// has no native form (NotSupportedError at build).
#pragma once

#include "cppnn/graph_model.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::passes {

// The pass (see above); `changed` tells whether it rewrote anything (the graph is returned as it
// was otherwise).
Graph unpack_int4(const Graph& graph, const BackendDescriptor& backend, bool* changed);

}  // namespace cppnn::passes
