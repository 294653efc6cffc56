// Memory planning by liveness for CPU backends: every intermediate operand (an operation result
// that is not a graph output) gets an offset in one arena, and two intermediates share bytes only
// when their lifetimes (from the operation producing them to the last operation reading them)
// do not overlap, or when one is a view of the other: a reshape or identity (without fused
// activations) of an intermediate into an intermediate holds the same bytes in the same order, so
// it shares its input's buffer (whose lifetime then extends to the view's last reader) and runs
// no kernel.
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
  // By operand id: the intermediate whose buffer it is a view of (through any chain of views),
  // or its own id.
  std::vector<uint32_t> storage;
  // By operation index: the operation is a view (its output shares its input's bytes; no kernel
  // runs).
  std::vector<bool> is_view;
};

// Plans the intermediates of `graph` (offsets aligned to `alignment` bytes).
MemoryPlan plan_memory(const Graph& graph, uint64_t alignment = 64);

}  // namespace cppnn::passes
