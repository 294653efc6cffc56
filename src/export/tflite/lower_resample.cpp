// TFLite lowering of resample2d (lower.h; webnn-spec.md §2 row 80 and its numeric note), float32,
// float16 (computed in float32), int8 and uint8. WebNN maps output coordinate x of an axis
// resampled from `in` to `out` elements to x_in = clamp((x + 0.5)·in/out − 0.5, 0, in − 1).
// The output sizes (scales or sizes) are the output descriptor's. TFLite's resize ops take NHWC:
// resampled axes other than 1 and 2 are TRANSPOSEd there and back.
// - nearest-neighbor picks index ceil(x_in − 0.5) (resample_nearest_index). TFLite's
//   RESIZE_NEAREST_NEIGHBOR picks floor((x + 0.5)·s) with half_pixel_centers, floor(x·s)
//   without, round(x·(in − 1)/(out − 1)) with align_corners, in float32 (s = in/out; 8-bit data
//   without either flag in fixed point): each mode agrees with WebNN for some sizes only
//   (half-pixel misses ties, e.g. a 2:1 downscale). The lowering computes TFLite's indices as
//   its kernel does at export and takes the first mode that gives WebNN's indices on both axes
//   (every integer upscale does); otherwise a GATHER per resized axis at WebNN's indices,
//   computed exactly.
// - linear is RESIZE_BILINEAR with half_pixel_centers: TFLite computes x_in = (x + 0.5)·s − 0.5
//   and interpolates between max(floor(x_in), 0) and min(ceil(x_in), in − 1), which is WebNN's
//   clamped interpolation (both ends read one element with weights summing to 1), in float32.
//   int8/uint8 are rounded half to even (ROUND) before the CAST back, like the reference kernel,
//   which makes exact ties matter: TFLite computes x_in from a float32 scale (a weight of 0.5
//   comes out 0.50000006) and its own 8-bit kernel rounds in fixed point, so 8-bit linear
//   resampling interpolates one axis after the other (the later first, as the reference does)
//   in float32 with GATHERs of the two taps and the weights computed at export like the
//   reference's (exact for halves and quarters), MUL and ADD. It still differs by 1 where the
//   reference's double arithmetic rounds an exact tie off it (-13.499999999999996 for -13.5 with
//   weights of thirds); float32 cannot reproduce those (TFLite has no float64 arithmetic).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_permute_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/ops/resample_params.h"

