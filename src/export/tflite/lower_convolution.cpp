// TFLite lowerings of the convolutions (lower.h; webnn-spec.md §2 rows 7-8), float32 and float16
// (computed in float32), in the forms XNNPACK delegates:
// - conv2d is CONV_2D (input NHWC, filter OHWI [Cout, kH, kW, Cin/groups], bias [Cout]; TFLite
//   infers groups = Cin / filter Cin, which its kernels and XNNPACK run) or, when groups equals
//   the input channels (> 1), DEPTHWISE_CONV_2D (filter [1, kH, kW, Cout], depth_multiplier
//   Cout / Cin: WebNN's output channel g·M + m reads input channel g, as TFLite's does). A
//   constant filter is permuted at export (the layout pass gives OHWI); a missing bias is a zero
//   constant (TFLite's conv kernels and XNNPACK require one).
// - padding: SAME or VALID when TFLite's rule gives WebNN's windows (lower_window_util.h), else a
//   PAD of zeros before a VALID conv (XNNPACK's subgraph optimizer fuses a zero PAD into the
//   convolution that reads it). Dilations are the ops' own.
// - convTranspose2d whose kernel equals its stride (no groups, no dilations, constant filter and
//   bias, an output within the full extent) is a 1x1 CONV_2D to kh·kw·Cout channels and
//   DEPTH_TO_SPACE (plus a SLICE for the padding): XNNPACK runs it several times faster than
//   TRANSPOSE_CONV (see depth_to_space_deconvolution).
// - any other convTranspose2d is TRANSPOSE_CONV (filter OHWI [Cout/groups, kH, kW, Cin], the
//   bias as its 4th input), which computes the full transposed convolution of extent
//   full = (in − 1)·s + k and keeps output_shape positions starting at SAME's or VALID's begin
//   padding, requiring in = ceil(out / s) (SAME) or full ≤ out < full + s (VALID); positions
//   past `full` hold the bias alone, as in WebNN.
//   WebNN's output (outputPadding or outputSizes) is out = full − pb − pe (+ op < s), so when
//   neither mode crops exactly at pb, a VALID TRANSPOSE_CONV of max(full, pb + out) positions is
//   SLICEd from pb. TRANSPOSE_CONV has no groups and no dilations: groups are a SPLIT of the
//   input, one TRANSPOSE_CONV per group and a CONCATENATION; a dilated constant filter is
//   dilated at export (zeros between the taps), a dilated computed filter goes through the
//   shared decomposition (lowers_convolution).
// Input layouts other than nhwc are TRANSPOSEd to NHWC and the result back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_permute_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/export/tflite/lower_window_util.h"
#include "src/ops/convolution_params.h"

