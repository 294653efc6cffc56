// Option defaults of the reductions (webnn-spec.md §2 rows 69-78), shared by the validation in
// reduction.cpp and the reference kernels.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "cppnn/options.h"

namespace cppnn {

// The reduced axes: absent axes reduce every dimension, [] reduces none.
inline std::vector<uint32_t> reduction_axes(const MLReduceOptions& options, size_t rank) {
  if (options.axes) return *options.axes;
  std::vector<uint32_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0u);
  return axes;
}

}  // namespace cppnn
