// Option defaults of the normalizations (webnn-spec.md §2 rows 3, 57, 58), shared by the
// validation in normalization.cpp and the reference kernels.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "cppnn/options.h"

namespace cppnn {

// layerNormalization's axes: absent axes mean [1..rank-1] (none when rank <= 1).
inline std::vector<uint32_t> layer_normalization_axes(const MLLayerNormalizationOptions& options,
                                                      size_t rank) {
  if (options.axes) return *options.axes;
  std::vector<uint32_t> axes(rank > 1 ? rank - 1 : 0);
  std::iota(axes.begin(), axes.end(), 1u);
  return axes;
}

}  // namespace cppnn
