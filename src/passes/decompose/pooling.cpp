// Decompositions of the pooling ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/ops/pooling_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

// One spatial dimension of a pooling window, with the reference kernel's geometry
// (src/backends/reference/pooling_kernels.cpp): output position o reads the input positions
// o·stride − pad_begin + k·dilation, k < window, that lie inside the input.
struct PoolAxis {
  uint32_t axis = 0;  // position in the input shape
  uint32_t in = 0, window = 0, pad_begin = 0, stride = 1, dilation = 1, out = 0;

  // The dilated window's extent.
  int64_t extent() const { return (int64_t{window} - 1) * dilation + 1; }
  // The padding after the input that the last window reaches: what of the end padding is read,
  // plus what ceil rounding (partial last windows) needs beyond it.
  uint32_t pad_end() const {
    const int64_t last = (int64_t{out} - 1) * stride + extent();
    return static_cast<uint32_t>(std::max<int64_t>(0, last - pad_begin - in));
  }
  // The number of in-bounds window elements of output position o.
  uint32_t count(uint32_t o) const {
    uint32_t n = 0;
    for (uint32_t k = 0; k < window; ++k) {
      const int64_t i = int64_t{o} * stride - pad_begin + int64_t{k} * dilation;
      if (i >= 0 && i < in) ++n;
    }
    return n;
  }
  // True when the single output position's window is exactly the whole input.
  bool whole() const { return out == 1 && pad_begin == 0 && window == in && extent() == in; }
};

// Both spatial axes of a pooling op and its layout.
struct PoolGeometry {
  PoolAxis h, w;
  MLInputOperandLayout layout = MLInputOperandLayout::kNchw;
  // True when the window is the whole input (a reduction over the spatial axes).
  bool whole() const { return h.whole() && w.whole(); }
};

// The geometry of the pooling op of `c` (options with their defaults, output sizes from its
// output descriptor, which already applies floor/ceil rounding or outputSizes).
template <OpType T>
PoolGeometry geometry(const DecomposeContext& c) {
  const MLPool2dOptions& o = c.attrs<T>().options;
  const std::vector<uint32_t>& in = c.input_desc(0).shape;
  const std::vector<uint32_t>& out = c.output_desc(0).shape;
  const PoolWindow pw = pool_window(in, o);
  const bool nchw = o.layout == MLInputOperandLayout::kNchw;
  const uint32_t ha = nchw ? 2 : 1, wa = nchw ? 3 : 2;
  return {{ha, pw.height, pw.window[0], pw.padding[0], pw.strides[0], pw.dilations[0], out[ha]},
          {wa, pw.width, pw.window[1], pw.padding[2], pw.strides[1], pw.dilations[1], out[wa]},
          o.layout};
}

// The sum of every window's in-bounds elements of x: reduceSum over the spatial axes when the
// window is the whole input, else a depthwise conv2d with a ones filter (zero padding, extended
// at the end for partial windows).
MLOperand window_sum(MLGraphBuilder& b, const MLOperand& x, const PoolGeometry& g) {
  if (g.whole()) return b.reduceSum(x, {.axes = {g.h.axis, g.w.axis}, .keepDimensions = true});
  const uint32_t channels = x.shape()[g.layout == MLInputOperandLayout::kNchw ? 1 : 3];
  const MLOperand ones = filled(b, {x.dataType(), {channels, 1, g.h.window, g.w.window}}, 1);
  return b.conv2d(x, ones,
                  {.padding = {g.h.pad_begin, g.h.pad_end(), g.w.pad_begin, g.w.pad_end()},
                   .strides = {g.h.stride, g.w.stride},
                   .dilations = {g.h.dilation, g.w.dilation},
                   .groups = channels,
                   .inputLayout = g.layout});
}

// The count of in-bounds elements of every window, shaped to broadcast against the output
// ([oh, ow] for nchw, [oh, ow, 1] for nhwc).
MLOperand window_counts(MLGraphBuilder& b, MLOperandDataType type, const PoolGeometry& g) {
  std::vector<MLNumber> counts;
  counts.reserve(size_t{g.h.out} * g.w.out);
  for (uint32_t oy = 0; oy < g.h.out; ++oy)
    for (uint32_t ox = 0; ox < g.w.out; ++ox)
      counts.emplace_back(static_cast<double>(g.h.count(oy)) * g.w.count(ox));
  std::vector<uint32_t> shape{g.h.out, g.w.out};
  if (g.layout == MLInputOperandLayout::kNhwc) shape.push_back(1);
  return constant_of(b, type, std::move(shape), counts);
}