namespace cppnn::tflite_export {
namespace {

using spatial::WindowAxis;
using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;

// The bias operand, or a zero bias of `channels` elements when the op has none.
TensorIndex bias_or_zeros(Emitter& e, const Operation& op, int32_t channels) {
  if (has_input(op, 2)) return e.value(op.inputs[2]);
  return e.scalar(tfl::TensorType::FLOAT32, 0, {channels});
}

// Checks the float compute type of the convolutions (float32, float16 as float32).
void require_float(const Emitter& e, const Operation& op) {
  if (!is_float(data_type_of(e.graph(), op.inputs[0])))
    throw NotSupportedError("tflite: convolutions take float32 or float16");
}

// `n` equal slices of `t` along `axis`: constants sliced at export, else one SPLIT operator.
std::vector<TensorIndex> split_along(Emitter& e, TensorIndex t, int32_t axis, int32_t n) {
  if (n == 1) return {t};
  std::vector<int32_t> shape = e.shape_of(t);
  const size_t a = static_cast<size_t>(axis);
  shape[a] /= n;
  std::vector<TensorIndex> parts;
  if (e.is_constant(t)) {
    const size_t size = element_size(e.type_of(t));
    size_t outer = 1, inner = size;
    for (size_t d = 0; d < a; ++d) outer *= static_cast<size_t>(shape[d]);
    for (size_t d = a + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    const size_t block = static_cast<size_t>(shape[a]) * inner;  // bytes of one part per outer
    const std::span<const std::byte> bytes = e.constant_bytes(t);
    for (int32_t k = 0; k < n; ++k) {
      std::vector<std::byte> part(outer * block);
      for (size_t o = 0; o < outer; ++o)
        std::memcpy(part.data() + o * block,
                    bytes.data() + (o * static_cast<size_t>(n) + static_cast<size_t>(k)) * block,
                    block);
      parts.push_back(e.constant(e.type_of(t), shape, std::move(part)));
    }
    return parts;
  }
  for (int32_t k = 0; k < n; ++k) parts.push_back(e.tensor(e.type_of(t), shape));
  e.op(Op::SPLIT, {e.scalar(tfl::TensorType::INT32, axis), t}, parts, Opt::SplitOptions,
       tfl::CreateSplitOptions(e.fbb(), n).Union());
  return parts;
}

// The constant OHWI filter `w` dilated by (dh, dw): zeros between its taps, so that an undilated
// op over it reads the taps of the dilated window.
TensorIndex dilate_filter(Emitter& e, TensorIndex w, uint32_t dh, uint32_t dw) {
  if (dh == 1 && dw == 1) return w;
  const std::vector<int32_t>& s = e.shape_of(w);
  const size_t o = static_cast<size_t>(s[0]), kh = static_cast<size_t>(s[1]);
  const size_t kw = static_cast<size_t>(s[2]), c = static_cast<size_t>(s[3]);
  const size_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
  const size_t size = element_size(e.type_of(w)), row = c * size;
  const std::span<const std::byte> bytes = e.constant_bytes(w);
  std::vector<std::byte> out(o * eh * ew * row, std::byte{0});
  for (size_t i = 0; i < o; ++i)
    for (size_t y = 0; y < kh; ++y)
      for (size_t x = 0; x < kw; ++x)
        std::memcpy(out.data() + ((i * eh + y * dh) * ew + x * dw) * row,
                    bytes.data() + ((i * kh + y) * kw + x) * row, row);
  return e.constant(e.type_of(w), {s[0], static_cast<int32_t>(eh), static_cast<int32_t>(ew), s[3]},
                    std::move(out));
}

// The depth-to-space form of a convTranspose2d whose kernel equals its stride (each output
// position reads one input position through one filter tap): the output block (a, b) of input
// position (i, j) is z[i, j, (a·kw + b)·Cout + o] of a 1x1 CONV_2D with the constant filter
// W'[(a·kw + b)·Cout + o, 0, 0, c] = F[o, a, b, c] (OHWI F) and the bias repeated per tap, laid
// out as TFLite's DEPTH_TO_SPACE (DCR: depth index (a·block + b)·C + o, as TF's default) for a
// square kernel, else RESHAPE [N·H, W, kh, kw·Cout], TRANSPOSE [0, 2, 1, 3] (none for kh = 1)
// and RESHAPE; the full result (in·k on each axis) is then SLICEd from WebNN's begin padding.
// Exact: every output is the same dot product over the input channels as TRANSPOSE_CONV's, plus
// the bias. nullopt when the op does not have this form: groups or dilations, kernel ≠ stride, a
// computed filter or bias, or an output that reaches past the full extent (those positions hold
// the bias alone).
std::optional<TensorIndex> depth_to_space_deconvolution(Emitter& e, const Operation& op,
                                                        TensorIndex x, TensorIndex filter,
                                                        const WindowOptions& win, uint32_t groups,
                                                        const std::vector<int32_t>& ys) {
  if (groups != 1 || win.dilations[0] != 1 || win.dilations[1] != 1) return std::nullopt;
  const std::vector<int32_t> xs = e.shape_of(x);
  const std::vector<int32_t> fs = e.shape_of(filter);  // OHWI (copies: adding tensors moves them)
  const int32_t cout = fs[0], kh = fs[1], kw = fs[2], cin = fs[3];
  if (int64_t{kh} != win.strides[0] || int64_t{kw} != win.strides[1]) return std::nullopt;
  if (int64_t{ys[1]} + win.padding[0] > int64_t{xs[1]} * kh ||
      int64_t{ys[2]} + win.padding[2] > int64_t{xs[2]} * kw)
    return std::nullopt;
  const TensorIndex bias = has_input(op, 2) ? e.value(op.inputs[2]) : kOmitted;
  if (!e.is_constant(filter) || (bias != kOmitted && !e.is_constant(bias))) return std::nullopt;
  const size_t taps = static_cast<size_t>(kh) * static_cast<size_t>(kw);
  const size_t row = static_cast<size_t>(cin) * sizeof(float);
  const size_t outs = static_cast<size_t>(cout), channels = taps * outs;
  const std::span<const std::byte> f = e.constant_bytes(filter);
  std::vector<std::byte> w(channels * row), b(channels * sizeof(float), std::byte{0});
  for (size_t o = 0; o < outs; ++o)
    for (size_t t = 0; t < taps; ++t) {
      std::memcpy(w.data() + (t * outs + o) * row, f.data() + (o * taps + t) * row, row);
      if (bias != kOmitted)
        std::memcpy(b.data() + (t * outs + o) * sizeof(float),
                    e.constant_bytes(bias).data() + o * sizeof(float), sizeof(float));
    }
  const int32_t depth = static_cast<int32_t>(channels);
  const TensorIndex z =
      e.op1(Op::CONV_2D,
            {x, e.constant(tfl::TensorType::FLOAT32, {depth, 1, 1, cin}, std::move(w)),
             e.constant(tfl::TensorType::FLOAT32, {depth}, std::move(b))},
            tfl::TensorType::FLOAT32, {xs[0], xs[1], xs[2], depth}, Opt::Conv2DOptions,
            tfl::CreateConv2DOptions(e.fbb(), tfl::Padding::VALID, 1, 1,
                                     tfl::ActivationFunctionType::NONE, 1, 1)
                .Union());
  const std::vector<int32_t> full{xs[0], xs[1] * kh, xs[2] * kw, cout};
  TensorIndex y = z;
  if (kh == kw && kh > 1) {
    y = e.op1(Op::DEPTH_TO_SPACE, {z}, tfl::TensorType::FLOAT32, full, Opt::DepthToSpaceOptions,
              tfl::CreateDepthToSpaceOptions(e.fbb(), kh).Union());
  } else if (kh != kw) {
    // kh = 1: the taps of one row are already in place, the RESHAPE alone interleaves them.
    if (kh > 1) y = e.transpose(e.reshape(z, {xs[0] * xs[1], xs[2], kh, kw * cout}), {0, 2, 1, 3});
    y = e.reshape(y, full);
  }
  if (full == ys) return y;
  return e.op1(Op::SLICE,
               {y,
                e.const_i32({0, static_cast<int32_t>(win.padding[0]),
                             static_cast<int32_t>(win.padding[2]), 0}),
                e.const_i32(ys)},
               tfl::TensorType::FLOAT32, ys, Opt::SliceOptions,
               tfl::CreateSliceOptions(e.fbb()).Union());
}

}  // namespace

// conv2d takes every float case; convTranspose2d refuses a dilated filter that is not a constant
// (TRANSPOSE_CONV has no dilations; the decomposition dilates through conv2d).
bool lowers_convolution(const Graph& graph, const Operation& op) {
  if (!is_float(data_type_of(graph, op.inputs.at(0)))) return false;
  if (op.type != OpType::kConvTranspose2d) return true;
  const auto& o = attrs_of<OpType::kConvTranspose2d>(op.attrs).options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const bool dilated = win.dilations[0] != 1 || win.dilations[1] != 1;
  return !dilated || graph.operand(op.inputs.at(1)).kind == OperandKind::kConstant;
}

// conv2d (row 7): CONV_2D, or DEPTHWISE_CONV_2D when groups = input channels > 1, SAME/VALID or
// PAD + VALID; out = floor((in + pb + pe − ((k − 1)·d + 1)) / s) + 1 is the output descriptor's.
void lower_conv2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kConv2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  TensorIndex x = spatial::nhwc_input(e, op, o.inputLayout);
  const std::vector<int32_t> xs = e.shape_of(x);
  const std::vector<int32_t> ys = spatial::nhwc_output_shape(e, op, o.inputLayout);
  const FilterAxes a = conv2d_filter_axes(o.filterLayout);
  const std::vector<int32_t> fs = shape_of(e.graph(), op.inputs[1]);
  const int32_t kh = fs[a.height], kw = fs[a.width], channels = xs[3], cout = ys[3];
  const WindowAxis h{xs[1], (int64_t{kh} - 1) * win.dilations[0] + 1, win.strides[0],
                     win.padding[0], ys[1]};
  const WindowAxis w{xs[2], (int64_t{kw} - 1) * win.dilations[1] + 1, win.strides[1],
                     win.padding[2], ys[2]};
  std::optional<tfl::Padding> padding = spatial::implicit_padding(h, w);
  if (!padding) {
    x = spatial::pad_spatial(e, x, h, w);
    padding = tfl::Padding::VALID;
  }
  const TensorIndex bias = bias_or_zeros(e, op, cout);
  const int32_t sh = static_cast<int32_t>(win.strides[0]),
                sw = static_cast<int32_t>(win.strides[1]);
  const int32_t dh = static_cast<int32_t>(win.dilations[0]);
  const int32_t dw = static_cast<int32_t>(win.dilations[1]);
  const auto axis = [](size_t i) { return static_cast<int32_t>(i); };
  TensorIndex y;
  if (o.groups > 1 && static_cast<int32_t>(o.groups) == channels) {
    // [1, kH, kW, Cout] (the filter's input-channel dimension is 1).
    const TensorIndex filter = spatial::permuted(
        e, e.value(op.inputs[1]),
        {axis(a.in_channels), axis(a.height), axis(a.width), axis(a.out_channels)});
    y = e.op1(Op::DEPTHWISE_CONV_2D, {x, filter, bias}, tfl::TensorType::FLOAT32, ys,
              Opt::DepthwiseConv2DOptions,
              tfl::CreateDepthwiseConv2DOptions(e.fbb(), *padding, sw, sh, cout / channels,
                                                tfl::ActivationFunctionType::NONE, dw, dh)
                  .Union());
  } else {
    const TensorIndex filter = spatial::permuted(
        e, e.value(op.inputs[1]),
        {axis(a.out_channels), axis(a.height), axis(a.width), axis(a.in_channels)});
    y = e.op1(Op::CONV_2D, {x, filter, bias}, tfl::TensorType::FLOAT32, ys, Opt::Conv2DOptions,
              tfl::CreateConv2DOptions(e.fbb(), *padding, sw, sh, tfl::ActivationFunctionType::NONE,
                                       dw, dh)
                  .Union());
  }
  spatial::bind_nhwc_output(e, op, o.inputLayout, y);
}

// convTranspose2d (row 8): TRANSPOSE_CONV per group (see the file comment), SAME or VALID when
// its crop starts at WebNN's begin padding and spans WebNN's output, else VALID over
// max(full, pb + out) positions and a SLICE from pb.
void lower_convTranspose2d(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kConvTranspose2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const TensorIndex x = spatial::nhwc_input(e, op, o.inputLayout);
  const std::vector<int32_t> xs = e.shape_of(x);
  const std::vector<int32_t> ys = spatial::nhwc_output_shape(e, op, o.inputLayout);
  const FilterAxes a = conv_transpose2d_filter_axes(o.filterLayout);
  const auto axis = [](size_t i) { return static_cast<int32_t>(i); };
  // OHWI [Cout/g, kH, kW, Cin], dilated.
  TensorIndex filter =
      spatial::permuted(e, e.value(op.inputs[1]),
                        {axis(a.out_channels), axis(a.height), axis(a.width), axis(a.in_channels)});
  if (win.dilations[0] != 1 || win.dilations[1] != 1) {
    if (!e.is_constant(filter))
      throw NotSupportedError("tflite: TRANSPOSE_CONV dilates constant filters only");
    filter = dilate_filter(e, filter, win.dilations[0], win.dilations[1]);
  }
  if (const std::optional<TensorIndex> y =
          depth_to_space_deconvolution(e, op, x, filter, win, o.groups, ys)) {
    spatial::bind_nhwc_output(e, op, o.inputLayout, *y);
    return;
  }
  const std::vector<int32_t> fs = e.shape_of(filter);
  const int64_t in[2] = {xs[1], xs[2]}, k[2] = {fs[1], fs[2]}, out[2] = {ys[1], ys[2]};
  const int64_t s[2] = {win.strides[0], win.strides[1]};
  const int64_t pb[2] = {win.padding[0], win.padding[2]};
  bool same = true, valid = true;
  int64_t computed[2];  // the TRANSPOSE_CONV output extent of the VALID-and-SLICE form
  for (int i = 0; i < 2; ++i) {
    const int64_t full = (in[i] - 1) * s[i] + k[i];
    same = same && (out[i] + s[i] - 1) / s[i] == in[i] &&
           std::max<int64_t>(full - out[i], 0) / 2 == pb[i];
    valid = valid && pb[i] == 0 && out[i] >= full && out[i] < full + s[i];
    computed[i] = std::max(full, pb[i] + out[i]);
  }
  const bool slice = !same && !valid;
  std::vector<int32_t> conv_shape = ys;
  if (slice) {
    conv_shape[1] = static_cast<int32_t>(computed[0]);
    conv_shape[2] = static_cast<int32_t>(computed[1]);
  }
  const tfl::Padding padding = same && !valid ? tfl::Padding::SAME : tfl::Padding::VALID;
  const int32_t groups = static_cast<int32_t>(o.groups);
  const std::vector<TensorIndex> xg = split_along(e, x, 3, groups);
  const std::vector<TensorIndex> fg = split_along(e, filter, 3, groups);
  const std::vector<TensorIndex> bg =
      has_input(op, 2) ? split_along(e, e.value(op.inputs[2]), 0, groups)
                       : std::vector<TensorIndex>(static_cast<size_t>(groups), kOmitted);
  std::vector<TensorIndex> parts;
  std::vector<int32_t> part_shape = conv_shape;
  part_shape[3] /= groups;
  for (size_t g = 0; g < xg.size(); ++g) {
    std::vector<TensorIndex> inputs{e.const_i32(part_shape), fg[g], xg[g]};
    if (bg[g] != kOmitted) inputs.push_back(bg[g]);
    parts.push_back(
        e.op1(Op::TRANSPOSE_CONV, std::move(inputs), tfl::TensorType::FLOAT32, part_shape,
              Opt::TransposeConvOptions,
              tfl::CreateTransposeConvOptions(e.fbb(), padding, static_cast<int32_t>(s[1]),
                                              static_cast<int32_t>(s[0]))
                  .Union()));
  }
  TensorIndex y = parts[0];
  if (parts.size() > 1)
    y = e.op1(
        Op::CONCATENATION, parts, tfl::TensorType::FLOAT32, conv_shape, Opt::ConcatenationOptions,
        tfl::CreateConcatenationOptions(e.fbb(), 3, tfl::ActivationFunctionType::NONE).Union());
  if (slice)
    y = e.op1(Op::SLICE,
              {y, e.const_i32({0, static_cast<int32_t>(pb[0]), static_cast<int32_t>(pb[1]), 0}),
               e.const_i32(ys)},
              tfl::TensorType::FLOAT32, ys, Opt::SliceOptions,
              tfl::CreateSliceOptions(e.fbb()).Union());
  spatial::bind_nhwc_output(e, op, o.inputLayout, y);
}

}  // namespace cppnn::tflite_export
