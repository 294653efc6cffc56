// Default resolution of the resample2d options (webnn-spec.md §2 row 80) and its nearest-neighbor
// index rule, shared by the validation in resample.cpp, the reference kernel, the decomposition
// and the exporters.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cppnn/options.h"
#include "src/ops/shape_utils.h"

namespace cppnn {

// The resampled axes: options.axes, or [2, 3] (the spatial dims of an nchw input) when absent.
inline Dims resample_axes(const MLResample2dOptions& o) {
  return o.axes.value_or({2, 3});
}

// The nearest-neighbor source index of output coordinate x along an axis resampled from `in` to
// `out` elements (half-pixel coordinates): ceil(((2x + 1)·in − 2·out) / (2·out)), which is
// ceil(x_in − 0.5) for the unclamped x_in, clamped to [0, in − 1] (ceil(· − 0.5) is monotonic);
// exact in 128-bit integers.
inline uint32_t resample_nearest_index(uint64_t x, uint64_t in, uint64_t out) {
  __extension__ typedef __int128 Wide;
  const Wide num = (Wide(2) * x + 1) * in - Wide(2) * out, den = Wide(2) * out;
  const Wide q = num >= 0 ? (num + den - 1) / den : -(-num / den);
  return static_cast<uint32_t>(std::clamp<Wide>(q, 0, Wide(in) - 1));
}

}  // namespace cppnn
