// Reference kernels for averagePool2d, l2Pool2d and maxPool2d (webnn-spec.md §2 rows 65-67, numeric
// notes "Pooling"): each output element reduces the in-bounds input elements of its (dilated)
// window; positions in the padding or beyond the input never contribute. The output size comes
// from the validated output descriptor (floor, ceil or outputSizes). Sums accumulate in double and
// round once to the output type.
#include <cmath>
#include <limits>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/ops/pooling_params.h"

namespace cppnn::ref {
namespace {

enum class PoolKind { kAverage, kL2, kMax };

// Everything a pooling kernel needs, resolved at compile time.
struct PoolPlan {
  OperandId input, output;
  uint32_t batches = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  uint32_t window_h = 0, window_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t x_n = 0, x_c = 0, x_h = 0, x_w = 0;  // input strides of the named dims
  int64_t y_n = 0, y_c = 0, y_h = 0, y_w = 0;  // output strides
};

PoolPlan make_plan(const KernelContext& kc, const Operation& op, const MLPool2dOptions& o) {
  PoolPlan p;
  p.input = op.inputs[0];
  p.output = op.outputs[0];
  const Dims& x = kc.desc(p.input).shape;
  const Dims& y = kc.desc(p.output).shape;
  const PoolWindow w = pool_window(x, o);
  const bool nchw = o.layout == MLInputOperandLayout::kNchw;
  // Positions of channels, height and width (batches is always dim 0).
  const size_t c = nchw ? 1 : 3, h = nchw ? 2 : 1, wd = nchw ? 3 : 2;
  p.batches = x[0];
  p.channels = x[c];
  p.in_h = w.height;
  p.in_w = w.width;
  p.out_h = y[h];
  p.out_w = y[wd];
  p.window_h = w.window[0];
  p.window_w = w.window[1];
  p.pad_top = w.padding[0];
  p.pad_left = w.padding[2];
  p.stride_h = w.strides[0];
  p.stride_w = w.strides[1];
  p.dilation_h = w.dilations[0];
  p.dilation_w = w.dilations[1];
  const Strides xs = contiguous_strides(x), ys = contiguous_strides(y);
  p.x_n = xs[0], p.x_c = xs[c], p.x_h = xs[h], p.x_w = xs[wd];
  p.y_n = ys[0], p.y_c = ys[c], p.y_h = ys[h], p.y_w = ys[wd];
  return p;
}

// The pooling loop: for every output element, Reduce::add(value) over the in-bounds window
// elements in row-major window order, then Reduce::result().
template <PoolKind K, class T>
struct Reduce;
// averagePool2d: Σx / count of in-bounds elements (an empty window is 0/0 = NaN).
template <class T>
struct Reduce<PoolKind::kAverage, T> {
  double sum = 0;
  uint64_t count = 0;
  void add(T v) {
    sum += to_double(v);
    ++count;
  }
  T result() const { return from_double<T>(sum / static_cast<double>(count)); }
};
// l2Pool2d: sqrt(Σx²) (an empty window gives 0).
template <class T>
struct Reduce<PoolKind::kL2, T> {
  double sum = 0;
  void add(T v) {
    const double d = to_double(v);
    sum += d * d;
  }
  T result() const { return from_double<T>(std::sqrt(sum)); }
};
// maxPool2d: the largest element, NaN if any is NaN (like max); an empty window gives the identity
// of max (-Infinity, or the lowest integer).
template <class T>
struct Reduce<PoolKind::kMax, T> {
  T best = from_double<T>(-std::numeric_limits<double>::infinity());  // integers: lowest
  bool nan = false;
  void add(T v) {
    if constexpr (kIsFloat<T>) {
      const double d = to_double(v);
      if (std::isnan(d)) nan = true;
      if (d > to_double(best)) best = v;
    } else {
      if (v > best) best = v;
    }
  }
  T result() const {
    if constexpr (kIsFloat<T>) {
      if (nan) return from_double<T>(std::numeric_limits<double>::quiet_NaN());
    }
    return best;
  }
};

template <PoolKind K, class T>
Kernel pool_kernel(const PoolPlan& p) {
  return [p](std::span<std::byte* const> slots) {
    const T* x = data_of<T>(slots, p.input);
    T* y = data_of<T>(slots, p.output);
    for (uint32_t n = 0; n < p.batches; ++n) {
      for (uint32_t c = 0; c < p.channels; ++c) {
        const int64_t x_nc = n * p.x_n + c * p.x_c;
        for (uint32_t oy = 0; oy < p.out_h; ++oy) {
          for (uint32_t ox = 0; ox < p.out_w; ++ox) {
            Reduce<K, T> r;
            for (uint32_t ky = 0; ky < p.window_h; ++ky) {
              const int64_t iy = int64_t{oy} * p.stride_h - p.pad_top + ky * p.dilation_h;
              if (iy < 0 || iy >= p.in_h) continue;
              for (uint32_t kx = 0; kx < p.window_w; ++kx) {
                const int64_t ix = int64_t{ox} * p.stride_w - p.pad_left + kx * p.dilation_w;
                if (ix < 0 || ix >= p.in_w) continue;
                r.add(x[x_nc + iy * p.x_h + ix * p.x_w]);
              }
            }
            y[n * p.y_n + c * p.y_c + oy * p.y_h + ox * p.y_w] = r.result();
          }
        }
      }
    }
  };
}

// A float-only pool (averagePool2d, l2Pool2d).
template <PoolKind K>
Kernel float_pool_kernel(const KernelContext& kc, const Operation& op, const MLPool2dOptions& o) {
  const PoolPlan p = make_plan(kc, op, o);
  switch (kc.desc(p.input).dataType) {
    case MLOperandDataType::kFloat32:
      return pool_kernel<K, float>(p);
    case MLOperandDataType::kFloat16:
      return pool_kernel<K, Half>(p);
    default:
      break;
  }
  throw OperationError("reference backend: averagePool2d and l2Pool2d take float32 and float16");
}

}  // namespace

// averagePool2d (§2 row 65): mean of the in-bounds window elements.
Kernel compile_averagePool2d(const KernelContext& kc, const Operation& op,
                             const AttrsOf<OpType::kAveragePool2d>& attrs) {
  return float_pool_kernel<PoolKind::kAverage>(kc, op, attrs.options);
}

// l2Pool2d (§2 row 66): sqrt of the sum of squares of the in-bounds window elements.
Kernel compile_l2Pool2d(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kL2Pool2d>& attrs) {
  return float_pool_kernel<PoolKind::kL2>(kc, op, attrs.options);
}

// maxPool2d (§2 row 67): maximum of the in-bounds window elements, any data type.
Kernel compile_maxPool2d(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kMaxPool2d>& attrs) {
  const PoolPlan p = make_plan(kc, op, attrs.options);
  return visit_data_type(kc.desc(p.input).dataType, [&](auto tag) -> Kernel {
    return pool_kernel<PoolKind::kMax, typename decltype(tag)::type>(p);
  });
}

}  // namespace cppnn::ref
