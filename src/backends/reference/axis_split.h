// Shape splits for the reductions, scans and normalizations of the reference backend: kept and
// reduced dimensions (the kept, outer, dimensions are walked with for_each_offset, and every
// reduced, inner, element is reached from its outer base through a precomputed offset list), and
// the outer × axis × inner view of a shape around one axis.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "src/backends/reference/strides.h"

namespace cppnn::ref {

struct AxisSplit {
  Dims outer_shape;                    // the dimensions not in `axes`, in order
  Strides outer_strides;               // their strides in the input
  std::vector<int64_t> inner_offsets;  // the offset of each reduced element from its outer base,
                                       // row-major over `axes` in the given order
};

// Splits the row-major `shape` by `axes` (validated: distinct and in range). With no axes the
// inner list is {0}; with every axis the outer shape is empty (a single base offset 0).
inline AxisSplit split_axes(const Dims& shape, std::span<const uint32_t> axes) {
  const Strides strides = contiguous_strides(shape);
  AxisSplit s;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    s.outer_shape.push_back(shape[d]);
    s.outer_strides.push_back(strides[d]);
  }
  Dims inner_shape;
  Strides inner_strides;
  for (uint32_t a : axes) {
    inner_shape.push_back(shape[a]);
    inner_strides.push_back(strides[a]);
  }
  s.inner_offsets.reserve(element_count_of(inner_shape));
  for_each_offset(inner_shape, std::array<Strides, 1>{inner_strides},
                  [&](const std::array<int64_t, 1>& o) { s.inner_offsets.push_back(o[0]); });
  return s;
}

// The geometry of an op along one axis: outer × length × inner elements, row-major, so element
// (o, j, i) is at (o·length + j)·inner + i.
struct AxisGeometry {
  size_t outer = 1, length = 1, inner = 1;
};

inline AxisGeometry axis_geometry(const Dims& shape, uint32_t axis) {
  AxisGeometry g;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis) g.outer *= shape[d];
    if (d == axis) g.length = shape[d];
    if (d > axis) g.inner *= shape[d];
  }
  return g;
}

}  // namespace cppnn::ref
