// Reference kernels for the activations (webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59, 60, 68,
// 79, 85, 87-89, 91). Floats compute in double and round once to the output type; double options
// (alpha, beta) and clamp's bounds are first cast to the input type (§3.6). relu, clamp and the
// non-negative branch of leakyRelu/prelu return the input element itself (exact, NaN kept).
// Integer relu, clamp and prelu compute in the integer type (clamp bounds are exact 64-bit
// values; prelu's product wraps).
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/backends/reference/unary_map.h"
#include "src/ops/activations_params.h"

namespace cppnn::ref {
namespace {

// A float32/float16 map with a fixed function of double (no options).
template <class Fn>
Kernel float_map(const KernelContext& kc, const Operation& op, Fn fn) {
  return float_map_kernel(kc, op, [fn](auto) { return fn; });
}

// A double option cast to the element type of T (float32 or float16), as a double.
template <class T>
double option_as(double value) {
  return MLNumber(value).cast_to_double(std::is_same_v<T, Half> ? MLOperandDataType::kFloat16
                                                                : MLOperandDataType::kFloat32);
}

// Wrapping integer product.
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

}  // namespace

// clamp (row 5, erratum §6.1): min(max(x, minValue), maxValue) with absent/NaN bounds = -Inf/+Inf
// and bounds cast to the input type (integers: exact int64/uint64 compare; floats: NaN input
// stays NaN). The result is the input element or a bound, so it is exact.
Kernel compile_clamp(const KernelContext& kc, const Operation& op,
                     const AttrsOf<OpType::kClamp>& attrs) {
  const MLOperandDataType type = kc.desc(op.inputs[0]).dataType;
  const ClampBounds bounds = clamp_bounds(attrs.options);
  return visit_data_type(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      const double lo = bounds.min.cast_to_double(type), hi = bounds.max.cast_to_double(type);
      const T lo_t = from_double<T>(lo), hi_t = from_double<T>(hi);
      return map_kernel<T, T>(kc, op, [=](T x) {
        const double v = to_double(x);
        return v < lo ? lo_t : (v > hi ? hi_t : x);
      });
    } else {
      T lo, hi;
      if constexpr (std::is_signed_v<T>) {
        lo = static_cast<T>(bounds.min.cast_to_int64(type));
        hi = static_cast<T>(bounds.max.cast_to_int64(type));
      } else {
        lo = static_cast<T>(bounds.min.cast_to_uint64(type));
        hi = static_cast<T>(bounds.max.cast_to_uint64(type));
      }
      return map_kernel<T, T>(kc, op, [=](T x) { return x < lo ? lo : (x > hi ? hi : x); });
    }
  });
}

// elu (row 46): x for x > 0, else alpha*(exp(x) - 1) (via expm1); alpha cast to the input type.
Kernel compile_elu(const KernelContext& kc, const Operation& op,
                   const AttrsOf<OpType::kElu>& attrs) {
  const double alpha_option = attrs.options.alpha;
  return float_map_kernel(kc, op, [&](auto tag) {
    const double alpha = option_as<typename decltype(tag)::type>(alpha_option);
    return [alpha](double x) { return x > 0 ? x : alpha * std::expm1(x); };
  });
}

// gelu (row 51): 0.5*x*(1 + erf(x/sqrt(2))), computed as 0.5*x*erfc(-x/sqrt(2)) (the same value,
// without cancellation for negative x).
Kernel compile_gelu(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kGelu>&) {
  return float_map(kc, op, [](double x) { return 0.5 * x * std::erfc(-x / std::numbers::sqrt2); });
}

// hardSigmoid (row 55): max(0, min(1, alpha*x + beta)), options cast to the input type; NaN stays
// NaN.
Kernel compile_hardSigmoid(const KernelContext& kc, const Operation& op,
                           const AttrsOf<OpType::kHardSigmoid>& attrs) {
  const double alpha_option = attrs.options.alpha, beta_option = attrs.options.beta;
  return float_map_kernel(kc, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const double alpha = option_as<T>(alpha_option), beta = option_as<T>(beta_option);
    return [alpha, beta](double x) {
      const double v = alpha * x + beta;
      return v < 0 ? 0.0 : (v > 1 ? 1.0 : v);
    };
  });
}

// hardSwish (row 56): x*max(0, min(6, x + 3))/6; 0 for x <= -3 (also -Inf), x for x >= 3.
Kernel compile_hardSwish(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kHardSwish>&) {
  return float_map(kc, op, [](double x) {
    if (x <= -3) return 0.0;
    if (x >= 3) return x;
    return x * (x + 3) / 6;
  });
}

// leakyRelu (row 59): x for x >= 0, else alpha*x; alpha cast to the input type.
Kernel compile_leakyRelu(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kLeakyRelu>& attrs) {
  const double alpha_option = attrs.options.alpha;
  return float_map_kernel(kc, op, [&](auto tag) {
    const double alpha = option_as<typename decltype(tag)::type>(alpha_option);
    return [alpha](double x) { return x >= 0 ? x : alpha * x; };
  });
}

