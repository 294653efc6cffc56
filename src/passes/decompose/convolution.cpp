// Decompositions of the convolution ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/ops/convolution_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

// Transposes x by `perm`, or returns x when `perm` is the identity.
MLOperand permute(MLGraphBuilder& b, const MLOperand& x, std::vector<uint32_t> perm) {
  bool identity = true;
  for (uint32_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
  if (identity) return x;
  return b.transpose(x, {.permutation = std::move(perm)});
}

// x with `axis` reversed: a gather of the indices n-1, ..., 0 (webnn-spec.md reverse).
MLOperand reverse_axis(MLGraphBuilder& b, const MLOperand& x, uint32_t axis) {
  const uint32_t n = x.shape()[axis];
  if (n <= 1) return x;
  std::vector<MLNumber> indices;
  for (uint32_t i = n; i-- > 0;) indices.emplace_back(i);
  return b.gather(x, constant_of(b, MLOperandDataType::kInt32, {n}, indices), {.axis = axis});
}

// x with stride - 1 zeros inserted between neighbours along `axis` ([.., n, ..] ->
// [.., (n-1)·stride+1, ..]): a gather of x with one zero slice appended, so that every inserted
// position reads the zero slice (convTranspose2d emulation: the strided input of conv2d).
MLOperand insert_zeros(MLGraphBuilder& b, const MLOperand& x, uint32_t axis, uint32_t stride) {
  std::vector<uint32_t> shape = x.shape();
  const uint32_t n = shape[axis];
  if (stride == 1 || n <= 1) return x;
  shape[axis] = 1;
  const MLOperand padded = b.concat({x, filled(b, {x.dataType(), shape}, 0)}, axis);
  const uint32_t length = (n - 1) * stride + 1;
  std::vector<MLNumber> indices;
  for (uint32_t i = 0; i < length; ++i) indices.emplace_back(i % stride == 0 ? i / stride : n);
  return b.gather(padded, constant_of(b, MLOperandDataType::kInt32, {length}, indices),
                  {.axis = axis});
}

// The convTranspose2d filter (any layout, [Cin, Cout/groups, kh, kw] by name) as the oihw filter
// of the equivalent conv2d: [Cout, Cin/groups, kh, kw] with the group blocks regrouped and both
// spatial axes flipped.
MLOperand conv2d_filter(MLGraphBuilder& b, const MLOperand& filter,
                        MLConvTranspose2dFilterOperandLayout layout, uint32_t groups) {
  const FilterAxes a = conv_transpose2d_filter_axes(layout);
  const auto axis = [](size_t i) { return static_cast<uint32_t>(i); };
  MLOperand w;
  if (groups == 1) {
    w = permute(b, filter,
                {axis(a.out_channels), axis(a.in_channels), axis(a.height), axis(a.width)});
  } else {
    // iohw, then [g, Cin/g, Cout/g, kh, kw] -> [g, Cout/g, Cin/g, kh, kw] -> [Cout, Cin/g, kh, kw].
    w = permute(b, filter,
                {axis(a.in_channels), axis(a.out_channels), axis(a.height), axis(a.width)});
    const std::vector<uint32_t> s = w.shape();
    const uint32_t cin_g = s[0] / groups;
    w = b.reshape(w, {groups, cin_g, s[1], s[2], s[3]});
    w = b.transpose(w, {.permutation = {0, 2, 1, 3, 4}});
    w = b.reshape(w, {groups * s[1], cin_g, s[2], s[3]});
  }
  return reverse_axis(b, reverse_axis(b, w, 2), 3);
}

// One spatial dimension of the equivalent conv2d: its padding (negative values are cropped from
// its output instead) for a dilated input of `in` elements, an effective window of `window`
// elements and the wanted output size.
struct ConvPadding {
  int64_t begin = 0, end = 0;
};
ConvPadding equivalent_padding(uint32_t in, uint32_t window, uint32_t pad_begin, uint32_t out) {
  ConvPadding p;
  p.begin = int64_t{window} - 1 - pad_begin;
  // The stride-1 conv2d output is in + begin + end - window + 1 = out.
  p.end = int64_t{out} + window - 1 - in - p.begin;
  return p;
}

// convTranspose2d (webnn-spec.md §2 row 8, emulation note): conv2d with the flipped, regrouped
// filter over the input with stride - 1 zeros inserted between elements, padded by
// dilation·(k-1) - padding at the start and to the output size (outputPadding or outputSizes) at
// the end; negative paddings crop the conv2d output. The bias is conv2d's. Every product and the
// sum are those of the reference kernel, so float16 needs no widening.
std::vector<MLOperand> decompose_conv_transpose2d(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& o = c.attrs<OpType::kConvTranspose2d>().options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const InputAxes ax = input_axes(o.inputLayout);
  const FilterDims f =
      filter_dims(c.input_desc(1).shape, conv_transpose2d_filter_axes(o.filterLayout));
  const std::vector<uint32_t>& out_shape = c.output_desc(0).shape;

  MLOperand x = insert_zeros(b, c.input(0), static_cast<uint32_t>(ax.height), win.strides[0]);
  x = insert_zeros(b, x, static_cast<uint32_t>(ax.width), win.strides[1]);
  const std::vector<uint32_t> xs = x.shape();
  const uint32_t kh = (f.height - 1) * win.dilations[0] + 1;
  const uint32_t kw = (f.width - 1) * win.dilations[1] + 1;
  const ConvPadding ph =
      equivalent_padding(xs[ax.height], kh, win.padding[0], out_shape[ax.height]);
  const ConvPadding pw = equivalent_padding(xs[ax.width], kw, win.padding[2], out_shape[ax.width]);
  const auto positive = [](int64_t v) { return static_cast<uint32_t>(std::max<int64_t>(v, 0)); };

  MLConv2dOptions conv{
      .padding = {positive(ph.begin), positive(ph.end), positive(pw.begin), positive(pw.end)},
      .dilations = win.dilations,
      .groups = o.groups,
      .inputLayout = o.inputLayout};
  if (c.has_input(2)) conv.bias = c.input(2);
  MLOperand y = b.conv2d(x, conv2d_filter(b, c.input(1), o.filterLayout, o.groups), conv);
  if (y.shape() == out_shape) return {y};
  std::vector<uint32_t> starts(4, 0);
  starts[ax.height] = positive(-ph.begin);
  starts[ax.width] = positive(-pw.begin);
  return {b.slice(y, starts, out_shape)};
}

}  // namespace

// convTranspose2d through conv2d (conv2d itself is a primitive).
void register_convolution(DecompositionTable& t) {
  t.add(OpType::kConvTranspose2d, decompose_conv_transpose2d,
        {{OpType::kConv2d},
         {OpType::kConcat},
         {OpType::kGather},
         {OpType::kTranspose},
         {OpType::kReshape},
         {OpType::kSlice}});
}

}  // namespace cppnn::passes
