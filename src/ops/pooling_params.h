// Default resolution of the pooling options (webnn-spec.md §2 rows 65-67), shared by the validation
// in pooling.cpp and the reference kernels: the spatial dims of the input for its layout and the
// window, padding, strides and dilations with their defaults applied.
#pragma once

#include <cstdint>

#include "cppnn/options.h"
#include "src/ops/shape_utils.h"

namespace cppnn {

// The pooling window options with their defaults applied (the lengths and values are checked by
// the validation). padding is [beginH, endH, beginW, endW].
struct PoolWindow {
  uint32_t height, width;  // the input's spatial dims
  Dims window, padding, strides, dilations;
};
inline PoolWindow pool_window(const Dims& input_shape, const MLPool2dOptions& o) {
  const bool nchw = o.layout == MLInputOperandLayout::kNchw;
  const uint32_t height = nchw ? input_shape[2] : input_shape[1];
  const uint32_t width = nchw ? input_shape[3] : input_shape[2];
  return {height,
          width,
          o.windowDimensions.value_or({height, width}),
          o.padding.value_or({0, 0, 0, 0}),
          o.strides.value_or({1, 1}),
          o.dilations.value_or({1, 1})};
}

}  // namespace cppnn
