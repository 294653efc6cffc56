// ONNX lowering of resample2d (see lower.h; webnn-spec.md §2 row 80 and its numeric note): ONNX
// Resize with coordinate_transformation_mode "half_pixel" and the output descriptor's dims as
// `sizes` (so scale = out/in, as WebNN defines it, also when scales were given):
//  - linear: Resize "linear" (ORT clamps x_in to [0, in−1] like WebNN). ORT interpolates two
//    resampled dims only at positions 2,3 or 1,2 of a 4-D tensor, so other axes are transposed
//    there and back. int8/uint8 are computed like the reference instead (Gathers and arithmetic
//    in double, rounded half to even), since float32 coordinates flip exact .5 ties.
//  - nearest-neighbor: Resize "nearest" with nearest_mode "round_prefer_floor" (WebNN's
//    ceil(x_in − 0.5)) where ORT's float32 coordinate is exact enough to pick the same index
//    (integer upsampling, odd or power-of-two downsampling); otherwise one Gather per resampled
//    axis with the indices computed here exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_convolution_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/resample_params.h"

namespace cppnn::onnx_export {
namespace {

// Whether ORT's float32 half-pixel coordinate (x + 0.5)/(out/in) − 0.5 rounds to WebNN's index
// for every x: no rounding error (power-of-two ratios), or no ties to break (integer upsampling
// and odd downsampling, whose coordinates are far from .5 or exact integers).
bool resize_nearest_is_exact(int64_t in, int64_t out) {
  auto power_of_two = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  if (out % in == 0) return true;
  if (in % out != 0) return false;
  const int64_t ratio = in / out;
  return ratio % 2 == 1 || power_of_two(ratio);
}

// A Cast of `x` to double.
std::string cast_to_double(Emitter& e, const std::string& x) {
  return e.node("Cast", {x}, {{"to", int64_t{onnx::TensorProto::DOUBLE}}});
}

// A Resize node of `x` to `sizes` in `mode`, writing `y`.
void resize(Emitter& e, const std::string& x, const std::string& y,
            const std::vector<int64_t>& sizes, bool linear) {
  std::vector<Attr> attrs = {{"coordinate_transformation_mode", std::string("half_pixel")},
                             {"mode", std::string(linear ? "linear" : "nearest")}};
  if (!linear) attrs.push_back({"nearest_mode", std::string("round_prefer_floor")});
  e.node_to("Resize", {x, "", "", e.const_i64(sizes)}, {y}, std::move(attrs));
}

// Linear resampling of `x` (shape `in`) to `out` in float32/float16, writing `y`.
void linear_resize(Emitter& e, const std::string& x, const std::string& y,
                   const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> resampled, kept;
  for (int64_t d = 0; d < 4; ++d) (in[d] != out[d] ? resampled : kept).push_back(d);
  auto within = [&](int64_t a, int64_t b) {
    return std::all_of(resampled.begin(), resampled.end(),
                       [&](int64_t d) { return d == a || d == b; });
  };
  if (within(2, 3) || within(1, 2)) {
    resize(e, x, y, out, true);
    return;
  }
  // Move the resampled axes last (kept axes keep their order), resize, and move them back.
  std::vector<int64_t> perm = kept;
  perm.insert(perm.end(), resampled.begin(), resampled.end());
  std::vector<int64_t> inverse(4), sizes(4);
  for (int64_t i = 0; i < 4; ++i) {
    inverse[perm[i]] = i;
    sizes[i] = out[perm[i]];
  }
  const std::string r = e.fresh();
  resize(e, transpose(e, x, perm), r, sizes, true);
  e.node_to("Transpose", {r}, {y}, {{"perm", inverse}});
}

// The interpolation of one resampled axis `d` as WebNN's reference computes it, in double:
// x_in = clamp(((2x + 1)·in − out) / (2·out), 0, in − 1) (exact numerator, one rounding),
// lo = floor(x_in), hi = ceil(x_in), w = x_in − lo, then v[lo]·(1 − w) + v[hi]·w.
std::string interpolate_axis(Emitter& e, const std::string& v, int64_t d, int64_t in, int64_t out) {
  std::vector<int64_t> numerators(out), lo(out), hi(out);
  for (int64_t x = 0; x < out; ++x) {
    numerators[x] = (2 * x + 1) * in - out;
    double x_in = static_cast<double>(numerators[x]) / (2.0 * static_cast<double>(out));
    x_in = std::clamp(x_in, 0.0, static_cast<double>(in) - 1);
    lo[x] = static_cast<int64_t>(std::floor(x_in));
    hi[x] = static_cast<int64_t>(std::ceil(x_in));
  }
  // The weights, shaped to broadcast along axis d; ORT folds this constant arithmetic.
  std::vector<int64_t> shape(4, 1);
  shape[d] = out;
  auto as_double = [&](const std::string& s) { return cast_to_double(e, s); };
  const std::string num = as_double(e.const_tensor(
      MLOperandDataType::kInt64, shape,
      std::as_bytes(std::span<const int64_t>(numerators.data(), numerators.size()))));
  const std::string den = as_double(e.const_scalar(MLOperandDataType::kInt64, 2 * out));
  const std::string zero = as_double(e.const_scalar(MLOperandDataType::kInt64, 0));
  const std::string one = as_double(e.const_scalar(MLOperandDataType::kInt64, 1));
  const std::string last = as_double(e.const_scalar(MLOperandDataType::kInt64, in - 1));
  const std::string x_in = e.node("Min", {e.node("Max", {e.node("Div", {num, den}), zero}), last});
  const std::string w = e.node("Sub", {x_in, e.node("Floor", {x_in})});
  const std::string w_lo = e.node("Sub", {one, w});
  const std::string v_lo = e.node("Gather", {v, e.const_i64(lo)}, {{"axis", d}});
  const std::string v_hi = e.node("Gather", {v, e.const_i64(hi)}, {{"axis", d}});
  return e.node("Add", {e.node("Mul", {v_lo, w_lo}), e.node("Mul", {v_hi, w})});
}

// Linear resampling of int8/uint8 exactly as WebNN's reference: in double, the last resampled
// axis first, rounded half to even once (float32 Resize coordinates are off by an ulp, which
// flips exact .5 ties).
void exact_linear(Emitter& e, const std::string& x, const std::string& y, MLOperandDataType type,
                  const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::string v = cast_to_double(e, x);
  for (int64_t d = 3; d >= 0; --d)
    if (in[d] != out[d]) v = interpolate_axis(e, v, d, in[d], out[d]);
  e.node_to("Cast", {e.node("Round", {v})}, {y}, {{"to", int64_t{onnx_type_of(type)}}});
}

}  // namespace

// resample2d (§2 row 80): nearest-neighbor or bilinear resampling of two axes, half-pixel mapped.
void lower_resample2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kResample2d>& attrs) {
  using T = MLOperandDataType;
  const T type = e.type(op.inputs.at(0));
  if (type != T::kFloat32 && type != T::kFloat16 && type != T::kInt8 && type != T::kUint8)
    throw NotSupportedError("input must be float32, float16, int8 or uint8");
  const std::vector<int64_t> in_dims = e.dims(op.inputs.at(0));
  const std::vector<int64_t> out_dims = e.dims(op.outputs.at(0));
  const std::string& x = in(e, op, 0);
  const std::string& y = out(e, op);
  if (in_dims == out_dims) {
    e.node_to("Identity", {x}, {y});
    return;
  }
  if (attrs.options.mode == MLInterpolationMode::kLinear) {
    if (type == T::kFloat32 || type == T::kFloat16) {
      linear_resize(e, x, y, in_dims, out_dims);
      return;
    }
    exact_linear(e, x, y, type, in_dims, out_dims);
    return;
  }
  bool exact = true;
  for (size_t d = 0; d < 4; ++d)
    if (in_dims[d] != out_dims[d])
      exact = exact && resize_nearest_is_exact(in_dims[d], out_dims[d]);
  if (exact) {
    resize(e, x, y, out_dims, false);
    return;
  }
  // One Gather per resampled axis, with WebNN's indices.
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < 4; ++d)
    if (in_dims[d] != out_dims[d]) axes.push_back(d);
  std::string v = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t d = axes[i];
    std::vector<int64_t> indices(out_dims[d]);
    for (int64_t j = 0; j < out_dims[d]; ++j)
      indices[j] = resample_nearest_index(static_cast<uint64_t>(j), in_dims[d], out_dims[d]);
    const std::vector<std::string> inputs = {v, e.const_i64(indices)};
    const std::vector<Attr> gather_attrs = {{"axis", d}};
    if (i + 1 == axes.size()) {
      e.node_to("Gather", inputs, {y}, gather_attrs);
    } else {
      v = e.node("Gather", inputs, gather_attrs);
    }
  }
}

}  // namespace cppnn::onnx_export
