// The data movement ops on the cpu backend (webnn-spec.md §2 rows 6, 47, 81, 82, 86, 90, 92, 93:
// concat, expand, reshape, reverse, slice, split, tile, transpose, and pad in constant mode, row
// 64), any element type of whole bytes: the reference's strided copies (reference/strided_copy.h,
// bit-exact, dimensions coalesced at build) with their runs split over the pool. Small copies stay
// on the calling thread.
#include <algorithm>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/reference/strided_copy.h"

namespace cppnn::cpu {
namespace {

// Bytes a task copies at least (smaller copies are not worth a thread).
constexpr size_t kTaskBytes = 32 * 1024;

struct CopyKernel {
  std::vector<ref::CopyPart> parts;
  std::vector<size_t> first_run;  // per part: the index of its first run among all parts' runs
  size_t runs = 0, grain = 1;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    pool->parallel_ranges(runs, grain, [&](size_t begin, size_t end) {
      for (size_t i = 0; i < parts.size(); ++i) {
        const size_t lo = first_run[i], hi = lo + parts[i].copy.outer_count();
        if (hi <= begin || lo >= end) continue;
        const std::byte* from = slots[parts[i].from.value];
        std::byte* to = slots[parts[i].to.value];
        if (from == to) continue;  // an in-place reshape
        parts[i].copy.run(from, to, std::max(begin, lo) - lo, std::min(end, hi) - lo);
      }
    });
  }
};

// pad in constant mode: the fill, then the interior copy, each split over the pool.
struct PadKernel {
  ref::ConstantPad pad;
  size_t grain = 1;  // interior runs per task
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    std::byte* out = slots[pad.to.value];
    if (pad.padded)
      pool->parallel_ranges(pad.out_count, kTaskBytes / pad.esize, [&](size_t b, size_t e) {
        ref::fill_elements(out + b * pad.esize, pad.value.data(), pad.esize, e - b);
      });
    pool->parallel_ranges(pad.interior.outer_count(), grain, [&](size_t b, size_t e) {
      pad.interior.run(slots[pad.from.value], out, b, e);
    });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_copy(const CompileContext& cc, const Operation& op) {
  if (std::optional<ref::ConstantPad> pad = ref::constant_pad(cc.graph, op)) {
    const size_t grain =
        std::max<size_t>(kTaskBytes / std::max<size_t>(pad->interior.run_bytes(), 1), 1);
    return FastKernel{PadKernel{std::move(*pad), grain, cc.pool}, false};
  }
  std::optional<std::vector<ref::CopyPart>> parts = ref::copy_parts(cc.graph, op);
  if (!parts) return std::nullopt;
  CopyKernel k;
  size_t bytes = 0;
  for (const ref::CopyPart& p : *parts) {
    k.first_run.push_back(k.runs);
    k.runs += p.copy.outer_count();
    bytes += p.copy.outer_count() * p.copy.run_bytes();
  }
  // Runs per task so that a task copies about kTaskBytes or more.
  const size_t run_bytes = k.runs == 0 ? 1 : std::max<size_t>(bytes / k.runs, 1);
  k.grain = std::max<size_t>(kTaskBytes / run_bytes, 1);
  k.parts = std::move(*parts);
  k.pool = cc.pool;
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
