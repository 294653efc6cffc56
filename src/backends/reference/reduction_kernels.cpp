// Reference kernels for the reductions, argMin/argMax and cumulativeSum (webnn-spec.md §2 rows
// 1-2, 9 and 69-78). Floats accumulate in double and round once to the output type per output
// element; integers use wrapping two's complement arithmetic (through the unsigned type of the
// same width), and reduceMax/reduceMin/argMin/argMax compare in the element type.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/axis_split.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/ops/reduction_params.h"

namespace cppnn::ref {
namespace {

// The unsigned type of the same width, for wrapping integer arithmetic without UB.
template <class T>
using Wrap = std::make_unsigned_t<T>;

// The running-sum type of cumulativeSum: double for floats, the wrapping unsigned type for
// integers.
template <class T, bool = kIsFloat<T>>
struct Accumulator {
  using type = double;
};
template <class T>
struct Accumulator<T, false> {
  using type = Wrap<T>;
};

// The reductions that are only defined for floating-point data (f32, f16).
template <OpType Op>
inline constexpr bool kFloatOnly = Op == OpType::kReduceL2 || Op == OpType::kReduceLogSum ||
                                   Op == OpType::kReduceLogSumExp || Op == OpType::kReduceMean;

// reduceMax/reduceMin of the n elements p[inner[i]]: the extreme element itself (bit-exact; the
// first one on ties). A NaN among float elements propagates (the first NaN is returned).
template <bool IsMax, class T>
T extreme(const T* p, const int64_t* inner, size_t n) {
  T best = p[inner[0]];
  if constexpr (kIsFloat<T>) {
    double b = to_double(best);
    if (std::isnan(b)) return best;
    for (size_t i = 1; i < n; ++i) {
      const double v = to_double(p[inner[i]]);
      if (std::isnan(v)) return p[inner[i]];
      if (IsMax ? v > b : v < b) {
        b = v;
        best = p[inner[i]];
      }
    }
  } else {
    for (size_t i = 1; i < n; ++i) {
      const T v = p[inner[i]];
      if (IsMax ? v > best : v < best) best = v;
    }
  }
  return best;
}

// ln Σ exp(x) in double, shifted by the largest element so that it neither overflows nor
// underflows; an infinite (or NaN) largest element falls back to the plain formula. A single
// element is returned as is.
template <class T>
double log_sum_exp(const T* p, const int64_t* inner, size_t n) {
  if (n == 1) return to_double(p[inner[0]]);  // exactly x (axes = [])
  double m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = std::fmax(m, to_double(p[inner[i]]));
  double sum = 0;
  if (!std::isfinite(m)) {
    for (size_t i = 0; i < n; ++i) sum += std::exp(to_double(p[inner[i]]));
    return std::log(sum);
  }
  for (size_t i = 0; i < n; ++i) sum += std::exp(to_double(p[inner[i]]) - m);
  return m + std::log(sum);
}

// One reduced value of the n elements p[inner[i]].
template <OpType Op, class T>
T reduce_one(const T* p, const int64_t* inner, size_t n) {
  if constexpr (Op == OpType::kReduceMax) {
    return extreme<true>(p, inner, n);
  } else if constexpr (Op == OpType::kReduceMin) {
    return extreme<false>(p, inner, n);
  } else if constexpr (Op == OpType::kReduceLogSumExp) {
    return from_double<T>(log_sum_exp(p, inner, n));
  } else if constexpr (kIsFloat<T>) {
    // -0 is the exact additive identity: a sum of -0 elements stays -0.
    double acc = Op == OpType::kReduceProduct ? 1.0 : -0.0;
    for (size_t i = 0; i < n; ++i) {
      const double x = to_double(p[inner[i]]);
      if constexpr (Op == OpType::kReduceL1) acc += std::fabs(x);
      if constexpr (Op == OpType::kReduceL2 || Op == OpType::kReduceSumSquare) acc += x * x;
      if constexpr (Op == OpType::kReduceLogSum || Op == OpType::kReduceMean ||
                    Op == OpType::kReduceSum)
        acc += x;
      if constexpr (Op == OpType::kReduceProduct) acc *= x;
    }
    if constexpr (Op == OpType::kReduceL2) acc = std::sqrt(acc);
    if constexpr (Op == OpType::kReduceLogSum) acc = std::log(acc);
    if constexpr (Op == OpType::kReduceMean) acc /= static_cast<double>(n);
    return from_double<T>(acc);
  } else {
    using U = Wrap<T>;
    U acc = Op == OpType::kReduceProduct ? 1 : 0;
    for (size_t i = 0; i < n; ++i) {
      const T x = p[inner[i]];
      const U u = static_cast<U>(x);
      if constexpr (Op == OpType::kReduceL1) {
        if constexpr (std::is_signed_v<T>)
          acc = static_cast<U>(acc + (x < 0 ? static_cast<U>(U(0) - u) : u));
        else
          acc = static_cast<U>(acc + u);
      }
      if constexpr (Op == OpType::kReduceSumSquare)
        acc = static_cast<U>(acc + static_cast<U>(u * u));
      if constexpr (Op == OpType::kReduceSum) acc = static_cast<U>(acc + u);
      if constexpr (Op == OpType::kReduceProduct) acc = static_cast<U>(acc * u);
    }
    return static_cast<T>(acc);
  }
}

// A reduction over the validated axes (absent: all, []: none, so each output is fn of one
// element). keepDimensions does not change the row-major layout of the output.
template <OpType Op>
Kernel reduce_kernel(const KernelContext& kc, const Operation& op, const MLReduceOptions& options) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const std::vector<uint32_t> axes = reduction_axes(options, desc.shape.size());
  const AxisSplit split = split_axes(desc.shape, axes);
  return visit_data_type(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (kFloatOnly<Op> && !kIsFloat<T>) {
      throw OperationError("reference backend: this reduction takes float32 or float16 data");
    } else {
      const std::array<Strides, 1> outer{split.outer_strides};
      return [=, outer_shape = split.outer_shape,
              inner = split.inner_offsets](std::span<std::byte* const> slots) {
        const T* pi = data_of<T>(slots, in);
        T* po = data_of<T>(slots, out);
        size_t k = 0;
        for_each_offset(outer_shape, outer, [&](const std::array<int64_t, 1>& o) {
          po[k++] = reduce_one<Op, T>(pi + o[0], inner.data(), inner.size());
        });
      };
    }
  });
}

