// softmax on the cpu backend (webnn-spec.md §2 row 87), float32, rows split over the pool. Along
// the last axis (contiguous rows: attention scores, classifier heads) in float32 vector code
// (row_math.h: within 4 ULP, WPT allows 21); along another axis the reference's computation (max,
// then exp(x − max) in double, their double sum, each quotient rounded once), bit-identical, with
// each exponential computed once instead of twice.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/row_math.h"

namespace cppnn::cpu {
namespace {

struct SoftmaxKernel {
  OperandId input, output;
  size_t outer, len, inner;
  std::shared_ptr<ThreadPool> pool;

  // One softmax along the axis: len values at x[k·inner], into y likewise.
  void row(const float* x, float* y, std::vector<double>& e) const {
    double max = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (size_t k = 0; k < len; ++k) {
      const double v = x[k * inner];
      nan = nan || std::isnan(v);
      if (v > max) max = v;
    }
    if (nan) max = std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (size_t k = 0; k < len; ++k) sum += (e[k] = std::exp(double(x[k * inner]) - max));
    for (size_t k = 0; k < len; ++k) y[k * inner] = static_cast<float>(e[k] / sum);
  }

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    if (inner == 1) {
      pool->parallel_ranges(outer, std::max<size_t>(4096 / std::max<size_t>(len, 1), 1),
                            [&](size_t begin, size_t end) {
                              for (size_t r = begin; r < end; ++r)
                                rows::softmax(x + r * len, y + r * len, len);
                            });
      return;
    }
    const size_t rows = outer * inner;
    const size_t tasks = std::min<size_t>(rows, pool->size() * 4);
    pool->parallel_for(tasks, [&](size_t t) {
      thread_local std::vector<double> e;
      if (e.size() < len) e.resize(len);
      for (size_t r = rows * t / tasks; r < rows * (t + 1) / tasks; ++r) {
        const size_t o = r / inner, i = r % inner;
        row(x + o * len * inner + i, y + o * len * inner + i, e);
      }
    });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_softmax(const CompileContext& cc, const Operation& op) {
  const MLOperandDescriptor& in = cc.desc(op.inputs[0]);
  if (in.dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const size_t axis = attrs_of<OpType::kSoftmax>(op.attrs).params.axis;
  SoftmaxKernel k{op.inputs[0], op.outputs[0], 1, in.shape[axis], 1, cc.pool};
  for (size_t d = 0; d < axis; ++d) k.outer *= in.shape[d];
  for (size_t d = axis + 1; d < in.shape.size(); ++d) k.inner *= in.shape[d];
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
