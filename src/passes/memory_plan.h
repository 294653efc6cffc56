// Memory planning by liveness for CPU backends: every intermediate operand (an operation result
// that is not a graph output) gets an offset in one arena, and two intermediates share bytes only
// when their lifetimes (from the operation producing them to the last operation reading them)
// do not overlap.
#pragma once

#include <cstdint>
#include <vector>

#include "cppnn/graph_model.h"

namespace cppnn::passes {

struct MemoryPlan {
  static constexpr uint64_t kNotPlanned = UINT64_MAX;
  std::vector<uint64_t> offsets;  // by operand id; kNotPlanned for inputs, constants, outputs
  uint64_t arena_bytes = 0;       // the arena size the offsets need
  uint64_t unplanned_bytes = 0;   // what one buffer per intermediate would take (for reports)
};

// Plans the intermediates of `graph` (offsets aligned to `alignment` bytes).
MemoryPlan plan_memory(const Graph& graph, uint64_t alignment = 64);

}  // namespace cppnn::passes