// argMin/argMax along `axis`: the index of the first extreme element (first on ties, erratum
// §6.12); the first NaN of float data wins, like reduceMax/reduceMin propagating it.
template <bool IsMax>
Kernel arg_kernel(const KernelContext& kc, const Operation& op, uint32_t axis) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const AxisGeometry g = axis_geometry(desc.shape, axis);
  const bool out64 = kc.desc(out).dataType == MLOperandDataType::kInt64;
  return visit_data_type(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    return [=](std::span<std::byte* const> slots) {
      const T* pi = data_of<T>(slots, in);
      int32_t* po32 = data_of<int32_t>(slots, out);
      int64_t* po64 = data_of<int64_t>(slots, out);
      for (size_t o = 0; o < g.outer; ++o) {
        for (size_t i = 0; i < g.inner; ++i) {
          const T* p = pi + o * g.length * g.inner + i;
          size_t best = 0;
          if constexpr (kIsFloat<T>) {
            double b = to_double(p[0]);
            for (size_t j = 1; j < g.length && !std::isnan(b); ++j) {
              const double v = to_double(p[j * g.inner]);
              if (std::isnan(v) || (IsMax ? v > b : v < b)) {
                b = v;
                best = j;
              }
            }
          } else {
            T b = p[0];
            for (size_t j = 1; j < g.length; ++j) {
              const T v = p[j * g.inner];
              if (IsMax ? v > b : v < b) {
                b = v;
                best = j;
              }
            }
          }
          const size_t k = o * g.inner + i;
          if (out64)
            po64[k] = static_cast<int64_t>(best);
          else
            po32[k] = static_cast<int32_t>(best);
        }
      }
    };
  });
}

}  // namespace

