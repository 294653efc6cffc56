// softmax on the cpu backend (webnn-spec.md §2 row 87), float32, rows split over the pool. Along
// the last axis (contiguous rows: attention scores, classifier heads) in float32 vector code
// (row_math.h: within 4 ULP, WPT allows 21); along another axis the reference's computation (max,
// then exp(x − max) in double, their double sum, each quotient rounded once), with each
// exponential computed once instead of twice, kDoubles neighbouring softmaxes (columns along the
// inner dimensions: a detector's distribution over its channels) at once in double vectors
// (vmath::exp_double: bit-identical to the reference but in the rarest ties).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/row_math.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/vector_math.h"

namespace cppnn::cpu {
namespace {

// The softmaxes of columns [i, i + kDoubles) of a [len, inner] block x (each along len, values
// `inner` apart) into y, as SoftmaxKernel::row computes each; e holds len·kDoubles values.
CPPNN_CPU_CLONES void softmax_columns(const float* x, float* y, size_t len, size_t inner,
                                      double* e) {
  using simd::VD;
  VD max = VD{} - std::numeric_limits<double>::infinity();
  auto nan = simd::VL{};
  for (size_t k = 0; k < len; ++k) {
    const VD v = simd::load_double(x + k * inner);
    nan |= v != v;
    max = simd::sel(v > max, v, max);
  }
  max = simd::sel(nan, VD{} + std::numeric_limits<double>::quiet_NaN(), max);
  VD sum = VD{};
  constexpr size_t D = simd::kDoubles;
  for (size_t k = 0; k < len; ++k) {
    const VD ek = vmath::exp_double(simd::load_double(x + k * inner) - max);
    simd::store(e + k * D, ek);
    sum += ek;
  }
  for (size_t k = 0; k < len; ++k) {
    const VD q = simd::load(e + k * D) / sum;
    for (size_t j = 0; j < simd::kDoubles; ++j) y[k * inner + j] = static_cast<float>(q[j]);
  }
}

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
    // Units of kDoubles columns (a last partial one column by column).
    constexpr size_t D = simd::kDoubles;
    const size_t groups = (inner + D - 1) / D, units = outer * groups;
    const size_t tasks = std::min<size_t>(units, pool->size() * 4);
    pool->parallel_for(tasks, [&](size_t t) {
      thread_local std::vector<double> e;
      if (e.size() < len * D) e.resize(len * D);
      for (size_t u = units * t / tasks; u < units * (t + 1) / tasks; ++u) {
        const size_t o = u / groups, i0 = (u % groups) * D;
        const float* xo = x + o * len * inner;
        float* yo = y + o * len * inner;
        if (i0 + D <= inner) {
          softmax_columns(xo + i0, yo + i0, len, inner, e.data());
          continue;
        }
        for (size_t i = i0; i < inner; ++i) row(xo + i, yo + i, e);
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
