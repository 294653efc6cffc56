// Separable resize on gathers (see ops_nn_resize_taps.h). The coordinate and coefficient rules
// follow the ONNX reference implementation of Resize: x_original by
// coordinate_transformation_mode, nearest picks one neighbour by nearest_mode, linear two and
// cubic four (Keys' kernel with cubic_coeff_a), neighbours outside the input clamp to the edge or,
// with exclude_outside, drop out with the remaining weights renormalized; tf_crop_and_resize gives
// extrapolation_value outside [0, in − 1].
#include "src/import/onnx/ops_nn_resize_taps.h"

#include <algorithm>
#include <cmath>

#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// The taps of one axis: out × count indices and weights, and which outputs lie outside.
struct AxisTaps {
  size_t count = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> outside;
  bool any_outside = false;
};

// x_original of output coordinate x along an axis of n inputs and m outputs. The scale-based
// modes compute in float32 like ORT (so that ties such as 11.5 / 2.3f − 0.5 round alike). Like the
// ONNX reference implementation (whose results the backend test data hold), align_corners,
// pytorch_half_pixel and tf_crop_and_resize use the unrounded output length w = n · scale
// (ORT uses m; they differ only when n · scale is not an integer).
double original_coordinate(const ResizeSpec& s, size_t axis, double x, double n, double m) {
  const double scale = s.scales[axis];
  const auto fx = static_cast<float>(x), fs = static_cast<float>(scale);
  const double w = n * scale;
  if (s.coord == "half_pixel") return (fx + 0.5f) / fs - 0.5f;
  if (s.coord == "pytorch_half_pixel") return w == 1 ? -0.5 : (fx + 0.5f) / fs - 0.5f;
  if (s.coord == "align_corners") return w == 1 ? 0.0 : x * (n - 1) / (w - 1);
  if (s.coord == "asymmetric") return fx / fs;
  if (s.coord == "tf_half_pixel_for_nn") return (fx + 0.5f) / fs;
  if (s.coord == "half_pixel_symmetric") {
    const double adjustment = m / w;
    const double offset = n / 2 * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  // tf_crop_and_resize (taps_of checked the mode)
  const double a = s.roi_start[axis], b = s.roi_end[axis];
  if (w == 1) return (b - a) * (n - 1) / 2 + a * (n - 1);
  return x * (b - a) * (n - 1) / (w - 1) + a * (n - 1);
}

// The nearest neighbour of xo by nearest_mode (before clamping).
int64_t nearest_of(const ResizeSpec& s, double xo, double scale) {
  const double fl = std::floor(xo), ratio = xo - fl;
  if (ratio == 0) return static_cast<int64_t>(fl);
  const std::string& m = s.nearest_mode;
  if (m == "floor") return static_cast<int64_t>(fl);
  if (m == "ceil") return static_cast<int64_t>(fl) + 1;
  if (m == "simple") return static_cast<int64_t>(scale < 1 ? std::ceil(xo) : fl);
  if (m == "round_prefer_ceil") return static_cast<int64_t>(fl) + (ratio >= 0.5 ? 1 : 0);
  return static_cast<int64_t>(fl) + (ratio > 0.5 ? 1 : 0);  // round_prefer_floor
}

// Keys' cubic coefficients of the taps floor−1 .. floor+2 at fractional position r.
std::vector<double> cubic_coefficients(double r, double a) {
  const double r1 = r + 1, q = 1 - r, q1 = q + 1;
  return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * q - (a + 3)) * q * q + 1, ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a};
}

AxisTaps taps_of(const NodeContext& c, const ResizeSpec& s, size_t axis, uint32_t in) {
  const uint32_t out = s.out[axis];
  AxisTaps t;
  t.count = s.mode == "nearest" ? 1 : s.mode == "linear" ? 2 : 4;
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic")
    c.invalid("unknown mode '" + s.mode + "'");
  static constexpr const char* kModes[] = {
      "half_pixel",           "pytorch_half_pixel",   "align_corners",     "asymmetric",
      "tf_half_pixel_for_nn", "half_pixel_symmetric", "tf_crop_and_resize"};
  if (std::find(std::begin(kModes), std::end(kModes), s.coord) == std::end(kModes))
    c.invalid("unknown coordinate_transformation_mode '" + s.coord + "'");
  static constexpr const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                             "ceil", "simple"};
  if (std::find(std::begin(kNearest), std::end(kNearest), s.nearest_mode) == std::end(kNearest))
    c.invalid("unknown nearest_mode '" + s.nearest_mode + "'");
  const auto last = static_cast<int64_t>(in) - 1;
  for (uint32_t x = 0; x < out; ++x) {
    const double xo = original_coordinate(s, axis, x, in, out);
    const bool outside = s.coord == "tf_crop_and_resize" && (xo < 0 || xo > last);
    t.outside.push_back(outside);
    t.any_outside = t.any_outside || outside;
    std::vector<int64_t> idx;
    std::vector<double> w;
    if (t.count == 1) {
      idx = {nearest_of(s, xo, s.scales[axis])};
      w = {1.0};
    } else {
      const double fl = std::floor(xo), r = xo - fl;
      const auto f = static_cast<int64_t>(fl);
      if (t.count == 2) {
        idx = {f, f + 1};
        w = {1 - r, r};
      } else {
        idx = {f - 1, f, f + 1, f + 2};
        w = cubic_coefficients(r, s.cubic_a);
        if (s.exclude_outside) {
          double sum = 0;
          for (size_t k = 0; k < 4; ++k) {
            if (idx[k] < 0 || idx[k] > last) w[k] = 0;
            sum += w[k];
          }
          for (double& v : w) v /= sum;
        }
      }
    }
    for (size_t k = 0; k < idx.size(); ++k) {
      t.index.push_back(outside ? 0 : std::clamp<int64_t>(idx[k], 0, last));
      t.weight.push_back(outside ? 0.0 : w[k]);
    }
  }
  return t;
}

