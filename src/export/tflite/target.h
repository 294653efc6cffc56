// The TFLite export's support as a BackendDescriptor (design.md "Capabilities are data"), also
// the litert backend's: every op whose family lowering expresses it (lower.h lowers_<family>),
// NHWC preferred (the layout pass rewrites convolutions, pools and resample2d; filters OHWI,
// depthwise filters IHWO as TFLite's DEPTHWISE_CONV_2D wants), with the passes that give TFLite
// its fast forms (constant folding, batch-norm folding, activation recognition). int4/uint4 data
// is carried unpacked as int8/uint8 (emitter.h): constants are unpacked by the converter, graph
// inputs and outputs by the backend.
// convert_graph() runs the same pipeline first (src/passes/pipeline.h).
#pragma once

#include "src/backends/backend_descriptor.h"

namespace cppnn::tflite_export {

// A descriptor named `name` ("litert" for the backend, "tflite" for the export), built per call.
BackendDescriptor tflite_descriptor(std::string name);
// The export's descriptor ("tflite"), built once.
const BackendDescriptor& tflite_target();

}  // namespace cppnn::tflite_export