// linear (row 60): alpha*x + beta, options cast to the input type, rounded once.
Kernel compile_linear(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kLinear>& attrs) {
  const double alpha_option = attrs.options.alpha, beta_option = attrs.options.beta;
  return float_map_kernel(kc, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const double alpha = option_as<T>(alpha_option), beta = option_as<T>(beta_option);
    return [alpha, beta](double x) { return alpha * x + beta; };
  });
}

// prelu (row 68): x for x >= 0, else slope*x, with input and slope broadcast to the output shape
// (floats rounded once; integers wrap).
Kernel compile_prelu(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kPrelu>&) {
  const OperandId in = op.inputs[0], slope = op.inputs[1], out = op.outputs[0];
  const Dims shape = kc.desc(out).shape;
  const std::array<Strides, 3> strides{broadcast_strides(kc.desc(in).shape, shape),
                                       broadcast_strides(kc.desc(slope).shape, shape),
                                       contiguous_strides(shape)};
  return visit_data_type(kc.desc(in).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    return [=](std::span<std::byte* const> slots) {
      const T* px = data_of<T>(slots, in);
      const T* ps = data_of<T>(slots, slope);
      T* py = data_of<T>(slots, out);
      for_each_offset(shape, strides, [&](const std::array<int64_t, 3>& o) {
        const T x = px[o[0]];
        if constexpr (kIsFloat<T>) {
          const double v = to_double(x);
          py[o[2]] = v >= 0 ? x : from_double<T>(to_double(ps[o[1]]) * v);
        } else if constexpr (std::is_signed_v<T>) {
          py[o[2]] = x >= 0 ? x : wrap_mul(ps[o[1]], x);
        } else {
          py[o[2]] = x;
        }
      });
    };
  });
}

// relu (row 79): max(0, x); x itself for x > 0 and NaN, else +0 (floats) or 0.
Kernel compile_relu(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kRelu>&) {
  return visit_data_type(kc.desc(op.inputs[0]).dataType, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_kernel<T, T>(kc, op, [](T x) -> T {
      if constexpr (kIsFloat<T>) {
        const double v = to_double(x);
        return (v > 0 || v != v) ? x : T{};
      } else if constexpr (std::is_signed_v<T>) {
        return x < 0 ? T{0} : x;
      } else {
        return x;
      }
    });
  });
}

// sigmoid (row 85): 1/(1 + exp(-x)).
Kernel compile_sigmoid(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kSigmoid>&) {
  return float_map(kc, op, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

// softmax (row 87): exp(x - max)/Σ exp(x - max) along `axis`, max-subtracted, summed in double,
// each output rounded once.
Kernel compile_softmax(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kSoftmax>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const Dims& shape = kc.desc(in).shape;
  const size_t axis = attrs.params.axis;
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const size_t len = shape[axis];
  return visit_data_type(kc.desc(in).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsFloat<T>) {
      throw OperationError("reference backend: softmax expects a float32 or float16 input");
    } else {
      return [=](std::span<std::byte* const> slots) {
        const T* x = data_of<T>(slots, in);
        T* y = data_of<T>(slots, out);
        for (size_t o = 0; o < outer; ++o) {
          for (size_t i = 0; i < inner; ++i) {
            const size_t base = o * len * inner + i;
            double max = -std::numeric_limits<double>::infinity();
            bool nan = false;
            for (size_t k = 0; k < len; ++k) {
              const double v = to_double(x[base + k * inner]);
              nan = nan || std::isnan(v);
              if (v > max) max = v;
            }
            if (nan) max = std::numeric_limits<double>::quiet_NaN();
            double sum = 0;
            for (size_t k = 0; k < len; ++k) sum += std::exp(to_double(x[base + k * inner]) - max);
            for (size_t k = 0; k < len; ++k) {
              const size_t at = base + k * inner;
              y[at] = from_double<T>(std::exp(to_double(x[at]) - max) / sum);
            }
          }
        }
      };
    }
  });
}

// softplus (row 88): ln(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) (no overflow).
Kernel compile_softplus(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kSoftplus>&) {
  return float_map(kc, op, [](double x) {
    if (std::isnan(x)) return x;
    return (x > 0 ? x : 0.0) + std::log1p(std::exp(-std::fabs(x)));
  });
}

// softsign (row 89): x/(1 + |x|); ±Inf give their limit ±1.
Kernel compile_softsign(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kSoftsign>&) {
  return float_map(kc, op, [](double x) {
    if (std::isinf(x)) return std::copysign(1.0, x);
    return x / (1 + std::fabs(x));
  });
}

// tanh (row 91), in double, rounded once.
Kernel compile_tanh(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kTanh>&) {
  return float_map(kc, op, [](double x) { return std::tanh(x); });
}

}  // namespace cppnn::ref