// averagePool2d (§2 row 65, emulation note): the window sums over the in-bounds counts (padding
// excluded; an empty window is 0/0 = NaN like the reference kernel), in float32.
std::vector<MLOperand> decompose_average_pool2d(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const PoolGeometry g = geometry<OpType::kAveragePool2d>(c);
  const MLOperand sum = window_sum(b, widen(b, c.input(0)), g);
  const MLOperand mean = b.div(sum, window_counts(b, sum.dataType(), g));
  return {narrow(b, mean, c.input_desc(0).dataType)};
}

// l2Pool2d (§2 row 66, emulation note): sqrt of the window sums of x², in float32.
std::vector<MLOperand> decompose_l2_pool2d(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const PoolGeometry g = geometry<OpType::kL2Pool2d>(c);
  const MLOperand x = widen(b, c.input(0));
  const MLOperand sum = window_sum(b, b.mul(x, x), g);
  return {narrow(b, b.sqrt(sum), c.input_desc(0).dataType)};
}

// x padded along `axis` with `before` and `after` elements of `value`.
MLOperand pad_axis(MLGraphBuilder& b, const MLOperand& x, uint32_t axis, uint32_t before,
                   uint32_t after, MLNumber value) {
  if (before == 0 && after == 0) return x;
  std::vector<MLOperand> parts;
  std::vector<uint32_t> shape = x.shape();
  if (before > 0) {
    shape[axis] = before;
    parts.push_back(filled(b, {x.dataType(), shape}, value));
  }
  parts.push_back(x);
  if (after > 0) {
    shape[axis] = after;
    parts.push_back(filled(b, {x.dataType(), shape}, value));
  }
  return b.concat(parts, axis);
}

// The maximum over the window along one axis: x padded with -Infinity (the lowest value of an
// integer type), then max of the `window` strided slices starting at k·dilation.
MLOperand max_along(MLGraphBuilder& b, const MLOperand& x, const PoolAxis& a) {
  const MLNumber lowest = -std::numeric_limits<double>::infinity();
  const MLOperand padded = pad_axis(b, x, a.axis, a.pad_begin, a.pad_end(), lowest);
  std::vector<uint32_t> starts(4, 0), sizes = padded.shape(), strides(4, 1);
  const uint32_t length = (a.out - 1) * a.stride + 1;
  if (a.window == 1 && a.stride == 1 && length == sizes[a.axis]) return padded;
  sizes[a.axis] = length;
  strides[a.axis] = a.stride;
  MLOperand m;
  for (uint32_t k = 0; k < a.window; ++k) {
    starts[a.axis] = k * a.dilation;
    const MLOperand s = b.slice(padded, starts, sizes, {.strides = strides});
    m = k == 0 ? s : b.max(m, s);
  }
  return m;
}

// maxPool2d (§2 row 67, emulation note): the window maximum is separable, so the max along the
// height then along the width of the -Infinity-padded input (NaN propagates through max, an
// empty window gives -Infinity); reduceMax when the window is the whole input.
std::vector<MLOperand> decompose_max_pool2d(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const PoolGeometry g = geometry<OpType::kMaxPool2d>(c);
  if (g.whole())
    return {b.reduceMax(c.input(0), {.axes = {g.h.axis, g.w.axis}, .keepDimensions = true})};
  return {max_along(b, max_along(b, c.input(0), g.h), g.w)};
}

}  // namespace

// averagePool2d and l2Pool2d through float32 window sums, maxPool2d through slices and max.
void register_pooling(DecompositionTable& t) {
  using namespace dt;
  const std::vector<DecompositionUse> sums{
      {OpType::kCast}, {OpType::kConv2d, kF32}, {OpType::kReduceSum, kF32}};
  std::vector<DecompositionUse> average = sums, l2 = sums;
  average.push_back({OpType::kDiv, kF32});
  l2.push_back({OpType::kMul, kF32});
  l2.push_back({OpType::kSqrt, kF32});
  t.add(OpType::kAveragePool2d, decompose_average_pool2d, average);
  t.add(OpType::kL2Pool2d, decompose_l2_pool2d, l2);
  t.add(OpType::kMaxPool2d, decompose_max_pool2d,
        {{OpType::kConcat}, {OpType::kSlice}, {OpType::kMax}, {OpType::kReduceMax}});
}

}  // namespace cppnn::passes
