// Decompositions of the resample ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "src/ops/resample_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

// The input indices one output coordinate reads along one axis: `lo` with weight 1 − w and `hi`
// with weight w (w = 0 reads only `lo`).
struct Tap {
  uint32_t lo = 0, hi = 0;
  double w = 0;
};

// The taps of every output coordinate of an axis of `in` elements resampled to `out`, with the
// reference kernel's half-pixel coordinates: x_in = clamp(((2x + 1)·in − out) / (2·out), 0,
// in − 1), interpolated between floor(x_in) and ceil(x_in) for linear mode.
std::vector<Tap> taps_of(uint32_t in, uint32_t out, bool linear) {
  std::vector<Tap> taps(out);
  for (uint32_t x = 0; x < out; ++x) {
    Tap& t = taps[x];
    if (!linear) {
      t.lo = t.hi = resample_nearest_index(x, in, out);
      continue;
    }
    double x_in = ((2.0 * x + 1.0) * in - out) / (2.0 * out);
    x_in = std::clamp(x_in, 0.0, double(in) - 1);
    const double lo = std::floor(x_in);
    t.lo = static_cast<uint32_t>(lo);
    t.hi = static_cast<uint32_t>(std::ceil(x_in));
    t.w = x_in - lo;
  }
  return taps;
}

// A rank-4 constant holding `values` along `axis` (size 1 elsewhere), to broadcast against x.
MLOperand along_axis(MLGraphBuilder& b, MLOperandDataType type, uint32_t axis,
                     const std::vector<MLNumber>& values) {
  std::vector<uint32_t> shape(4, 1);
  shape[axis] = static_cast<uint32_t>(values.size());
  return constant_of(b, type, std::move(shape), values);
}

// gather of x along `axis` at the constant indices `member` of each tap.
MLOperand gather_taps(MLGraphBuilder& b, const MLOperand& x, uint32_t axis,
                      const std::vector<Tap>& taps, uint32_t Tap::*member) {
  std::vector<MLNumber> indices;
  for (const Tap& t : taps) indices.emplace_back(t.*member);
  const MLOperand idx =
      constant_of(b, MLOperandDataType::kInt32, {static_cast<uint32_t>(indices.size())}, indices);
  return b.gather(x, idx, {.axis = axis});
}

// x resampled along `axis` to `out` elements: one gather for nearest-neighbor; for linear
// lo·(1 − w) + hi·w of two gathers (x is float32 then), keeping lo alone where w = 0 like the
// reference kernel (so an Infinity there is not multiplied by 0).
MLOperand resample_axis(MLGraphBuilder& b, const MLOperand& x, uint32_t axis, uint32_t out,
                        bool linear) {
  const uint32_t in = x.shape()[axis];
  if (in == out) return x;
  const std::vector<Tap> taps = taps_of(in, out, linear);
  const MLOperand lo = gather_taps(b, x, axis, taps, &Tap::lo);
  std::vector<MLNumber> w_lo, w_hi, exact;
  bool any_exact = false, all_exact = true;
  for (const Tap& t : taps) {
    w_lo.emplace_back(1 - t.w);
    w_hi.emplace_back(t.w);
    exact.emplace_back(t.w == 0 ? 1 : 0);
    any_exact = any_exact || t.w == 0;
    all_exact = all_exact && t.w == 0;
  }
  if (all_exact) return lo;
  const MLOperand hi = gather_taps(b, x, axis, taps, &Tap::hi);
  const MLOperandDataType type = x.dataType();
  const MLOperand r =
      b.add(b.mul(lo, along_axis(b, type, axis, w_lo)), b.mul(hi, along_axis(b, type, axis, w_hi)));
  if (!any_exact) return r;
  return b.where(along_axis(b, MLOperandDataType::kUint8, axis, exact), lo, r);
}

// Round half to even of a float32 operand (the reference kernel's nearbyint for integer
// outputs): floor(r), plus 1 above .5 and at .5 when floor(r) is odd.
MLOperand round_half_even(MLGraphBuilder& b, const MLOperand& r) {
  const MLOperand f = b.floor(r);
  const MLOperand frac = b.sub(r, f);
  const MLOperand half = scalar_like(b, r, 0.5), one = scalar_like(b, r, 1.0);
  const MLOperand parity = b.sub(f, b.mul(b.floor(b.mul(f, half)), scalar_like(b, r, 2.0)));
  const MLOperand up = b.where(b.lesser(half, frac), one,
                               b.where(b.equal(frac, half), parity, scalar_like(b, r, 0.0)));
  return b.add(f, up);
}

// resample2d (§2 row 80, emulation note): the two axes resampled one after the other (the later
// axis first, as the reference kernel interpolates) by gathers at constant indices; linear mode
// computes in float32 (float16 widened, int8/uint8 cast and rounded half to even at the end).
std::vector<MLOperand> decompose_resample2d(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& o = c.attrs<OpType::kResample2d>().options;
  const std::vector<uint32_t> axes = resample_axes(o);
  const uint32_t a0 = std::min(axes[0], axes[1]), a1 = std::max(axes[0], axes[1]);
  const std::vector<uint32_t>& out = c.output_desc(0).shape;
  const MLOperandDataType type = c.input_desc(0).dataType;
  const bool linear = o.mode == MLInterpolationMode::kLinear;
  MLOperand x = c.input(0);
  if (linear) x = narrow(b, x, MLOperandDataType::kFloat32);  // a cast unless float32 already
  x = resample_axis(b, resample_axis(b, x, a1, out[a1], linear), a0, out[a0], linear);
  if (linear && !is_float(type)) x = round_half_even(b, x);
  return {narrow(b, x, type)};
}

}  // namespace

// resample2d through gathers, and float32 arithmetic for linear mode.
void register_resample(DecompositionTable& t) {
  using namespace dt;
  t.add(OpType::kResample2d, decompose_resample2d,
        {{OpType::kGather},
         {OpType::kCast},
         {OpType::kMul, kF32},
         {OpType::kAdd, kF32},
         {OpType::kSub, kF32},
         {OpType::kFloor, kF32},
         {OpType::kLesser, kF32},
         {OpType::kEqual, kF32},
         {OpType::kWhere, kU8}});
}

}  // namespace cppnn::passes
