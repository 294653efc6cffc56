// ONNX Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9) (ops_nn.def). Where WebNN's
// resample2d has ONNX's exact semantics (rank 4, at most two resized axes, half_pixel or
// pytorch_half_pixel coordinates with scale = out/in exactly, nearest round_prefer_floor or
// linear; or a nearest upscale by integer factors in any coordinate and rounding mode that picks
// the same pixels, e.g. Upsample's asymmetric floor) the node becomes one resample2d. Every other
// combination is separable per axis and is expressed exactly as gathers on computed index
// constants, weighted with computed coefficient constants (ops_nn_resize_taps.cpp): nearest (any
// nearest_mode), linear, cubic (cubic_coeff_a, exclude_outside), every
// coordinate_transformation_mode and tf_crop_and_resize's extrapolation_value. antialias cannot be
// expressed this way and is unsupported.
#include <cmath>
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_resize_taps.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// True when ONNX's nearest Resize along an axis upscaled by the integer `k` (scale and out/in
// both exactly k) picks source index floor(x / k) for every output x, which is what WebNN's
// resample2d nearest-neighbor picks there: with x = q·k + r, 0 <= r < k, it takes
// ceil((x + 0.5) / k - 1) and (x + 0.5) / k - 1 = q + (r + 0.5) / k - 1 lies in (q - 1, q).
// ONNX's coordinate x_in and rounding give q for:
//   asymmetric (x_in = q + r/k, r/k in [0, 1)): floor, simple (floor when upscaling), and
//     round_prefer_floor when k <= 2;
//   half_pixel / pytorch_half_pixel (x_in = q + (r + 0.5)/k - 0.5, |fraction| < 0.5): either
//     round_prefer_* mode;
//   tf_half_pixel_for_nn (x_in = q + (r + 0.5)/k, fraction in (0, 1)): floor, simple.
bool nearest_picks_floor_div(const ResizeSpec& s, uint64_t k) {
  const std::string& m = s.nearest_mode;
  const bool floors = m == "floor" || m == "simple";
  if (s.coord == "asymmetric") return floors || (m == "round_prefer_floor" && k <= 2);
  if (s.coord == "half_pixel" || s.coord == "pytorch_half_pixel")
    return m == "round_prefer_floor" || m == "round_prefer_ceil";
  if (s.coord == "tf_half_pixel_for_nn") return floors;
  return false;
}

// True when nearest Resize `s` upscales every resized axis of `in` by an integer factor with a
// coordinate mode and rounding that pick the same pixels as resample2d (nearest_picks_floor_div).
bool nearest_integer_upscale(const ResizeSpec& s, const std::vector<uint32_t>& in) {
  for (size_t a = 0; a < in.size(); ++a) {
    if (s.scales[a] == 1.0 && s.out[a] == in[a]) continue;
    if (in[a] == 0 || s.out[a] % in[a] != 0) return false;
    const uint64_t k = s.out[a] / in[a];
    if (k < 2 || s.scales[a] != static_cast<double>(k)) return false;
    if (!nearest_picks_floor_div(s, k)) return false;
  }
  return true;
}

// True when WebNN resample2d computes exactly `s` on input shape `in`: half-pixel coordinates
// (scale = out/in exactly; nearest with round_prefer_floor, WebNN's rounding) or a nearest
// integer upscale in any mode that picks the same pixels (nearest_integer_upscale).
bool fits_resample2d(const ResizeSpec& s, const std::vector<uint32_t>& in, MLOperandDataType t,
                     std::vector<uint32_t>& axes) {
  if (in.size() != 4) return false;
  const bool half = s.coord == "half_pixel" || s.coord == "pytorch_half_pixel";
  if (s.mode == "nearest") {
    if (t != MLOperandDataType::kFloat32 && t != MLOperandDataType::kFloat16 &&
        t != MLOperandDataType::kUint8 && t != MLOperandDataType::kInt8)
      return false;
    if (!nearest_integer_upscale(s, in) && !(half && s.nearest_mode == "round_prefer_floor"))
      return false;
  } else if (s.mode != "linear" || !is_float_type(t) || !half) {
    return false;
  }
  axes.clear();
  for (uint32_t a = 0; a < 4; ++a) {
    if (s.scales[a] == 1.0 && s.out[a] == in[a]) continue;
    if (s.scales[a] * in[a] != static_cast<double>(s.out[a])) return false;
    if (s.coord == "pytorch_half_pixel" && s.out[a] <= 1) return false;
    axes.push_back(a);
  }
  if (axes.size() > 2) return false;
  if (axes.empty()) axes = {2, 3};
  if (axes.size() == 1)
    axes = axes[0] == 3 ? std::vector<uint32_t>{2, 3} : std::vector<uint32_t>{axes[0], 3};
  return true;
}

// Records the resize of input 0 by `s`.
void record_resize(NodeContext& c, const ResizeSpec& s) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  const MLOperandDataType t = c.input_type(0);
  std::vector<uint32_t> axes;
  if (fits_resample2d(s, in, t, axes)) {
    MLResample2dOptions o = c.opts<MLResample2dOptions>();
    o.mode =
        s.mode == "linear" ? MLInterpolationMode::kLinear : MLInterpolationMode::kNearestNeighbor;
    o.sizes = std::vector<uint32_t>{s.out[axes[0]], s.out[axes[1]]};
    o.axes = axes;
    return c.set_output(0, c.builder().resample2d(c.input(0), o));
  }
  c.set_output(0, resize_by_taps(c, c.input(0), s));
}