// Merges taps that read the same index and drops zero weights, down to one tap per output when
// every output reads a single index with weight 1 (a plain gather).
void simplify(AxisTaps& t, size_t out) {
  if (t.count == 1) return;
  bool single = true;
  std::vector<int64_t> idx(out);
  for (size_t x = 0; x < out && single; ++x) {
    double total = 0;
    int64_t chosen = -1;
    for (size_t k = 0; k < t.count; ++k) {
      const double w = t.weight[x * t.count + k];
      if (w == 0) continue;
      const int64_t i = t.index[x * t.count + k];
      if (chosen >= 0 && chosen != i) single = false;
      chosen = i;
      total += w;
    }
    if (chosen < 0 || total != 1.0) single = false;
    idx[x] = chosen;
  }
  if (!single) return;
  t.count = 1;
  t.index = idx;
  t.weight.assign(out, 1.0);
}

bool is_identity(const AxisTaps& t, uint32_t in, uint32_t out) {
  if (in != out || t.count != 1 || t.any_outside) return false;
  for (uint32_t x = 0; x < out; ++x)
    if (t.index[x] != x) return false;
  return true;
}

}  // namespace

MLOperand resize_by_taps(NodeContext& c, const MLOperand& input, const ResizeSpec& s) {
  MLGraphBuilder& b = c.builder();
  const std::vector<uint32_t> in = input.shape();
  const size_t rank = in.size();
  const MLOperandDataType t = input.dataType();
  MLOperand x = input;
  std::vector<uint32_t> mask_shape(rank, 1);
  std::vector<std::vector<bool>> outside(rank);
  bool any_outside = false;
  for (size_t a = 0; a < rank; ++a) {
    AxisTaps taps = taps_of(c, s, a, in[a]);
    simplify(taps, s.out[a]);
    if (is_identity(taps, in[a], s.out[a])) continue;
    if (taps.count > 1 && !is_float_type(t))
      c.unsupported("linear or cubic resize of integers (WebNN arithmetic would round)");
    if (taps.any_outside) {
      any_outside = true;
      mask_shape[a] = s.out[a];
      outside[a] = taps.outside;
    }
    const auto index_type =
        in[a] <= INT32_MAX ? MLOperandDataType::kInt32 : MLOperandDataType::kInt64;
    std::vector<uint32_t> ishape = {s.out[a]};
    if (taps.count > 1) ishape.push_back(static_cast<uint32_t>(taps.count));
    MLGatherOptions g = c.opts<MLGatherOptions>();
    g.axis = static_cast<uint32_t>(a);
    x = b.gather(x, c.constant_operand(HostTensor::of_int64(taps.index, ishape, index_type)), g);
    if (taps.count == 1) continue;
    std::vector<uint32_t> wshape = ishape;
    wshape.resize(2 + (rank - a - 1), 1);
    x = b.mul(x, c.constant_operand(HostTensor::of_double(taps.weight, wshape, t)),
              c.opts<MLOperatorOptions>());
    MLReduceOptions r = c.opts<MLReduceOptions>();
    r.axes = std::vector<uint32_t>{static_cast<uint32_t>(a + 1)};
    x = b.reduceSum(x, r);
  }
  if (any_outside) {
    // extrapolation_value where any resized coordinate lies outside the input.
    const uint64_t n = element_count(mask_shape);
    std::vector<int64_t> mask(n);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t rest = i;
      bool out = false;
      for (size_t a = rank; a-- > 0;) {
        const uint64_t coord = rest % mask_shape[a];
        rest /= mask_shape[a];
        if (!outside[a].empty() && outside[a][coord]) out = true;
      }
      mask[i] = out ? 1 : 0;
    }
    const MLOperand m =
        c.constant_operand(HostTensor::of_int64(mask, mask_shape, MLOperandDataType::kUint8));
    x = b.where(m, c.scalar(t, s.extrapolation), x, c.opts<MLOperatorOptions>());
  }
  return x;
}

}  // namespace cppnn::onnx_import
