// Saving a cppnn Graph's constants as a SafeTensors sidecar (webnn-graph-format.md §7.2 writer),
// for writing a graph as `<x>.webnn` (every external constant `@weights("<name>")`) plus
// `<x>.safetensors`.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <utility>

#include "cppnn/graph_model.h"
#include "src/core/atomic_file.h"
#include "src/core/result.h"

namespace cppnn::formats {

// Writes the constants listed in `constants` (a constant operand of `graph` -> its weight name)
// atomically to `dest`. A TypeError for an id that is not a constant operand of the graph; the
// writer's DataErrors otherwise (a name given to two constants with different declarations or
// bytes, ...). Two ids may share a name when they hold the same bytes.
Status save_graph_weights(const Graph& graph,
                          std::span<const std::pair<OperandId, std::string>> constants,
                          const std::filesystem::path& dest);
// The same into an open atomic file, left uncommitted.
Status save_graph_weights_into(AtomicFile& file, const Graph& graph,
                               std::span<const std::pair<OperandId, std::string>> constants);

}  // namespace cppnn::formats
