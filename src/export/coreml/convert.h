// Graph -> CoreML Model (ML Program, specification version 8, opset CoreML7): the function's
// inputs, the constants (small ones inline, the rest in the weight blob), the lowered
// operations and the named outputs. Deterministic: the same graph gives the same bytes.
#pragma once

#include <memory>

#include "cppnn/coreml.h"
#include "cppnn/graph_model.h"
#include "model.pb.h"
#include "src/export/coreml/weight_blob.h"

namespace cppnn::coreml_export {

// A converted model, its weight file and its features.
struct Conversion {
  CoreML::Specification::Model model;
  WeightBlob weights;
  CoremlPackageInfo info;
};

// Converts `graph`, first decomposing the operations that do not fit coreml_target() (target.h).
// Throws NotSupportedError or OperationError naming the op and its label.
Conversion convert_graph(const Graph& graph);

// A MIL identifier made from a WebNN name: letters, digits and '_' kept, anything else '_', a
// leading digit prefixed with '_' (uniqueness is the caller's).
std::string mil_identifier(std::string_view name);

}  // namespace cppnn::coreml_export
