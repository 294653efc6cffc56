// ONNX GridSample (opsets 16 and 20; 1 to 3 spatial axes) on WebNN arithmetic and one
// gatherElements, following the ONNX reference implementation (which mirrors PyTorch's
// grid_sampler): per spatial axis of size L, the grid's normalized coordinate g (its components
// are in reverse axis order: x = width first) becomes x = ((g + 1) * L - 1) / 2, or
// (g + 1) / 2 * (L - 1) with align_corners; nearest rounds it half to even; outside the borders
// [-0.5, L - 0.5] ([0, L - 1] with align_corners) border padding clamps it to [0, L - 1] and
// reflection padding reflects it back. Cubic sampling with border padding leaves the coordinate
// and clamps only the taps, as ONNX Runtime and PyTorch do (the ONNX reference implementation
// clamps the coordinate too, which differs within a pixel of the border; no ONNX test covers it).
// The taps are floor(x) + {0} (nearest), {0, 1} (linear) or
// {-1, 0, 1, 2} (cubic, Keys' kernel with a = -0.75) with weights from x - floor(x); a tap outside
// [0, L - 1] reads 0 (zeros), the edge (border) or its reflection (reflection). The taps of all
// axes combine into flat positions of the input's spatial elements, one gatherElements reads them
// per batch and channel, and the weighted taps are summed.
#include <algorithm>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_nn_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Keys' cubic convolution parameter of ONNX's (and PyTorch's) bicubic grid sampling.
constexpr double kCubicA = -0.75;

// x reflected into [lo, hi] as the reference's _gs_reflect does: the distance past the near
// border, folded by the range, measured from that border when the fold count is even, else from
// the other one. Values inside stay (NaN too).
MLOperand reflect(Float32Arith& a, const MLOperand& x, double lo, double hi) {
  const MLOperand below = a.lt(x, a.k(lo)), above = a.gt(x, a.k(hi));
  const MLOperand dx = a.where(below, a.sub(a.k(lo), x), a.sub(x, a.k(hi)));
  const MLOperand range = a.k(hi - lo);
  const MLOperand n = a.floor(a.div(dx, range));
  const MLOperand r = a.sub(dx, a.mul(n, range));
  const MLOperand parity = a.sub(n, a.mul(a.floor(a.mul(n, a.k(0.5))), a.k(2)));
  const MLOperand even = a.b.equal(parity, a.k(0), a.o);
  const MLOperand from_lo = a.add(a.k(lo), r), from_hi = a.sub(a.k(hi), r);
  const MLOperand near = a.where(below, from_lo, from_hi), far = a.where(below, from_hi, from_lo);
  return a.where(a.either(below, above), a.where(even, near, far), x);
}

// v clamped into [0, last] with NaN -> 0 (where-based, so that no backend's clamp or cast sees
// a NaN or an out-of-range value).
MLOperand safe_index(Float32Arith& a, const MLOperand& v, double last) {
  return a.where(a.gt(v, a.k(last)), a.k(last), a.where(a.ge(v, a.k(0)), v, a.k(0)));
}

// The taps of one spatial axis: int32 positions [N, P, t] in [0, L - 1], float32 weights
// [N, P, t] (none for nearest), and for nearest with zeros padding the in-range mask [N, P, 1].
struct AxisTaps {
  MLOperand index;
  std::optional<MLOperand> weight;
  std::optional<MLOperand> valid;
  uint32_t count = 1;
};

// Keys' cubic weights of the taps floor - 1 .. floor + 2 at fraction t ([N, P, 1] -> [N, P, 4]),
// in the reference's Horner forms of |t - offset| (offsets -1 and 2 use the outer piece).
MLOperand cubic_weights(Float32Arith& a, const MLOperand& t) {
  const MLOperand off = a.c.constant_operand(HostTensor::of_double({-1, 0, 1, 2}, {4}));
  const MLOperand d = a.b.abs(a.sub(t, off), a.o);
  const double k = kCubicA;
  // inner: ((A + 2) d - (A + 3)) d d + 1; outer: ((A d - 5A) d + 8A) d - 4A.
  const MLOperand inner =
      a.add(a.mul(a.mul(a.sub(a.mul(a.k(k + 2), d), a.k(k + 3)), d), d), a.k(1));
  const MLOperand outer =
      a.sub(a.mul(a.add(a.mul(a.sub(a.mul(a.k(k), d), a.k(5 * k)), d), a.k(8 * k)), d), a.k(4 * k));
  const MLOperand is_inner =
      a.c.constant_operand(HostTensor::of_int64({0, 1, 1, 0}, {4}, DT::kUint8));
  return a.where(is_inner, inner, outer);
}

