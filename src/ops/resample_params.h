// Default resolution of the resample2d options (webnn-spec.md §2 row 80), shared by the validation
// in resample.cpp and the reference kernel.
#pragma once

#include "cppnn/options.h"
#include "src/ops/shape_utils.h"

namespace cppnn {

// The resampled axes: options.axes, or [2, 3] (the spatial dims of an nchw input) when absent.
inline Dims resample_axes(const MLResample2dOptions& o) {
  return o.axes.value_or({2, 3});
}

}  // namespace cppnn
