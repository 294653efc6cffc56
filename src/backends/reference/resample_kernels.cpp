// Reference kernel for resample2d (webnn-spec.md §2 row 80 and its numeric note): two axes of a 4-D
// input are resampled to the validated output sizes with half-pixel coordinates. With scale =
// out/in (the output size over the input size, also when scales were given), output coordinate x
// maps to x_in = clamp((x + 0.5) / scale − 0.5, 0, in − 1). nearest-neighbor takes index
// ceil(x_in − 0.5) (ties pick the smaller index), computed exactly in integers; linear interpolates
// bilinearly between floor(x_in) and ceil(x_in) in double and rounds once (integer outputs round
// half to even). Taps of weight 0 are not read, so an exact hit copies its element.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/ops/resample_params.h"

namespace cppnn::ref {
namespace {

// The input offsets one output coordinate reads along one dimension: `lo` with weight 1 − w and
// `hi` with weight w (w = 0 reads only `lo`).
struct Tap {
  int64_t lo = 0, hi = 0;
  double w = 0;
};

// The taps of every output coordinate along one dimension of `in` elements with element stride
// `stride`, resampled to `out` elements (an unresampled dimension has in == out and maps i to i).
std::vector<Tap> taps_of(uint32_t in, uint32_t out, int64_t stride, bool linear) {
  std::vector<Tap> taps(out);
  for (uint32_t x = 0; x < out; ++x) {
    Tap& t = taps[x];
    if (in == out) {
      t.lo = t.hi = x * stride;
    } else if (!linear) {
      t.lo = t.hi = static_cast<int64_t>(resample_nearest_index(x, in, out)) * stride;
    } else {
      // x_in = ((2x + 1)·in − out) / (2·out): the numerator is exact, one rounding.
      double x_in = ((2.0 * x + 1.0) * in - out) / (2.0 * out);
      x_in = std::clamp(x_in, 0.0, double(in) - 1);
      const double lo = std::floor(x_in), hi = std::ceil(x_in);
      t.lo = static_cast<int64_t>(lo) * stride;
      t.hi = static_cast<int64_t>(hi) * stride;
      t.w = x_in - lo;
    }
  }
  return taps;
}

// Everything the kernel needs, resolved at compile time.
struct ResamplePlan {
  OperandId input, output;
  Dims out_shape;
  std::array<std::vector<Tap>, 4> taps;  // per dimension, per output coordinate
  size_t a0 = 2, a1 = 3;                 // the resampled dimensions, a0 < a1
};

template <class T>
Kernel nearest_kernel(const ResamplePlan& p) {
  return [p](std::span<std::byte* const> slots) {
    const T* x = data_of<T>(slots, p.input);
    T* y = data_of<T>(slots, p.output);
    const auto& t = p.taps;
    for (const Tap& t0 : t[0])
      for (const Tap& t1 : t[1])
        for (const Tap& t2 : t[2])
          for (const Tap& t3 : t[3]) *y++ = x[t0.lo + t1.lo + t2.lo + t3.lo];
  };
}

template <class T>
Kernel linear_kernel(const ResamplePlan& p) {
  return [p](std::span<std::byte* const> slots) {
    const T* x = data_of<T>(slots, p.input);
    T* y = data_of<T>(slots, p.output);
    std::array<uint32_t, 4> i{};
    const auto& s = p.out_shape;
    for (i[0] = 0; i[0] < s[0]; ++i[0]) {
      for (i[1] = 0; i[1] < s[1]; ++i[1]) {
        for (i[2] = 0; i[2] < s[2]; ++i[2]) {
          for (i[3] = 0; i[3] < s[3]; ++i[3]) {
            int64_t base = 0;
            for (size_t d = 0; d < 4; ++d)
              if (d != p.a0 && d != p.a1) base += p.taps[d][i[d]].lo;
            const Tap& u = p.taps[p.a0][i[p.a0]];
            const Tap& v = p.taps[p.a1][i[p.a1]];
            // Interpolates along a1 on the a0 row at offset `row`.
            auto along = [&](int64_t row) {
              const double lo = to_double(x[base + row + v.lo]);
              return v.w == 0 ? lo : lo * (1 - v.w) + to_double(x[base + row + v.hi]) * v.w;
            };
            const double r0 = along(u.lo);
            const double r = u.w == 0 ? r0 : r0 * (1 - u.w) + along(u.hi) * u.w;
            if constexpr (kIsFloat<T>) {
              *y++ = from_double<T>(r);
            } else {
              *y++ = from_double<T>(std::nearbyint(r));
            }
          }
        }
      }
    }
  };
}

}  // namespace

// resample2d (§2 row 80): nearest-neighbor or bilinear resampling of two axes, half-pixel mapped.
Kernel compile_resample2d(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kResample2d>& attrs) {
  const auto& o = attrs.options;
  ResamplePlan p;
  p.input = op.inputs[0];
  p.output = op.outputs[0];
  const Dims& in = kc.desc(p.input).shape;
  p.out_shape = kc.desc(p.output).shape;
  const Dims axes = resample_axes(o);
  p.a0 = std::min(axes[0], axes[1]);
  p.a1 = std::max(axes[0], axes[1]);
  const bool linear = o.mode == MLInterpolationMode::kLinear;
  const Strides strides = contiguous_strides(in);
  for (size_t d = 0; d < 4; ++d) p.taps[d] = taps_of(in[d], p.out_shape[d], strides[d], linear);
  return visit_data_type(kc.desc(p.input).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if (linear) return linear_kernel<T>(p);
    return nearest_kernel<T>(p);
  });
}

}  // namespace cppnn::ref