AxisTaps axis_taps(Float32Arith& a, const MLOperand& g, uint32_t size, Mode mode, Padding padding,
                   bool align_corners) {
  const double length = size, last = length - 1;
  const double lo = align_corners ? 0.0 : -0.5, hi = align_corners ? last : length - 0.5;
  MLOperand x = align_corners ? a.mul(a.div(a.add(g, a.k(1)), a.k(2)), a.k(last))
                              : a.div(a.sub(a.mul(a.add(g, a.k(1)), a.k(length)), a.k(1)), a.k(2));
  if (mode == Mode::kNearest) x = a.b.roundEven(x, a.o);
  const bool degenerate = hi <= lo;  // size 1 with align_corners: every position reads pixel 0
  if (padding == Padding::kBorder && mode != Mode::kCubic) {
    x = a.where(a.lt(x, a.k(lo)), a.k(0), a.where(a.gt(x, a.k(hi)), a.k(last), x));
  } else if (padding == Padding::kReflection && !degenerate) {
    x = reflect(a, x, lo, hi);
  }
  AxisTaps taps;
  MLOperand positions = x;  // [N, P, count]
  if (mode != Mode::kNearest) {
    const MLOperand fl = a.floor(x), t = a.sub(x, fl);
    if (mode == Mode::kLinear) {
      taps.count = 2;
      positions = a.add(fl, a.c.constant_operand(HostTensor::of_double({0, 1}, {2})));
      taps.weight = a.b.concat({a.sub(a.k(1), t), t}, 2, a.o);
    } else {
      taps.count = 4;
      positions = a.add(fl, a.c.constant_operand(HostTensor::of_double({-1, 0, 1, 2}, {4})));
      taps.weight = cubic_weights(a, t);
    }
  }
  if (padding == Padding::kZeros) {
    const MLOperand inside = a.both(a.ge(positions, a.k(0)), a.le(positions, a.k(last)));
    positions = a.where(inside, positions, a.k(0));
    if (taps.weight)
      taps.weight = a.where(inside, *taps.weight, a.k(0));
    else
      taps.valid = inside;
  } else if (padding == Padding::kReflection) {
    positions = degenerate ? a.mul(positions, a.k(0)) : reflect(a, positions, lo, hi);
  }
  taps.index = a.b.cast(safe_index(a, positions, last), DT::kInt32, a.o);
  return taps;
}

Mode parse_mode(const NodeContext& c) {
  const std::string m = c.attr_string("mode", c.opset() >= 20 ? "linear" : "bilinear");
  if (m == "nearest") return Mode::kNearest;
  if (m == "bilinear" || m == "linear") return Mode::kLinear;
  if (m == "bicubic" || m == "cubic") return Mode::kCubic;
  c.invalid("unknown mode '" + m + "'");
}

Padding parse_padding(const NodeContext& c) {
  const std::string p = c.attr_string("padding_mode", "zeros");
  if (p == "zeros") return Padding::kZeros;
  if (p == "border") return Padding::kBorder;
  if (p == "reflection") return Padding::kReflection;
  c.invalid("unknown padding_mode '" + p + "'");
}

}  // namespace

