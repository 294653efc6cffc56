// Memory planning by liveness: views found first (each shares its input's buffer), lifetimes of
// the buffers over the operation order, then
// greedy-by-size placement with best fit (as TFLite's arena planner and ONNX Runtime's memory
// patterns do): the biggest buffers are placed first, each in the smallest gap between the
// already placed buffers whose lifetimes overlap its own, else above them.
#include "src/passes/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace cppnn::passes {
namespace {

// One intermediate to place: its operand, aligned size and lifetime [first, last] in operation
// indices (both inclusive).
struct Buffer {
  uint32_t id = 0;
  uint64_t bytes = 0;
  size_t first = 0, last = 0;
  uint64_t offset = 0;
};

// Rounds `n` up to a multiple of `alignment`.
uint64_t align_up(uint64_t n, uint64_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// Whether operand i is an intermediate: an operation result that is not a graph output.
std::vector<bool> intermediate_flags(const Graph& graph) {
  std::vector<bool> flags(graph.operands.size(), false);
  for (uint32_t i = 0; i < graph.operands.size(); ++i)
    flags[i] = graph.operands[i].kind == OperandKind::kOperationResult;
  for (const auto& [name, id] : graph.outputs) flags[id.value] = false;
  return flags;
}

// The views (memory_plan.h) of `graph`: plan.storage and plan.is_view.
void find_views(const Graph& graph, const std::vector<bool>& intermediate, MemoryPlan& plan) {
  plan.storage.resize(graph.operands.size());
  for (uint32_t i = 0; i < graph.operands.size(); ++i) plan.storage[i] = i;
  plan.is_view.assign(graph.operations.size(), false);
  for (size_t k = 0; k < graph.operations.size(); ++k) {
    const Operation& op = graph.operations[k];
    if ((op.type != OpType::kReshape && op.type != OpType::kIdentity) || !op.activations.empty() ||
        op.inputs.size() != 1 || op.outputs.size() != 1)
      continue;
    const OperandId in = op.inputs[0], out = op.outputs[0];
    if (!intermediate[in.value] || !intermediate[out.value] ||
        byte_length(graph.descriptor(in)) != byte_length(graph.descriptor(out)))
      continue;
    plan.storage[out.value] = plan.storage[in.value];  // operations are in topological order
    plan.is_view[k] = true;
  }
}

// The buffers of `graph`'s intermediates, one per storage (views share theirs), with aligned
// sizes and lifetimes: from the producing operation to the last operation reading the operand or
// any view of it (fused activations run within the producer, so they add nothing). A result
// nobody reads lives only during its producer.
std::vector<Buffer> intermediates(const Graph& graph, const std::vector<bool>& intermediate,
                                  const std::vector<uint32_t>& storage, uint64_t alignment) {
  std::vector<size_t> last(graph.operands.size(), 0);
  for (size_t k = 0; k < graph.operations.size(); ++k)
    for (OperandId in : graph.operations[k].inputs)
      if (in.valid()) last[storage[in.value]] = std::max(last[storage[in.value]], k);
  std::vector<Buffer> buffers;
  for (uint32_t i = 0; i < graph.operands.size(); ++i) {
    if (!intermediate[i] || storage[i] != i) continue;
    const OperandInfo& info = graph.operands[i];
    const uint64_t bytes = std::max<uint64_t>(byte_length(info.descriptor), 1);
    buffers.push_back({i, align_up(bytes, alignment), info.producer,
                       std::max<size_t>(info.producer, last[i]), 0});
  }
  return buffers;
}

// Whether two lifetimes share an operation.
bool overlaps(const Buffer& a, const Buffer& b) {
  return a.first <= b.last && b.first <= a.last;
}

// The best-fit offset of `b` among `placed` (sorted by offset): the smallest gap between the
// placed buffers that live at the same time as `b` that holds it, else the first offset above
// them all.
uint64_t best_fit(const Buffer& b, const std::vector<const Buffer*>& placed) {
  uint64_t cursor = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
  for (const Buffer* p : placed) {
    if (!overlaps(*p, b)) continue;
    if (p->offset >= cursor) {
      const uint64_t gap = p->offset - cursor;
      if (gap >= b.bytes && gap < best_gap) {
        best = cursor;
        best_gap = gap;
      }
    }
    cursor = std::max(cursor, p->offset + p->bytes);
  }
  return best == UINT64_MAX ? cursor : best;
}

}  // namespace

// Plans the intermediates: lifetimes, then greedy by size (ties: earlier first use, then lower
// operand id, so the plan is deterministic) with best-fit offsets.
MemoryPlan plan_memory(const Graph& graph, uint64_t alignment) {
  alignment = std::max<uint64_t>(alignment, 1);
  MemoryPlan plan;
  plan.offsets.assign(graph.operands.size(), MemoryPlan::kNotPlanned);
  const std::vector<bool> intermediate = intermediate_flags(graph);
  find_views(graph, intermediate, plan);
  std::vector<Buffer> buffers = intermediates(graph, intermediate, plan.storage, alignment);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const Buffer &a = buffers[x], &b = buffers[y];
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.first != b.first) return a.first < b.first;
    return a.id < b.id;
  });
  std::vector<const Buffer*> placed;  // sorted by offset, then operand id
  placed.reserve(buffers.size());
  for (size_t index : order) {
    Buffer& b = buffers[index];
    b.offset = best_fit(b, placed);
    const auto at =
        std::upper_bound(placed.begin(), placed.end(), &b, [](const Buffer* x, const Buffer* y) {
          return x->offset != y->offset ? x->offset < y->offset : x->id < y->id;
        });
    placed.insert(at, &b);
    plan.offsets[b.id] = b.offset;
    plan.arena_bytes = std::max(plan.arena_bytes, b.offset + b.bytes);
  }
  // Views take their storage's offset; every intermediate counts in the unplanned total.
  for (uint32_t i = 0; i < graph.operands.size(); ++i) {
    if (!intermediate[i]) continue;
    plan.offsets[i] = plan.offsets[plan.storage[i]];
    plan.unplanned_bytes +=
        align_up(std::max<uint64_t>(byte_length(graph.operands[i].descriptor), 1), alignment);
  }
  return plan;
}

}  // namespace cppnn::passes
