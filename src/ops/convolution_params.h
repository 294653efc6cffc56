// Layout and default resolution of conv2d and convTranspose2d (webnn-spec.md §2 rows 7-8), shared
// by the validation in convolution.cpp and the reference kernels: where each named dimension sits
// in the input and filter shapes for every layout, and the window options with their defaults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cppnn/enums.h"
#include "cppnn/optional_list.h"
#include "src/ops/shape_utils.h"

namespace cppnn {

// Positions of the batch, channel, height and width dimensions in a 4-D input (or output) shape.
struct InputAxes {
  size_t batches, channels, height, width;
};
inline InputAxes input_axes(MLInputOperandLayout layout) {
  if (layout == MLInputOperandLayout::kNchw) return {0, 1, 2, 3};
  return {0, 3, 1, 2};
}

// A 4-D input's dims by name for `layout`.
struct InputDims {
  uint32_t batches, channels, height, width;
};
inline InputDims input_dims(const Dims& s, MLInputOperandLayout layout) {
  InputAxes a = input_axes(layout);
  return {s[a.batches], s[a.channels], s[a.height], s[a.width]};
}

// Positions of the input-channel, output-channel, height and width dimensions in a 4-D filter.
struct FilterAxes {
  size_t in_channels, out_channels, height, width;
};
inline FilterAxes conv2d_filter_axes(MLConv2dFilterOperandLayout layout) {
  switch (layout) {
    case MLConv2dFilterOperandLayout::kOihw:
      return {1, 0, 2, 3};
    case MLConv2dFilterOperandLayout::kHwio:
      return {2, 3, 0, 1};
    case MLConv2dFilterOperandLayout::kOhwi:
      return {3, 0, 1, 2};
    case MLConv2dFilterOperandLayout::kIhwo:
      break;
  }
  return {0, 3, 1, 2};
}
inline FilterAxes conv_transpose2d_filter_axes(MLConvTranspose2dFilterOperandLayout layout) {
  switch (layout) {
    case MLConvTranspose2dFilterOperandLayout::kIohw:
      return {0, 1, 2, 3};
    case MLConvTranspose2dFilterOperandLayout::kHwoi:
      return {3, 2, 0, 1};
    case MLConvTranspose2dFilterOperandLayout::kOhwi:
      break;
  }
  return {3, 0, 1, 2};
}

// The transpose order taking a conv2d filter of `layout` to oihw (the exporters' layout), or an
// empty list when it is oihw already.
template <class Int>
std::vector<Int> conv2d_filter_perm(MLConv2dFilterOperandLayout layout) {
  if (layout == MLConv2dFilterOperandLayout::kOihw) return {};
  const FilterAxes a = conv2d_filter_axes(layout);
  return {static_cast<Int>(a.out_channels), static_cast<Int>(a.in_channels),
          static_cast<Int>(a.height), static_cast<Int>(a.width)};
}
// The transpose order taking a convTranspose2d filter of `layout` to iohw, or an empty list when
// it is iohw already.
template <class Int>
std::vector<Int> conv_transpose2d_filter_perm(MLConvTranspose2dFilterOperandLayout layout) {
  if (layout == MLConvTranspose2dFilterOperandLayout::kIohw) return {};
  const FilterAxes a = conv_transpose2d_filter_axes(layout);
  return {static_cast<Int>(a.in_channels), static_cast<Int>(a.out_channels),
          static_cast<Int>(a.height), static_cast<Int>(a.width)};
}

// A 4-D filter's dims by name. For convTranspose2d out_channels is per group (Cout / groups).
struct FilterDims {
  uint32_t in_channels, out_channels, height, width;
};
inline FilterDims filter_dims(const Dims& s, FilterAxes a) {
  return {s[a.in_channels], s[a.out_channels], s[a.height], s[a.width]};
}

// padding [beginH, endH, beginW, endW], strides and dilations with their defaults applied (the
// lengths and values are checked by the validation).
struct WindowOptions {
  Dims padding, strides, dilations;
};
inline WindowOptions window_defaults(const OptionalList<uint32_t>& padding,
                                     const OptionalList<uint32_t>& strides,
                                     const OptionalList<uint32_t>& dilations) {
  return {padding.value_or({0, 0, 0, 0}), strides.value_or({1, 1}), dilations.value_or({1, 1})};
}

}  // namespace cppnn
