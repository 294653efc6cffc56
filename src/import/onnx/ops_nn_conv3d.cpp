// 3-D ONNX Conv and ConvTranspose through one WebNN conv2d / convTranspose2d (see
// ops_nn_conv3d.h). Conv: y[n, :, od] = sum over kd of conv2d(x[n, :, od·s + kd·d − pad], w[:, :,
// kd]), so the depth taps are gathered next to the channels ([N·Do, kD·C, H, W], the channel
// order [group, kd, channel in group]) and the filter becomes [O, kD·C/g, kH, kW]: one grouped
// conv2d. ConvTranspose: y[n, :, id·s + kd·d − pad] += convTranspose2d(x[n, :, id], w[:, :, kd]),
// so one convTranspose2d over [N·D, C, H, W] computes every kd at once (output channels [group,
// kd, channel in group]) and the depth placement is a zero-interleave, a shift and a sum per kd.
#include "src/import/onnx/ops_nn_conv3d.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// Most kernel-depth taps a 3-D decomposition records (a few ops each).
constexpr uint32_t kMaxDepthTaps = 256;

// `x` transposed by `perm`.
MLOperand transposed(NodeContext& c, const MLOperand& x, std::vector<uint32_t> perm) {
  MLTransposeOptions o = c.opts<MLTransposeOptions>();
  o.permutation = std::move(perm);
  return c.builder().transpose(x, o);
}

// A 4-D [a, b, c, d] operand as [a, c, b, d]: a reshape when b or c is 1, else a transpose.
MLOperand swap_middle(NodeContext& c, const MLOperand& x) {
  const std::vector<uint32_t> s = x.shape();
  if (s[1] == 1 || s[2] == 1) return reshape_to(c, x, {s[0], s[2], s[1], s[3]});
  return transposed(c, x, {0, 2, 1, 3});
}

// The 2-D params of the H and W axes of 3-D params.
SpatialParams hw_params(const SpatialParams& p) {
  auto tail = [](const std::vector<uint32_t>& v) {
    return std::vector<uint32_t>(v.begin() + 1, v.end());
  };
  return {tail(p.kernel), tail(p.strides), tail(p.dilations), tail(p.pad_begin), tail(p.pad_end)};
}

// The filter (input 1) [a, b, kD, kH, kW] as [a, kD·b, kH, kW]: the depth taps next to axis 1.
MLOperand depth_folded_filter(NodeContext& c, uint32_t a, uint32_t b, uint32_t kd) {
  const std::vector<uint32_t>& ws = c.input_shape(1);
  const uint32_t kh = ws[3], kw = ws[4];
  const MLOperand f = swap_middle(c, reshaped_input(c, 1, {a, b, kd, kh * kw}));
  return reshape_to(c, f, {a, kd * b, kh, kw});
}

// Options (MLConv2dOptions or MLConvTranspose2dOptions) of the 2-D convolution over H and W of
// the 3-D params p, with `groups`.
template <class Options>
Options hw_conv_options(NodeContext& c, const SpatialParams& p, uint32_t groups) {
  const SpatialParams q = hw_params(p);
  Options co = c.opts<Options>();
  co.padding = webnn_padding(q);
  co.strides = q.strides;
  co.dilations = q.dilations;
  co.groups = groups;
  return co;
}

// `x` padded with zeros on axis `axis` by `begin` / `end`.
MLOperand pad_axis(NodeContext& c, const MLOperand& x, size_t axis, uint32_t begin, uint32_t end) {
  if (begin == 0 && end == 0) return x;
  std::vector<uint32_t> b(x.shape().size(), 0), e(x.shape().size(), 0);
  b[axis] = begin;
  e[axis] = end;
  return c.builder().pad(x, b, e, c.opts<MLPadOptions>());
}

// `x` sliced on axis `axis` to [start, start + size).
MLOperand slice_axis(NodeContext& c, const MLOperand& x, size_t axis, uint32_t start,
                     uint32_t size) {
  if (start == 0 && size == x.shape()[axis]) return x;
  std::vector<uint32_t> starts(x.shape().size(), 0), sizes = x.shape();
  starts[axis] = start;
  sizes[axis] = size;
  return c.builder().slice(x, starts, sizes, c.opts<MLSliceOptions>());
}

// DataError unless kernel_shape matches the weight's spatial dims.
void check_weight(const NodeContext& c, const SpatialParams& p) {
  const std::vector<uint32_t>& ws = c.input_shape(1);
  for (size_t i = 0; i < 3; ++i)
    if (p.kernel[i] != ws[2 + i]) c.invalid("kernel_shape differs from the weight shape");
}

