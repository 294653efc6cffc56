// Resampling (webnn-spec.md §2 row 80, erratum §6.16): resample2d scales two axes of a 4-D input
// to sizes, or to floor(input size * scale). The checks are the list lengths (scales, sizes and
// axes, the last per erratum 16), finite positive scales, nonzero sizes, unique in-range axes and
// valid output sizes.
#include <cmath>

#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/resample_params.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// floor(size * scale) of the exact product. The double product may round up to an integer when
// the exact one is just below it (up to 55 significant bits); fma gives the rounding error.
double floor_product(uint32_t size, float scale) {
  double p = double(size) * double(scale);
  double f = std::floor(p);
  if (f == p && std::fma(double(size), double(scale), -p) < 0) f -= 1;
  return f;
}

}  // namespace

// resample2d: nearest-neighbor or bilinear resampling over two axes (row 80).
const OpLimits limits_resample2d{{{"input", kFloat | kU8 | kI8, kFloat, 4, 4}},
                                 {{"output", kFloat | kU8 | kI8, kFloat, 4, 4}}};
Result<OutputDescs> infer_resample2d(const InferInput& in,
                                     const AttrsOf<OpType::kResample2d>& attrs) {
  const auto& o = attrs.options;
  std::vector<float> scales = o.scales.value_or({1.0f, 1.0f});
  CPPNN_RETURN_IF_ERROR(check_length(scales.size(), 2, "scales"));
  for (float scale : scales) {
    CPPNN_RETURN_IF_ERROR(check_finite(scale, "scales"));
    if (!(scale > 0)) return type_error("scales entries must be greater than 0, got ", scale);
  }
  if (o.sizes) {
    CPPNN_RETURN_IF_ERROR(check_length(o.sizes->size(), 2, "sizes"));
    CPPNN_RETURN_IF_ERROR(check_all_positive(*o.sizes, "sizes"));
  }
  Dims axes = resample_axes(o);
  CPPNN_RETURN_IF_ERROR(check_length(axes.size(), 2, "axes"));
  CPPNN_RETURN_IF_ERROR(validate_axes(axes, in[0].shape.size(), "axes"));

  Dims out = in[0].shape;
  for (size_t i = 0; i < 2; ++i) {
    uint32_t axis = axes[i];
    if (o.sizes) {
      uint32_t size = (*o.sizes)[i];
      if (!is_valid_dimension(size))
        return type_error("sizes value ", size, " for axis ", axis, " is not a valid dimension");
      out[axis] = size;
      continue;
    }
    double size = floor_product(in[0].shape[axis], scales[i]);
    if (!(size >= 1 && size <= double(kMaxDimension)))
      return type_error("output size floor(", in[0].shape[axis], " * ", scales[i], ") for axis ",
                        axis, " is not a valid dimension");
    out[axis] = static_cast<uint32_t>(size);
  }
  return OutputDescs{{in[0].dataType, std::move(out)}};
}

}  // namespace cppnn