// reduceL1: Σ|x| (row 69); integers wrap, |lowest| wraps to itself.
Kernel compile_reduceL1(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kReduceL1>& attrs) {
  return reduce_kernel<OpType::kReduceL1>(kc, op, attrs.options);
}
// reduceL2: √Σx² in double (row 70).
Kernel compile_reduceL2(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kReduceL2>& attrs) {
  return reduce_kernel<OpType::kReduceL2>(kc, op, attrs.options);
}
// reduceLogSum: ln Σx in double (row 71).
Kernel compile_reduceLogSum(const KernelContext& kc, const Operation& op,
                            const AttrsOf<OpType::kReduceLogSum>& attrs) {
  return reduce_kernel<OpType::kReduceLogSum>(kc, op, attrs.options);
}
// reduceLogSumExp: ln Σeˣ in double, max-shifted (row 72).
Kernel compile_reduceLogSumExp(const KernelContext& kc, const Operation& op,
                               const AttrsOf<OpType::kReduceLogSumExp>& attrs) {
  return reduce_kernel<OpType::kReduceLogSumExp>(kc, op, attrs.options);
}
// reduceMax: the largest element, NaN propagating (row 73).
Kernel compile_reduceMax(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kReduceMax>& attrs) {
  return reduce_kernel<OpType::kReduceMax>(kc, op, attrs.options);
}
// reduceMean: Σx / count in double (row 74).
Kernel compile_reduceMean(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kReduceMean>& attrs) {
  return reduce_kernel<OpType::kReduceMean>(kc, op, attrs.options);
}
// reduceMin: the smallest element, NaN propagating (row 75).
Kernel compile_reduceMin(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kReduceMin>& attrs) {
  return reduce_kernel<OpType::kReduceMin>(kc, op, attrs.options);
}
// reduceProduct: Πx, in double for floats and wrapping for integers (row 76).
Kernel compile_reduceProduct(const KernelContext& kc, const Operation& op,
                             const AttrsOf<OpType::kReduceProduct>& attrs) {
  return reduce_kernel<OpType::kReduceProduct>(kc, op, attrs.options);
}
// reduceSum: Σx, in double for floats and wrapping for integers (row 77).
Kernel compile_reduceSum(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kReduceSum>& attrs) {
  return reduce_kernel<OpType::kReduceSum>(kc, op, attrs.options);
}
// reduceSumSquare: Σx², in double for floats and wrapping for integers (row 78).
Kernel compile_reduceSumSquare(const KernelContext& kc, const Operation& op,
                               const AttrsOf<OpType::kReduceSumSquare>& attrs) {
  return reduce_kernel<OpType::kReduceSumSquare>(kc, op, attrs.options);
}

// argMin: index of the first smallest element along axis, as int32 or int64 (row 1).
Kernel compile_argMin(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kArgMin>& attrs) {
  return arg_kernel<false>(kc, op, attrs.params.axis);
}
// argMax: index of the first largest element along axis, as int32 or int64 (row 2).
Kernel compile_argMax(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kArgMax>& attrs) {
  return arg_kernel<true>(kc, op, attrs.params.axis);
}

// cumulativeSum: running sum along axis (row 9), optionally exclusive (the element itself left
// out) and reversed (summing from the end). Floats keep the running sum in double and round each
// output once; integers wrap.
Kernel compile_cumulativeSum(const KernelContext& kc, const Operation& op,
                             const AttrsOf<OpType::kCumulativeSum>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const AxisGeometry g = axis_geometry(desc.shape, attrs.params.axis);
  const bool exclusive = attrs.options.exclusive, reversed = attrs.options.reversed;
  return visit_data_type(desc.dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    using Acc = typename Accumulator<T>::type;
    return [=](std::span<std::byte* const> slots) {
      const T* pi = data_of<T>(slots, in);
      T* po = data_of<T>(slots, out);
      const int64_t step =
          reversed ? -static_cast<int64_t>(g.inner) : static_cast<int64_t>(g.inner);
      for (size_t o = 0; o < g.outer; ++o) {
        for (size_t i = 0; i < g.inner; ++i) {
          int64_t k = static_cast<int64_t>(o * g.length * g.inner + i) +
                      (reversed ? static_cast<int64_t>((g.length - 1) * g.inner) : 0);
          // Starting from -0 (the exact additive identity for doubles) keeps a leading -0.
          Acc acc = kIsFloat<T> ? Acc(-0.0) : Acc(0);
          for (size_t j = 0; j < g.length; ++j, k += step) {
            Acc x;
            if constexpr (kIsFloat<T>)
              x = to_double(pi[k]);
            else
              x = static_cast<Acc>(pi[k]);
            if (!exclusive) acc = static_cast<Acc>(acc + x);
            // The exclusive first output is the empty sum, +0.
            const Acc y = exclusive && j == 0 ? Acc(0) : acc;
            if constexpr (kIsFloat<T>)
              po[k] = from_double<T>(y);
            else
              po[k] = static_cast<T>(y);
            if (exclusive) acc = static_cast<Acc>(acc + x);
          }
        }
      }
    };
  });
}

}  // namespace cppnn::ref