namespace cppnn::tflite_export {
namespace {

using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;

// A RESIZE_NEAREST_NEIGHBOR mode.
struct NearestMode {
  bool align_corners = false, half_pixel_centers = false;
};

// The input index TFLite's RESIZE_NEAREST_NEIGHBOR reads for output coordinate x of an axis of
// `in` elements resized to `out`: the reference kernel's (resize_nearest_neighbor.h,
// GetNearestNeighbor: float32 arithmetic, round half away from zero), except for 8-bit data
// without align_corners and half_pixel_centers, which the optimized kernel maps in 16.16 fixed
// point, (x·(floor(in·2^16 / out) + 1)) >> 16 (checked against LiteRT 2.3.0 with and without
// XNNPACK, which does not take the op).
int64_t tflite_nearest_index(int64_t x, int64_t in, int64_t out, NearestMode m, bool eight_bit) {
  if (eight_bit && !m.align_corners && !m.half_pixel_centers)
    return std::min((x * ((in << 16) / out + 1)) >> 16, in - 1);
  const float scale = m.align_corners && out > 1
                          ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                          : static_cast<float>(in) / static_cast<float>(out);
  const float offset = m.half_pixel_centers ? 0.5f : 0.0f;
  const float v = (static_cast<float>(x) + offset) * scale;
  int64_t i = static_cast<int64_t>(m.align_corners ? std::round(v) : std::floor(v));
  i = std::min(i, in - 1);
  if (m.half_pixel_centers) i = std::max<int64_t>(i, 0);
  return i;
}

// Whether mode `m` reads WebNN's nearest index for every output coordinate of the axis.
bool mode_matches(int64_t in, int64_t out, NearestMode m, bool eight_bit) {
  for (int64_t x = 0; x < out; ++x)
    if (tflite_nearest_index(x, in, out, m, eight_bit) !=
        resample_nearest_index(static_cast<uint64_t>(x), static_cast<uint64_t>(in),
                               static_cast<uint64_t>(out)))
      return false;
  return true;
}

// The first RESIZE_NEAREST_NEIGHBOR mode giving WebNN's indices on both axes, if any.
std::optional<NearestMode> nearest_mode(int64_t in0, int64_t out0, int64_t in1, int64_t out1,
                                        bool eight_bit) {
  for (NearestMode m :
       {NearestMode{false, true}, NearestMode{false, false}, NearestMode{true, false}})
    if (mode_matches(in0, out0, m, eight_bit) && mode_matches(in1, out1, m, eight_bit)) return m;
  return std::nullopt;
}

// `x` resized on axes 1 and 2 to `out` (NHWC): RESIZE_NEAREST_NEIGHBOR with mode `m`, or
// RESIZE_BILINEAR with half-pixel centers when `m` is absent.
TensorIndex resize(Emitter& e, TensorIndex x, const std::vector<int32_t>& out,
                   std::optional<NearestMode> m) {
  const TensorIndex size = e.const_i32({out[1], out[2]});
  if (m)
    return e.op1(
        Op::RESIZE_NEAREST_NEIGHBOR, {x, size}, e.type_of(x), out,
        Opt::ResizeNearestNeighborOptions,
        tfl::CreateResizeNearestNeighborOptions(e.fbb(), m->align_corners, m->half_pixel_centers)
            .Union());
  return e.op1(Op::RESIZE_BILINEAR, {x, size}, e.type_of(x), out, Opt::ResizeBilinearOptions,
               tfl::CreateResizeBilinearOptions(e.fbb(), false, true).Union());
}

// `x` gathered along `axis` at WebNN's nearest indices for `out` elements.
TensorIndex gather_nearest(Emitter& e, TensorIndex x, size_t axis, int32_t out) {
  std::vector<int32_t> shape = e.shape_of(x);
  const uint64_t in = static_cast<uint64_t>(shape[axis]);
  std::vector<int32_t> indices;
  for (int32_t i = 0; i < out; ++i)
    indices.push_back(static_cast<int32_t>(
        resample_nearest_index(static_cast<uint64_t>(i), in, static_cast<uint64_t>(out))));
  shape[axis] = out;
  return e.op1(Op::GATHER, {x, e.const_i32(indices)}, e.type_of(x), std::move(shape),
               Opt::GatherOptions,
               tfl::CreateGatherOptions(e.fbb(), static_cast<int32_t>(axis), 0).Union());
}

// The float32 `x` linearly interpolated along `axis` to `out` elements with the reference's
// half-pixel taps: lo·(1 − w) + hi·w of two GATHERs (lo alone where every w is 0).
TensorIndex lerp_axis(Emitter& e, TensorIndex x, size_t axis, int32_t out) {
  std::vector<int32_t> shape = e.shape_of(x);
  const int32_t in = shape[axis];
  if (in == out) return x;
  std::vector<int32_t> lo, hi;
  std::vector<float> w_lo, w_hi;
  bool exact = true;
  for (int32_t i = 0; i < out; ++i) {
    double x_in = ((2.0 * i + 1.0) * in - out) / (2.0 * out);
    x_in = std::clamp(x_in, 0.0, double(in) - 1);
    const double l = std::floor(x_in), w = x_in - l;
    lo.push_back(static_cast<int32_t>(l));
    hi.push_back(static_cast<int32_t>(std::ceil(x_in)));
    w_lo.push_back(static_cast<float>(1 - w));
    w_hi.push_back(static_cast<float>(w));
    exact = exact && w == 0;
  }
  shape[axis] = out;
  auto gather = [&](const std::vector<int32_t>& indices) {
    return e.op1(Op::GATHER, {x, e.const_i32(indices)}, tfl::TensorType::FLOAT32, shape,
                 Opt::GatherOptions,
                 tfl::CreateGatherOptions(e.fbb(), static_cast<int32_t>(axis), 0).Union());
  };
  const TensorIndex low = gather(lo);
  if (exact) return low;
  std::vector<int32_t> weight_shape(shape.size(), 1);
  weight_shape[axis] = out;
  auto weighted = [&](TensorIndex t, const std::vector<float>& weights) {
    std::vector<std::byte> bytes(weights.size() * sizeof(float));
    std::memcpy(bytes.data(), weights.data(), bytes.size());
    const TensorIndex c = e.constant(tfl::TensorType::FLOAT32, weight_shape, std::move(bytes));
    return e.op1(Op::MUL, {t, c}, tfl::TensorType::FLOAT32, shape, Opt::MulOptions,
                 tfl::CreateMulOptions(e.fbb()).Union());
  };
  return e.op1(Op::ADD, {weighted(low, w_lo), weighted(gather(hi), w_hi)}, tfl::TensorType::FLOAT32,
               shape, Opt::AddOptions, tfl::CreateAddOptions(e.fbb()).Union());
}

}  // namespace

// Every case the target gives it (float32, float16, int8, uint8) is lowered directly.
bool lowers_resample(const Graph& graph, const Operation& op) {
  const MLOperandDataType t = data_type_of(graph, op.inputs.at(0));
  return is_float(t) || t == MLOperandDataType::kInt8 || t == MLOperandDataType::kUint8;
}

// resample2d (row 80): the input itself when no size changes; nearest-neighbor by
// RESIZE_NEAREST_NEIGHBOR in a matching mode or GATHERs; linear by RESIZE_BILINEAR, or for
// int8/uint8 by GATHERs and weights (see the file comment).
void lower_resample2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kResample2d>& attrs) {
  const MLOperandDataType type = data_type_of(e.graph(), op.inputs[0]);
  if (!lowers_resample(e.graph(), op))
    throw NotSupportedError("tflite: resample2d takes float32, float16, int8 or uint8");
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<int32_t> xs = e.shape_of(x);
  const std::vector<int32_t> ys = shape_of(e.graph(), op.outputs[0]);
  if (xs == ys) {
    e.bind(op.outputs[0], x);
    return;
  }
  const std::vector<uint32_t> axes = resample_axes(attrs.options);
  const int32_t a0 = static_cast<int32_t>(std::min(axes[0], axes[1]));
  const int32_t a1 = static_cast<int32_t>(std::max(axes[0], axes[1]));
  const bool linear = attrs.options.mode == MLInterpolationMode::kLinear;
  std::optional<NearestMode> mode;
  if (!linear) {
    mode = nearest_mode(xs[a0], ys[a0], xs[a1], ys[a1], !is_float(type));
    if (!mode) {
      TensorIndex y = x;
      for (int32_t a : {a1, a0})
        if (xs[a] != ys[a]) y = gather_nearest(e, y, static_cast<size_t>(a), ys[a]);
      e.bind(op.outputs[0], y);
      return;
    }
  }
  if (linear && !is_float(type)) {
    TensorIndex y = e.cast(x, tfl::TensorType::FLOAT32);
    y = lerp_axis(e, lerp_axis(e, y, static_cast<size_t>(a1), ys[a1]), static_cast<size_t>(a0),
                  ys[a0]);
    y = e.op1(Op::ROUND, {y}, tfl::TensorType::FLOAT32, e.shape_of(y));
    e.bind(op.outputs[0], e.cast(y, compute_type_of(type)));
    return;
  }
  // perm: the other two axes around a0 and a1 ([n, a0, a1, c] as NHWC).
  std::vector<int32_t> perm;
  for (int32_t d = 0; d < 4; ++d)
    if (d != a0 && d != a1) perm.push_back(d);
  perm.insert(perm.begin() + 1, {a0, a1});
  TensorIndex y = resize(e, spatial::permuted(e, x, perm), spatial::permute_shape(ys, perm), mode);
  e.bind(op.outputs[0], spatial::permuted(e, y, spatial::inverse_perm(perm)));
}

}  // namespace cppnn::tflite_export