// [N, O, D, H·W-like X] rearranged from [N, D, O, X] and reshaped to [N, O, D, H, W].
MLOperand to_ncdhw(NodeContext& c, const MLOperand& y, uint32_t n, uint32_t d, uint32_t o,
                   uint32_t h, uint32_t w) {
  const MLOperand t = swap_middle(c, reshape_to(c, y, {n, d, o, h * w}));
  return reshape_to(c, t, {n, o, d, h, w});
}

// Bias (input 2) added over axis 1 of a 5-D result.
MLOperand add_bias(NodeContext& c, const MLOperand& y) {
  if (!c.has_input(2)) return y;
  const std::vector<uint32_t>& bs = c.input_shape(2);
  if (bs.size() != 1 || bs[0] != y.shape()[1]) c.invalid("bias must have one value per channel");
  const MLOperand b = reshaped_input(c, 2, {1, bs[0], 1, 1, 1});
  return c.builder().add(y, b, c.opts<MLOperatorOptions>());
}

}  // namespace

void import_conv3d(NodeContext& c, const SpatialParams& p) {
  check_weight(c, p);
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t>& ws = c.input_shape(1);
  const uint32_t n = xs[0], ch = xs[1], h = xs[3], w = xs[4], o = ws[0], kd = p.kernel[0];
  const int64_t g = c.attr_int("group", 1);
  if (g <= 0 || ch % g != 0 || o % g != 0 || ws[1] != ch / g)
    c.invalid("group " + std::to_string(g) + " does not divide the channels as the weight says");
  const auto groups = static_cast<uint32_t>(g);
  if (kd > kMaxDepthTaps)
    c.unsupported("a kernel depth over " + std::to_string(kMaxDepthTaps) + " (one slice per tap)");
  const int64_t depth = int64_t{xs[2]} + p.pad_begin[0] + p.pad_end[0];
  const int64_t span = depth - effective_kernel(kd, p.dilations[0]);
  if (span < 0) c.invalid("the dilated kernel depth exceeds the padded input depth");
  const auto out_d = static_cast<uint32_t>(span / p.strides[0] + 1);
  bounded_product(c, {n, static_cast<uint64_t>(depth), ch, h, w},
                  "the depth-padded 3-D Conv input");
  bounded_product(c, {n, out_d, kd, ch, h, w}, "the depth-unfolded input of a 3-D Conv");
  // [N, C, D, H, W] -> [N, Dp, C, H·W] with the depth padding.
  MLOperand x = reshaped_input(c, 0, {n, ch, xs[2], h * w});
  x = swap_middle(c, pad_axis(c, x, 2, p.pad_begin[0], p.pad_end[0]));
  // The taps side by side: [N, Do, kD·C, H·W], tap k of output od = depth od·s + k·d.
  if (kd > 1 || p.strides[0] > 1 || out_d != depth) {
    std::vector<MLOperand> taps;
    for (uint32_t k = 0; k < kd; ++k) {
      MLSliceOptions so = c.opts<MLSliceOptions>();
      so.strides = std::vector<uint32_t>{1, p.strides[0], 1, 1};
      const uint32_t span_d = (out_d - 1) * p.strides[0] + 1;  // ceil(span_d / s) = Do rows
      taps.push_back(
          c.builder().slice(x, {0, k * p.dilations[0], 0, 0}, {n, span_d, ch, h * w}, so));
    }
    x = taps.size() == 1 ? taps[0] : c.builder().concat(taps, 2, c.opts<MLOperatorOptions>());
  }
  // Channel order [group, k, channel in group].
  const uint32_t cg = ch / groups;
  if (groups > 1 && kd > 1)
    x = swap_middle(c, reshape_to(c, x, {n * out_d, kd, groups, cg * h * w}));
  x = reshape_to(c, x, {n * out_d, kd * ch, h, w});
  // Filter [O, C/g, kD, kH, kW] -> [O, kD·C/g, kH, kW].
  const MLOperand f = depth_folded_filter(c, o, cg, kd);
  MLConv2dOptions co = hw_conv_options<MLConv2dOptions>(c, p, groups);
  if (c.has_input(2)) co.bias = c.input(2);
  const MLOperand y = c.builder().conv2d(x, f, co);  // [N·Do, O, Ho, Wo]
  const std::vector<uint32_t> ys = y.shape();
  c.set_output(0, to_ncdhw(c, y, n, out_d, o, ys[2], ys[3]));
}

