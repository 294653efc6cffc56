// The sum-like reductions on the cpu backend (webnn-spec.md §2 rows 69, 70, 74, 77, 78:
// reduceL1, reduceL2, reduceMean, reduceSum, reduceSumSquare), float32, when the reduced axes are
// adjacent dimensions (in any order: the sums commute): the reference's double accumulation in
// vector loops, so results match it within an ULP (the sums are taken in another order). And
// reduceMax, reduceMin (rows 73, 75) over trailing axes: the element the reference picks (the
// first NaN, else the first equal to the extreme), bit-identical. A
// reduction over the trailing dimensions sums contiguous rows (row_math.h); one with dimensions
// after it sums whole inner rows into a double accumulator per column. Split over the pool.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/row_math.h"
#include "src/ops/reduction_params.h"

namespace cppnn::cpu {
namespace {

enum class Reduce { kL1, kL2, kMean, kSum, kSumSquare, kMax, kMin };

std::optional<Reduce> reduce_kind(OpType type) {
  switch (type) {
    case OpType::kReduceL1:
      return Reduce::kL1;
    case OpType::kReduceL2:
      return Reduce::kL2;
    case OpType::kReduceMean:
      return Reduce::kMean;
    case OpType::kReduceSum:
      return Reduce::kSum;
    case OpType::kReduceSumSquare:
      return Reduce::kSumSquare;
    case OpType::kReduceMax:
      return Reduce::kMax;
    case OpType::kReduceMin:
      return Reduce::kMin;
    default:
      return std::nullopt;
  }
}

// The options of a reduction op (the variant holds one alternative per op, of the same type).
const MLReduceOptions& reduce_options(const Operation& op) {
  using enum OpType;
  switch (op.type) {
    case kReduceL1:
      return attrs_of<kReduceL1>(op.attrs).options;
    case kReduceL2:
      return attrs_of<kReduceL2>(op.attrs).options;
    case kReduceMean:
      return attrs_of<kReduceMean>(op.attrs).options;
    case kReduceSum:
      return attrs_of<kReduceSum>(op.attrs).options;
    case kReduceMax:
      return attrs_of<kReduceMax>(op.attrs).options;
    case kReduceMin:
      return attrs_of<kReduceMin>(op.attrs).options;
    default:
      return attrs_of<kReduceSumSquare>(op.attrs).options;
  }
}

// The reduced value from the accumulated sum of `count` elements.
inline float finish(Reduce kind, double acc, size_t count) {
  if (kind == Reduce::kL2) acc = std::sqrt(acc);
  if (kind == Reduce::kMean) acc /= static_cast<double>(count);
  return static_cast<float>(acc);
}

// acc[i] += f(x[i]) for the inner columns of one reduced row.
CPPNN_CPU_CLONES void accumulate_columns(Reduce kind, const float* x, double* acc, size_t n) {
  switch (kind) {
    case Reduce::kL1:
      for (size_t i = 0; i < n; ++i) acc[i] += x[i] < 0 ? -double(x[i]) : double(x[i]);
      break;
    case Reduce::kL2:
    case Reduce::kSumSquare:
      for (size_t i = 0; i < n; ++i) acc[i] += double(x[i]) * double(x[i]);
      break;
    default:
      for (size_t i = 0; i < n; ++i) acc[i] += double(x[i]);
  }
}

struct ReduceKernel {
  Reduce kind;
  OperandId input, output;
  size_t outer, len, inner;
  std::shared_ptr<ThreadPool> pool;

  double row(const float* x) const {
    switch (kind) {
      case Reduce::kL1:
        return rows::sum_abs(x, len);
      case Reduce::kL2:
      case Reduce::kSumSquare:
        return rows::sum_squares(x, len);
      default:
        return rows::sum(x, len);
    }
  }

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    if (inner == 1) {
      const bool extreme = kind == Reduce::kMax || kind == Reduce::kMin;
      pool->parallel_ranges(outer, std::max<size_t>(8192 / std::max<size_t>(len, 1), 1),
                            [&](size_t begin, size_t end) {
                              for (size_t o = begin; o < end; ++o)
                                y[o] = extreme
                                           ? rows::extreme(x + o * len, len, kind == Reduce::kMax)
                                           : finish(kind, row(x + o * len), len);
                            });
      return;
    }
    // Columns in blocks of kColumns per task.
    constexpr size_t kColumns = 256;
    const size_t blocks = (inner + kColumns - 1) / kColumns;
    pool->parallel_ranges(outer * blocks, std::max<size_t>(32768 / (len * kColumns + 1), 1),
                          [&](size_t begin, size_t end) {
                            double acc[kColumns];
                            for (size_t t = begin; t < end; ++t) {
                              const size_t o = t / blocks, c0 = (t % blocks) * kColumns;
                              const size_t n = std::min(kColumns, inner - c0);
                              std::fill(acc, acc + n, -0.0);
                              for (size_t j = 0; j < len; ++j)
                                accumulate_columns(kind, x + (o * len + j) * inner + c0, acc, n);
                              for (size_t i = 0; i < n; ++i)
                                y[o * inner + c0 + i] = finish(kind, acc[i], len);
                            }
                          });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_reduction(const CompileContext& cc, const Operation& op) {
  const std::optional<Reduce> kind = reduce_kind(op.type);
  if (!kind) return std::nullopt;
  const MLOperandDescriptor& in = cc.desc(op.inputs[0]);
  if (in.dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const MLReduceOptions& options = reduce_options(op);
  std::vector<uint32_t> axes = reduction_axes(options, in.shape.size());
  if (axes.empty()) return std::nullopt;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[0] + i) return std::nullopt;  // not adjacent dimensions
  ReduceKernel k{*kind, op.inputs[0], op.outputs[0], 1, 1, 1, cc.pool};
  const bool extreme = *kind == Reduce::kMax || *kind == Reduce::kMin;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (d < axes.front())
      k.outer *= in.shape[d];
    else if (d <= axes.back())
      k.len *= in.shape[d];
    else
      k.inner *= in.shape[d];
  }
  // reduceMax/reduceMin: rows only (the reference kernel reduces columns), never empty.
  if (extreme && (k.inner != 1 || k.len == 0)) return std::nullopt;
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