void import_GridSample(NodeContext& c) {
  const Mode mode = parse_mode(c);
  const Padding padding = parse_padding(c);
  const int64_t align = c.attr_int("align_corners", 0);
  if (align != 0 && align != 1) c.invalid("align_corners must be 0 or 1");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t>& gs = c.input_shape(1);
  if (xs.size() < 3 || xs.size() > 5) c.unsupported("an input of rank other than 3, 4 or 5");
  const size_t r = xs.size() - 2;
  if (gs.size() != xs.size() || gs[0] != xs[0] || gs.back() != r)
    c.invalid("the grid must have shape [N, D1_out .. Dr_out, r] for an input [N, C, D1 .. Dr]");
  if (!is_float_type(c.input_type(1))) c.invalid("the grid must be float32 or float16");
  const DT type = c.input_type(0);
  if (mode != Mode::kNearest && !is_float_type(type))
    c.unsupported("linear or cubic sampling of integers (WebNN arithmetic would round)");
  const uint32_t n = xs[0], channels = xs[1];
  const uint64_t spatial = element_count(std::vector<uint32_t>(xs.begin() + 2, xs.end()));
  if (spatial > INT32_MAX) c.unsupported("an input with more than 2^31-1 spatial elements");
  const std::vector<uint32_t> out_dims(gs.begin() + 1, gs.end() - 1);
  const uint64_t p = element_count(out_dims);
  if (p == 0 || spatial == 0 || n == 0 || channels == 0) c.unsupported("an empty input or grid");
  uint64_t taps_per_output = 1;
  for (size_t i = 0; i < r; ++i)
    taps_per_output *= mode == Mode::kNearest ? 1 : mode == Mode::kLinear ? 2 : 4;
  const uint64_t k = bounded_product(c, {p, taps_per_output}, "GridSample's taps");
  bounded_product(c, {n, channels, k}, "GridSample's gathered taps");
  const auto p32 = static_cast<uint32_t>(p), k32 = static_cast<uint32_t>(k);

  Float32Arith a(c);
  MLOperand grid = cast_to(c, c.input(1), DT::kFloat32);
  grid = a.b.reshape(grid, {n, p32, static_cast<uint32_t>(r)}, a.o);
  // Flat positions and weights over [N, P, t_1, .., t_r].
  std::optional<MLOperand> flat, weight, valid;
  uint64_t stride = spatial;
  for (size_t axis = 0; axis < r; ++axis) {
    const uint32_t size = xs[2 + axis];
    stride /= size;
    const auto component = static_cast<uint32_t>(r - 1 - axis);
    MLSliceOptions so = c.opts<MLSliceOptions>();
    const MLOperand g = a.b.slice(grid, {0, 0, component}, {n, p32, 1}, so);
    AxisTaps taps = axis_taps(a, g, size, mode, padding, align == 1);
    std::vector<uint32_t> shape(2 + r, 1);
    shape[0] = n;
    shape[1] = p32;
    shape[2 + axis] = taps.count;
    MLOperand pos = a.b.reshape(taps.index, shape, a.o);
    if (stride != 1) pos = a.b.mul(pos, c.scalar(DT::kInt32, static_cast<double>(stride)), a.o);
    flat = flat ? a.b.add(*flat, pos, a.o) : pos;
    if (taps.weight) {
      const MLOperand w = a.b.reshape(*taps.weight, shape, a.o);
      weight = weight ? a.mul(*weight, w) : w;
    }
    if (taps.valid) {
      const MLOperand v = a.b.reshape(*taps.valid, shape, a.o);
      valid = valid ? a.both(*valid, v) : v;
    }
  }
  MLOperand index = a.b.reshape(*flat, {n, 1, k32}, a.o);
  index = a.b.expand(index, {n, channels, k32}, a.o);
  MLOperand x = a.b.reshape(c.input(0), {n, channels, static_cast<uint32_t>(spatial)}, a.o);
  MLGatherOptions go = c.opts<MLGatherOptions>();
  go.axis = 2;
  MLOperand y = a.b.gatherElements(x, index, go);  // [N, C, K]
  if (mode == Mode::kNearest) {
    if (valid) {
      const MLOperand v = a.b.reshape(*valid, {n, 1, k32}, a.o);
      y = a.b.where(v, y, c.scalar(type, 0), a.o);
    }
  } else {
    const auto t32 = static_cast<uint32_t>(taps_per_output);
    y = a.b.reshape(y, {n, channels, p32, t32}, a.o);
    MLOperand w = a.b.reshape(*weight, {n, 1, p32, t32}, a.o);
    w = cast_to(c, w, type);
    MLReduceOptions ro = c.opts<MLReduceOptions>();
    ro.axes = std::vector<uint32_t>{3};
    y = a.b.reduceSum(a.b.mul(y, w, a.o), ro);
  }
  std::vector<uint32_t> out_shape = {n, channels};
  out_shape.insert(out_shape.end(), out_dims.begin(), out_dims.end());
  c.set_output(0, a.b.reshape(y, out_shape, a.o));
}

}  // namespace cppnn::onnx_import
