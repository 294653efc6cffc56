// Reference kernels for the normalizations (webnn-spec.md §2 rows 3, 57 and 58). Everything is
// computed in double: the mean and the (population) variance in two passes, then
// y = (x − mean) / √(variance + ε) · scale + bias, rounded once to the input type. ε is first cast
// to the input type (§3.6), as an fp16 device would hold it.
#include <cmath>
#include <cstdint>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/axis_split.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/ops/normalization_params.h"

namespace cppnn::ref {
namespace {

// The i-th operand of op, or kNoOperand when it is an absent optional operand.
OperandId optional_input(const Operation& op, size_t i) {
  return i < op.inputs.size() ? op.inputs[i] : kNoOperand;
}

// Calls f(Tag<T>{}) for a float element type (the only ones the normalizations accept).
template <class F>
Kernel visit_float(MLOperandDataType t, F&& f) {
  return visit_data_type(t, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>)
      return f(tag);
    else
      throw OperationError("reference backend: normalizations take float32 or float16 data");
  });
}

// The optional per-element parameter p[i] as double, or `absent` without the operand.
template <class T>
double param_or(const T* p, size_t i, double absent) {
  return p ? to_double(p[i]) : absent;
}

// Optional operand data, or nullptr when the operand is absent.
template <class T>
const T* optional_data(std::span<std::byte* const> slots, OperandId id) {
  return id.valid() ? data_of<T>(slots, id) : nullptr;
}

}  // namespace

// batchNormalization: y = (x − mean[c]) / √(variance[c] + ε) · scale[c] + bias[c], c the index
// along `axis`; scale defaults to 1 and bias to 0 (row 3).
Kernel compile_batchNormalization(const KernelContext& kc, const Operation& op,
                                  const AttrsOf<OpType::kBatchNormalization>& attrs) {
  const OperandId in = op.inputs[0], mean = op.inputs[1], variance = op.inputs[2];
  const OperandId scale = optional_input(op, 3), bias = optional_input(op, 4);
  const OperandId out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const AxisGeometry g = axis_geometry(desc.shape, attrs.options.axis);
  return visit_float(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    const double eps = to_double(from_double<T>(attrs.options.epsilon));
    return [=](std::span<std::byte* const> slots) {
      const T* px = data_of<T>(slots, in);
      const T* pm = data_of<T>(slots, mean);
      const T* pv = data_of<T>(slots, variance);
      const T* ps = optional_data<T>(slots, scale);
      const T* pb = optional_data<T>(slots, bias);
      T* py = data_of<T>(slots, out);
      for (size_t o = 0; o < g.outer; ++o) {
        for (size_t c = 0; c < g.length; ++c) {
          const double m = to_double(pm[c]);
          const double d = std::sqrt(to_double(pv[c]) + eps);
          const double s = param_or(ps, c, 1.0), b = param_or(pb, c, 0.0);
          const size_t base = (o * g.length + c) * g.inner;
          for (size_t i = base; i < base + g.inner; ++i)
            py[i] = from_double<T>((to_double(px[i]) - m) / d * s + b);
        }
      }
    };
  });
}

// instanceNormalization: per batch n and channel c, normalize over the spatial dims with their
// own mean and variance, then · scale[c] + bias[c]; layout nchw or nhwc (row 57).
Kernel compile_instanceNormalization(const KernelContext& kc, const Operation& op,
                                     const AttrsOf<OpType::kInstanceNormalization>& attrs) {
  const OperandId in = op.inputs[0], scale = optional_input(op, 1), bias = optional_input(op, 2);
  const OperandId out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const bool nchw = attrs.options.layout == MLInputOperandLayout::kNchw;
  const size_t batches = desc.shape[0], channels = desc.shape[nchw ? 1 : 3];
  const size_t spatial = static_cast<size_t>(desc.shape[nchw ? 2 : 1]) * desc.shape[nchw ? 3 : 2];
  // Element (n, c, s) of the spatial index s is at n·C·S + c·channel_step + s·spatial_step.
  const size_t channel_step = nchw ? spatial : 1, spatial_step = nchw ? 1 : channels;
  return visit_float(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    const double eps = to_double(from_double<T>(attrs.options.epsilon));
    return [=](std::span<std::byte* const> slots) {
      const T* px = data_of<T>(slots, in);
      const T* ps = optional_data<T>(slots, scale);
      const T* pb = optional_data<T>(slots, bias);
      T* py = data_of<T>(slots, out);
      for (size_t n = 0; n < batches; ++n) {
        for (size_t c = 0; c < channels; ++c) {
          const size_t base = n * channels * spatial + c * channel_step;
          double sum = 0;
          for (size_t s = 0; s < spatial; ++s) sum += to_double(px[base + s * spatial_step]);
          const double m = sum / static_cast<double>(spatial);
          double sq = 0;
          for (size_t s = 0; s < spatial; ++s) {
            const double e = to_double(px[base + s * spatial_step]) - m;
            sq += e * e;
          }
          const double d = std::sqrt(sq / static_cast<double>(spatial) + eps);
          const double k = param_or(ps, c, 1.0), b = param_or(pb, c, 0.0);
          for (size_t s = 0; s < spatial; ++s) {
            const size_t i = base + s * spatial_step;
            py[i] = from_double<T>((to_double(px[i]) - m) / d * k + b);
          }
        }
      }
    };
  });
}

// layerNormalization: normalize over `axes` (default [1..rank-1]) with the mean and variance of
// each group, then · scale + bias, whose dims are those of `axes` in the given order (row 58).
Kernel compile_layerNormalization(const KernelContext& kc, const Operation& op,
                                  const AttrsOf<OpType::kLayerNormalization>& attrs) {
  const OperandId in = op.inputs[0], scale = optional_input(op, 1), bias = optional_input(op, 2);
  const OperandId out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const std::vector<uint32_t> axes = layer_normalization_axes(attrs.options, desc.shape.size());
  // Walking the group in `axes` order makes the j-th element of a group use scale[j] and bias[j].
  const AxisSplit split = split_axes(desc.shape, axes);
  return visit_float(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    const double eps = to_double(from_double<T>(attrs.options.epsilon));
    const std::array<Strides, 1> outer{split.outer_strides};
    return [=, outer_shape = split.outer_shape,
            inner = split.inner_offsets](std::span<std::byte* const> slots) {
      const T* px = data_of<T>(slots, in);
      const T* ps = optional_data<T>(slots, scale);
      const T* pb = optional_data<T>(slots, bias);
      T* py = data_of<T>(slots, out);
      const double count = static_cast<double>(inner.size());
      for_each_offset(outer_shape, outer, [&](const std::array<int64_t, 1>& o) {
        const T* x = px + o[0];
        double sum = 0;
        for (int64_t off : inner) sum += to_double(x[off]);
        const double m = sum / count;
        double sq = 0;
        for (int64_t off : inner) {
          const double e = to_double(x[off]) - m;
          sq += e * e;
        }
        const double d = std::sqrt(sq / count + eps);
        for (size_t j = 0; j < inner.size(); ++j)
          py[o[0] + inner[j]] = from_double<T>(
              (to_double(x[inner[j]]) - m) / d * param_or(ps, j, 1.0) + param_or(pb, j, 0.0));
      });
    };
  });
}

}  // namespace cppnn::ref