void import_conv_transpose3d(NodeContext& c, const SpatialParams& p,
                             const std::vector<uint32_t>& out_pad,
                             const std::vector<int64_t>& out_shape) {
  check_weight(c, p);
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const std::vector<uint32_t>& ws = c.input_shape(1);
  const uint32_t n = xs[0], ch = xs[1], d = xs[2], h = xs[3], w = xs[4], kd = p.kernel[0];
  const int64_t g = c.attr_int("group", 1);
  if (g <= 0 || ch % g != 0 || ws[0] != ch) c.invalid("group or weight shape mismatch");
  const auto groups = static_cast<uint32_t>(g);
  const uint32_t og = ws[1], o = og * groups;
  if (kd > kMaxDepthTaps)
    c.unsupported("a kernel depth over " + std::to_string(kMaxDepthTaps) +
                  " (one shifted sum per depth tap)");
  const uint32_t sd = p.strides[0], dd = p.dilations[0];
  const int64_t full = (int64_t{d} - 1) * sd + effective_kernel(kd, dd) + out_pad[0];
  const int64_t out_d = full - p.pad_begin[0] - p.pad_end[0];
  if (out_d <= 0) c.invalid("the output depth is not positive");
  if (!out_shape.empty() && out_shape[0] != out_d)
    c.invalid("output_shape depth " + std::to_string(out_shape[0]) + " is not reachable");
  bounded_product(c, {n, ch, d, h, w}, "the input of a 3-D ConvTranspose");
  // [N, C, D, H, W] -> [N·D, C, H, W].
  MLOperand x = swap_middle(c, reshaped_input(c, 0, {n, ch, d, h * w}));
  x = reshape_to(c, x, {n * d, ch, h, w});
  // Filter [C, O/g, kD, kH, kW] -> [C, kD·O/g, kH, kW].
  const MLOperand f = depth_folded_filter(c, ch, og, kd);
  MLConvTranspose2dOptions co = hw_conv_options<MLConvTranspose2dOptions>(c, p, groups);
  co.outputPadding = std::vector<uint32_t>(out_pad.begin() + 1, out_pad.end());
  if (!out_shape.empty())
    co.outputSizes = to_dims(c, std::vector<int64_t>(out_shape.begin() + 1, out_shape.end()));
  MLOperand y = c.builder().convTranspose2d(x, f, co);  // [N·D, g·kD·O/g, Ho, Wo]
  const uint32_t ho = y.shape()[2], wo = y.shape()[3];
  bounded_product(c, {n, d, sd, kd, o, ho, wo}, "the depth taps of a 3-D ConvTranspose");
  // [N, D, kD, X] with X = O·Ho·Wo in [group, channel] order.
  if (groups > 1 && kd > 1) y = swap_middle(c, reshape_to(c, y, {n * d, groups, kd, og * ho * wo}));
  const uint32_t cols = o * ho * wo;
  y = reshape_to(c, y, {n, d, kd, cols});
  // Tap k lands at output depth id·s + k·d − pad_begin: zero-interleave by s, shift, crop, sum.
  std::optional<MLOperand> sum;
  for (uint32_t k = 0; k < kd; ++k) {
    MLOperand t = slice_axis(c, y, 2, k, 1);  // [N, D, 1, X]
    t = reshape_to(c, pad_axis(c, t, 2, 0, sd - 1), {n, d * sd, cols});
    const int64_t begin = int64_t{k} * dd - p.pad_begin[0];  // output depth of t's first row
    const int64_t lo = std::max<int64_t>(0, -begin);
    const int64_t hi = std::min<int64_t>(int64_t{d} * sd, out_d - begin);
    if (hi <= lo) continue;
    t = slice_axis(c, t, 1, static_cast<uint32_t>(lo), static_cast<uint32_t>(hi - lo));
    t = pad_axis(c, t, 1, static_cast<uint32_t>(begin + lo),
                 static_cast<uint32_t>(out_d - (begin + hi)));
    sum = sum ? c.builder().add(*sum, t, c.opts<MLOperatorOptions>()) : t;
  }
  if (!sum) c.unsupported("an output depth that no kernel tap reaches (padding only)");
  const auto od = static_cast<uint32_t>(out_d);
  c.set_output(0, add_bias(c, to_ncdhw(c, *sum, n, od, o, ho, wo)));
}

}  // namespace cppnn::onnx_import
