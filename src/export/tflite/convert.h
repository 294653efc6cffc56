// Graph -> TFLite model (schema version 3, one subgraph, one SignatureDef "serving_default"):
// inputs in their WebNN types (float16 cast to float32 inside, int4/uint4 as int8/uint8), the
// constants as buffers, the lowered operators, the named outputs. Deterministic: the same graph
// gives the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cppnn/graph_model.h"
#include "cppnn/tflite.h"

namespace cppnn::tflite_export {

// A converted model and its inputs and outputs.
struct Conversion {
  std::vector<uint8_t> bytes;
  TfliteModelInfo info;  // with ConstantOutputs::kExclude, only the outputs in the model
  // Per graph output (Graph::outputs order): with ConstantOutputs::kExclude, the bytes of an
  // output left out of the model because it is constant (its WebNN type and layout: float16 as
  // float16, int4 packed); nullopt for the outputs the model computes.
  std::vector<std::optional<std::vector<std::byte>>> constant_outputs;
};

// Which graph outputs a conversion writes.
enum class ConstantOutputs {
  kInclude,  // every output (a constant output is copied into its tensor by an operator)
  kExclude,  // only the outputs that are not constants (Conversion::constant_outputs has the
             // others): LiteRT precomputes operators on constants at Prepare into read-only
             // memory and never writes such an output's bound buffer, so the litert backend
             // copies constant outputs itself
};

// Converts `graph` as it is: every operation must fit tflite_target() (the backend's pipeline
// already ran). Throws NotSupportedError or OperationError naming the op and its label.
Conversion convert_prepared(const Graph& graph,
                            ConstantOutputs constant_outputs = ConstantOutputs::kInclude);
// Runs the export's pass pipeline (decompositions, NHWC layout, folding; target.h) on `graph`,
// then converts it.
Conversion convert_graph(const Graph& graph);

}  // namespace cppnn::tflite_export
