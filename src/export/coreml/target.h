// The CoreML export's support as a BackendDescriptor (design.md "Capabilities are data"): every
// op whose family lowering expresses it (lower.h lowers_<family>), with MIL iOS17's data types:
// float32, float16 and int32 everywhere; int8 and uint8 only where MIL carries them (data
// movement, cast, quantization), where they are WebNN's booleans (logical ops, comparison
// outputs, where's condition) or where the lowering computes in int32 and wraps back (abs, neg,
// sign and the elementwise binary arithmetic); no uint32, int64, uint64, int4 or uint4 (MIL has no
// arithmetic on them). convert_graph() decomposes the rest first (src/passes/decompose.h).
#pragma once

#include "src/backends/backend_descriptor.h"

namespace cppnn::coreml_export {

// The CoreML export's descriptor ("coreml"), built once.
const BackendDescriptor& coreml_target();

}  // namespace cppnn::coreml_export
