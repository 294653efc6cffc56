// Option resolution shared by the activation validators (src/ops/activations.cpp) and the
// reference kernels: clamp's bounds after the erratum §6.1 defaults.
#pragma once

#include <limits>

#include "cppnn/number.h"
#include "cppnn/options.h"

namespace cppnn {

// clamp's bounds, not yet cast to the input type: absent or NaN bounds mean -Inf / +Inf
// (webnn-spec.md §2 row 5, erratum §6.1).
struct ClampBounds {
  MLNumber min;
  MLNumber max;
};
inline ClampBounds clamp_bounds(const MLClampOptions& o) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return {o.minValue && !o.minValue->is_nan() ? *o.minValue : MLNumber(-kInf),
          o.maxValue && !o.maxValue->is_nan() ? *o.maxValue : MLNumber(kInf)};
}

}  // namespace cppnn