// Output sizes for `scales` (floor(in · scale)).
std::vector<uint32_t> sizes_of_scales(const NodeContext& c, const std::vector<uint32_t>& in,
                                      const std::vector<double>& scales) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!(scales[i] > 0)) c.invalid("scales must be positive");
    const double v = std::floor(in[i] * scales[i]);
    if (v < 1 || v > UINT32_MAX) c.unsupported("a resized dimension of " + std::to_string(v));
    out.push_back(static_cast<uint32_t>(v));
  }
  return out;
}

// The float values of a known input (empty when absent or empty).
std::vector<double> known_floats(const NodeContext& c, size_t i, const char* what) {
  if (!c.has_input(i)) return {};
  return c.constant(i, what).to_double();
}

}  // namespace

void import_Resize(NodeContext& c) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  const size_t rank = in.size();
  ResizeSpec s;
  s.mode = c.attr_string("mode", "nearest");
  s.roi_start.assign(rank, 0.0);
  s.roi_end.assign(rank, 1.0);
  if (c.opset() < 11) {
    s.coord = "asymmetric";
    s.nearest_mode = "simple";
    s.scales = known_floats(c, 1, "scales");
    if (s.scales.size() != rank) c.invalid("scales needs one entry per input dimension");
    s.out = sizes_of_scales(c, in, s.scales);
    return record_resize(c, s);
  }
  s.coord = c.attr_string("coordinate_transformation_mode", "half_pixel");
  s.nearest_mode = c.attr_string("nearest_mode", "round_prefer_floor");
  s.cubic_a = c.attr_float("cubic_coeff_a", -0.75f);
  s.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  s.extrapolation = c.attr_float("extrapolation_value", 0.0f);
  if (c.attr_int("antialias", 0) != 0) c.unsupported("antialias");
  std::vector<uint32_t> axes;
  if (c.has_attr("axes")) {
    axes = normalize_axes(c, c.attr_ints("axes"), rank);
  } else {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  }
  const std::vector<double> scales = known_floats(c, 2, "scales");
  const std::vector<int64_t> sizes = c.has_input(3) ? c.ints(3, "sizes") : std::vector<int64_t>{};
  if (s.coord == "tf_crop_and_resize") {
    const std::vector<double> roi = known_floats(c, 1, "roi");
    if (roi.size() != 2 * axes.size()) c.invalid("roi needs 2 entries per resized axis");
    for (size_t k = 0; k < axes.size(); ++k) {
      s.roi_start[axes[k]] = roi[k];
      s.roi_end[axes[k]] = roi[k + axes.size()];
    }
  }
  s.scales.assign(rank, 1.0);
  s.out = in;
  if (!scales.empty()) {
    if (!sizes.empty()) c.invalid("both scales and sizes are given");
    if (scales.size() != axes.size()) c.invalid("scales needs one entry per resized axis");
    for (size_t k = 0; k < axes.size(); ++k) s.scales[axes[k]] = scales[k];
    s.out = sizes_of_scales(c, in, s.scales);
  } else if (!sizes.empty()) {
    if (sizes.size() != axes.size()) c.invalid("sizes needs one entry per resized axis");
    const std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      c.invalid("unknown keep_aspect_ratio_policy '" + policy + "'");
    std::vector<uint32_t> target = to_dims(c, sizes);
    std::vector<double> scale_of(axes.size());
    for (size_t k = 0; k < axes.size(); ++k)
      scale_of[k] = static_cast<double>(target[k]) / in[axes[k]];
    if (policy != "stretch") {
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t k = 0; k < axes.size(); ++k) {
        const double r = static_cast<double>(target[k]) / in[axes[k]];
        scale = policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
      }
      for (size_t k = 0; k < axes.size(); ++k) {
        target[k] = static_cast<uint32_t>(std::nearbyint(scale * in[axes[k]]));
        scale_of[k] = scale;
      }
    }
    for (size_t k = 0; k < axes.size(); ++k) {
      if (target[k] == 0) c.unsupported("a resized dimension of 0");
      s.out[axes[k]] = target[k];
      s.scales[axes[k]] = scale_of[k];
    }
  } else {
    c.invalid("neither scales nor sizes is given");
  }
  record_resize(c, s);
}

void import_Upsample(NodeContext& c) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  ResizeSpec s;
  s.mode = c.attr_string("mode", "nearest");
  if (s.mode == "bilinear") s.mode = "linear";
  s.coord = "asymmetric";
  s.nearest_mode = "simple";
  s.roi_start.assign(in.size(), 0.0);
  s.roi_end.assign(in.size(), 1.0);
  if (c.opset() < 9) {
    for (float f : c.attr_floats("scales")) s.scales.push_back(f);
  } else {
    s.scales = known_floats(c, 1, "scales");
  }
  if (s.scales.size() != in.size()) c.invalid("scales needs one entry per input dimension");
  s.out = sizes_of_scales(c, in, s.scales);
  record_resize(c, s);
}

}  // namespace cppnn::onnx_import
