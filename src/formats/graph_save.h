// Saving a Graph as a graph file plus its SafeTensors sidecar (include/cppnn/formats.h
// save_graph_file; the cppnn tools' convert-onnx writes its files the same way).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/graph_model.h"

namespace cppnn::formats {

// Gives every constant that goes to the sidecar a weight ref (unique names: refs it already
// has, else the operand's name, else const_<i>) and clears the refs of the rest (scalar fills,
// and everything when `inline_all`); returns {id, ref} of the external constants, one per
// distinct ref.
std::vector<std::pair<OperandId, std::string>> assign_weight_refs(Graph& graph, bool inline_all,
                                                                  uint64_t max_inline_bytes);

}  // namespace cppnn::formats
