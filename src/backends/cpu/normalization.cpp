// layerNormalization on the cpu backend (webnn-spec.md §2 row 58), float32, when the normalized
// axes are the trailing dimensions in order (each group a contiguous row, as in every transformer):
// the reference's computation (mean, then the mean squared deviation, in double; (x − mean)/√(var +
// ε)·scale + bias in double, rounded once) in vector loops (row_math.h), rows split over the pool.
// Results match the reference within a few ULP (the sums are taken in another order).
// batchNormalization (row 3), float32, any axis: per channel c, (x − mean[c])·(1/√(variance[c] +
// ε))·scale[c] + bias[c] in double, rounded once (the reference divides by the root: the same
// float32 result but in the rarest ties), channel rows split over the pool.
#include <cmath>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/row_math.h"
#include "src/backends/reference/axis_split.h"
#include "src/ops/normalization_params.h"

namespace cppnn::cpu {
namespace {

struct LayerNormKernel {
  OperandId input, scale, bias, output;
  size_t rows, len;
  double epsilon;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    const float* s = scale.valid() ? reinterpret_cast<const float*>(slots[scale.value]) : nullptr;
    const float* b = bias.valid() ? reinterpret_cast<const float*>(slots[bias.value]) : nullptr;
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const double count = static_cast<double>(len);
    pool->parallel_ranges(
        rows, std::max<size_t>(8192 / std::max<size_t>(len, 1), 1), [&](size_t begin, size_t end) {
          for (size_t r = begin; r < end; ++r) {
            const float* xr = x + r * len;
            const double mean = rows::sum(xr, len) / count;
            const double var = rows::sum_squared_deviations(xr, len, mean) / count;
            rows::normalize(xr, y + r * len, len, mean, 1.0 / std::sqrt(var + epsilon), s, b);
          }
        });
  }
};

// batchNormalization's per-channel parameters as double: mean, 1/√(variance + ε), scale, bias,
// `channels` values each, from the operands' float32 values p (scale and bias may be null: 1, 0).
void channel_params(const float* const p[4], size_t channels, double epsilon, double* out) {
  double *m = out, *k = m + channels, *s = k + channels, *b = s + channels;
  for (size_t c = 0; c < channels; ++c) {
    m[c] = p[0][c];
    k[c] = 1.0 / std::sqrt(double(p[1][c]) + epsilon);
    s[c] = p[2] ? double(p[2][c]) : 1.0;
    b[c] = p[3] ? double(p[3][c]) : 0.0;
  }
}

struct BatchNormKernel {
  OperandId input, output;
  OperandId params_ids[4];  // mean, variance, scale, bias (the last two optional)
  ref::AxisGeometry g;
  double epsilon;
  // channel_params once at build when every parameter is a constant (the usual case), else null
  // and computed at each dispatch.
  std::shared_ptr<const std::vector<double>> constant_params;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const size_t n = g.length;
    const double* params = constant_params ? constant_params->data() : nullptr;
    if (!params) {
      thread_local std::vector<double> scratch;
      scratch.resize(4 * n);
      const float* p[4];
      for (size_t i = 0; i < 4; ++i)
        p[i] = params_ids[i].valid() ? reinterpret_cast<const float*>(slots[params_ids[i].value])
                                     : nullptr;
      channel_params(p, n, epsilon, scratch.data());
      params = scratch.data();
    }
    const double *m = params, *k = m + n, *s = k + n, *b = s + n;
    if (g.inner == 1) {  // the channels are the last axis: a row of them per outer index
      pool->parallel_ranges(g.outer, std::max<size_t>(8192 / std::max<size_t>(n, 1), 1),
                            [&](size_t o0, size_t o1) {
                              for (size_t o = o0; o < o1; ++o)
                                rows::normalize_channels(x + o * n, y + o * n, n, m, k, s, b);
                            });
      return;
    }
    pool->parallel_ranges(g.outer * n, std::max<size_t>(8192 / g.inner, 1),
                          [&](size_t r0, size_t r1) {
                            for (size_t r = r0; r < r1; ++r) {
                              const size_t c = r % n;
                              rows::normalize_channel(x + r * g.inner, y + r * g.inner, g.inner,
                                                      m[c], k[c], s[c], b[c]);
                            }
                          });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_batch_normalization(const CompileContext& cc,
                                                           const Operation& op) {
  const MLOperandDescriptor& in = cc.desc(op.inputs[0]);
  if (in.dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const auto& options = attrs_of<OpType::kBatchNormalization>(op.attrs).options;
  BatchNormKernel k;
  k.input = op.inputs[0];
  k.output = op.outputs[0];
  for (size_t i = 0; i < 4; ++i)
    k.params_ids[i] = i + 1 < op.inputs.size() ? op.inputs[i + 1] : kNoOperand;
  k.g = ref::axis_geometry(in.shape, options.axis);
  if (element_count(in.shape) == 0) return std::nullopt;
  // ε cast to the input type (float32), as the reference does.
  k.epsilon = static_cast<double>(static_cast<float>(options.epsilon));
  const float* p[4];
  bool constant = true;
  for (size_t i = 0; i < 4; ++i) {
    const std::byte* bytes = k.params_ids[i].valid() ? cc.constant(k.params_ids[i]) : nullptr;
    constant = constant && (bytes || !k.params_ids[i].valid());
    p[i] = reinterpret_cast<const float*>(bytes);
  }
  if (constant) {
    auto params = std::make_shared<std::vector<double>>(4 * k.g.length);
    channel_params(p, k.g.length, k.epsilon, params->data());
    k.constant_params = std::move(params);
  }
  k.pool = cc.pool;
  return FastKernel{std::move(k), false};
}

std::optional<FastKernel> compile_fast_layer_normalization(const CompileContext& cc,
                                                           const Operation& op) {
  const MLOperandDescriptor& in = cc.desc(op.inputs[0]);
  if (in.dataType != MLOperandDataType::kFloat32) return std::nullopt;
  const auto& options = attrs_of<OpType::kLayerNormalization>(op.attrs).options;
  const size_t rank = in.shape.size();
  const std::vector<uint32_t> axes = layer_normalization_axes(options, rank);
  if (axes.empty()) return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - axes.size() + i) return std::nullopt;  // not the trailing axes in order
  LayerNormKernel k;
  k.input = op.inputs[0];
  k.scale = op.inputs.size() > 1 ? op.inputs[1] : kNoOperand;
  k.bias = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  k.output = op.outputs[0];
  k.len = 1;
  for (uint32_t a : axes) k.len *= in.shape[a];
  k.rows = k.len == 0 ? 0 : element_count(in.shape) / k.len;
  // ε cast to the input type (float32), as the reference does.
  k.epsilon = static_cast<double>(static_cast<float>(options.epsilon));
  k.pool = cc.pool;
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
