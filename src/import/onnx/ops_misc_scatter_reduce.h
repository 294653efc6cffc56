// Accumulating scatters of ONNX ScatterND and ScatterElements (reduction add / mul / max / min,
// opsets 16 and 18), which WebNN's replacing scatterND / scatterElements cannot express directly
// (see ops_misc_scatter_reduce.cpp). ops_misc.cpp dispatches here for reduction != "none".
#pragma once

#include <string>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// ScatterND with reduction `reduction` (add, mul, max or min; DataError for anything else).
void scatter_nd_reduce(NodeContext& c, const std::string& reduction);
// ScatterElements with reduction `reduction` (add, mul, max or min; DataError otherwise).
void scatter_elements_reduce(NodeContext& c, const std::string& reduction);

}  // namespace cppnn::onnx_import
