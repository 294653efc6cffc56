// CoreML lowering of the convolutions (see lower.h; webnn-spec.md §2 rows 7-8), float32 and
// float16: conv2d is MIL conv and convTranspose2d MIL conv_transpose, both in NCHW with their
// filters in MIL's layout ([C_out, C_in/groups, kH, kW] for conv, [C_in, C_out/groups, kH, kW]
// for conv_transpose: WebNN's oihw and iohw), so other input and filter layouts are MIL
// transposes around the op (a transpose of a constant filter is folded by Core ML's compiler).
// WebNN's padding [beginH, endH, beginW, endW] is MIL's custom `pad` in the same order.
// conv_transpose's own padding crops its full output; an output larger than the cropped one
// (outputPadding or outputSizes past the end padding) is the uncropped output zero-extended at
// the end and sliced, the extended positions (no input products) set to the bias; a
// convTranspose2d bias that is not a constant is a MIL add after the op (coremltools' type
// inference of conv_transpose reads its bias's value).
// MIL conv dilates constant filters only: a dilated conv2d with a filter computed from graph
// inputs is an undilated 1x1 conv over its window taps stacked as channels.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_layout_util.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/convolution_params.h"

namespace cppnn::coreml_export {
namespace {

// The filter operand in MIL's layout (a transpose by `perm` when it is set).
std::string filter_value(Emitter& e, const Operation& op, const std::vector<int32_t>& perm) {
  const std::string& w = in(e, op, 1);
  return perm.empty() ? w : transposed(e, w, perm);
}

// Checks that the op computes in a float type (conv2d/convTranspose2d take float32/float16).
void require_float(const Emitter& e, const Operation& op) {
  const mil::DataType t = e.mil_type(op.inputs.at(0)).type;
  if (t != mil::FLOAT32 && t != mil::FLOAT16)
    throw NotSupportedError("input must be float32 or float16");
}

// Whether operand `id` is computed from constants only (MIL's "descendant of const", which conv
// requires of a dilated filter): no graph input reaches it.
bool from_constants(const Graph& graph, OperandId id) {
  std::vector<OperandId> pending{id};
  std::set<uint32_t> seen;
  while (!pending.empty()) {
    const OperandId v = pending.back();
    pending.pop_back();
    if (!seen.insert(v.value).second) continue;
    const OperandInfo& info = graph.operand(v);
    if (info.kind == OperandKind::kInput) return false;
    if (info.kind == OperandKind::kConstant) continue;
    for (OperandId i : graph.operations.at(info.producer).inputs)
      if (i != kNoOperand) pending.push_back(i);
  }
  return true;
}

// The window parameters every MIL conv op takes: strides, custom `pad`, dilations and groups.
void window_params(Emitter& e, std::vector<Param>& params, const WindowOptions& win,
                   std::span<const int32_t> pad, uint32_t groups) {
  params.push_back({"strides", e.const_i32_of(to_i64(win.strides))});
  params.push_back({"pad_type", e.const_string("custom")});
  params.push_back({"pad", e.const_i32(pad)});
  params.push_back({"dilations", e.const_i32_of(to_i64(win.dilations))});
  params.push_back({"groups", e.const_int(static_cast<int32_t>(groups))});
}

// A dilated conv2d whose filter is computed from graph inputs (MIL conv dilates constant filters
// only), on the NCHW input `x` with the oihw filter `w`, as one undilated 1x1 conv over the
// window taps stacked as channels: tap t = (ky, kx) is the strided slice of the zero-padded input
// (conv's own zero padding, made explicit) starting at (ky·dh, kx·dw); the taps are stacked
// group-major ([N, G, T, Cin/G · oH · oW], rank 4, reshaped to [N, G·T·Cin/G, oH, oW]) and the
// filter is transposed to [Cout, kH, kW, Cin/G] and reshaped to [Cout, T·Cin/G, 1, 1], so that
// each output sums the very products of the dilated conv in one accumulation.
void conv2d_by_taps(Emitter& e, const Operation& op, const std::string& x, const std::string& w,
                    const WindowOptions& win, uint32_t groups, NchwOutput& out) {
  const MilType xt = e.type_of(x), wt = e.type_of(w);
  const MilType& t = out.type();
  const int64_t n = xt.shape[0], c = xt.shape[1], cout = wt.shape[0], cin_g = wt.shape[1];
  const int64_t kh = wt.shape[2], kw = wt.shape[3], oh = t.shape[2], ow = t.shape[3];
  const int64_t g = groups, taps = kh * kw;
  std::string padded = x;
  if (std::any_of(win.padding.begin(), win.padding.end(), [](uint32_t p) { return p != 0; })) {
    const std::vector<int64_t> pad{
        0, 0, 0, 0, win.padding[0], win.padding[1], win.padding[2], win.padding[3]};
    padded = e.op(
        "pad",
        {{"x", x},
         {"pad", e.const_i32_of(pad)},
         {"mode", e.const_string("constant")},
         {"constant_val", e.const_scalar(xt.type, 0)}},
        MilType{xt.type, {n, c, xt.shape[2] + pad[4] + pad[5], xt.shape[3] + pad[6] + pad[7]}});
  }
  const int64_t sh = win.strides[0], sw = win.strides[1];
  const MilType tap_type{xt.type, {n, g, 1, cin_g * oh * ow}};
  std::vector<std::string> stacked;
  for (int64_t ky = 0; ky < kh; ++ky) {
    for (int64_t kx = 0; kx < kw; ++kx) {
      const int64_t y0 = ky * win.dilations[0], x0 = kx * win.dilations[1];
      const std::string tap =
          e.op("slice_by_index",
               {{"x", padded},
                {"begin", e.const_i32_of(std::vector<int64_t>{0, 0, y0, x0})},
                {"end", e.const_i32_of(std::vector<int64_t>{n, c, y0 + (oh - 1) * sh + 1,
                                                            x0 + (ow - 1) * sw + 1})},
                {"stride", e.const_i32_of(std::vector<int64_t>{1, 1, sh, sw})}},
               MilType{xt.type, {n, c, oh, ow}});
      stacked.push_back(
          e.op("reshape", {{"x", tap}, {"shape", e.const_i32_of(tap_type.shape)}}, tap_type));
    }
  }
  std::string columns = stacked[0];
  if (taps > 1)
    columns = e.op("concat", {{"values", stacked}, {"axis", e.const_int(2)}},
                   MilType{xt.type, {n, g, taps, cin_g * oh * ow}});
  const std::vector<int64_t> columns_shape{n, g * taps * cin_g, oh, ow};
  columns = e.op("reshape", {{"x", columns}, {"shape", e.const_i32_of(columns_shape)}},
                 MilType{xt.type, columns_shape});
  const int32_t to_ohwi[] = {0, 2, 3, 1};
  const std::vector<int64_t> weight_shape{cout, taps * cin_g, 1, 1};
  const std::string weight =
      e.op("reshape", {{"x", transposed(e, w, to_ohwi)}, {"shape", e.const_i32_of(weight_shape)}},
           MilType{wt.type, weight_shape});
  std::vector<Param> params{{"x", columns}, {"weight", weight}};
  if (has(op, 2)) params.push_back({"bias", in(e, op, 2)});
  params.push_back({"pad_type", e.const_string("valid")});
  params.push_back({"groups", e.const_int(static_cast<int32_t>(groups))});
  out.write("conv", std::move(params));
}

}  // namespace

bool lowers_convolution(const Graph&, const Operation&) {
  return true;
}

// conv2d (row 7): MIL conv over the NCHW input with the oihw filter, custom pad, strides,
// dilations, groups and bias; out = floor((in − ((k−1)·d+1) + pb + pe)/s) + 1 like WebNN. A
// dilated conv2d whose filter is not computed from constants is a 1x1 conv over its stacked
// window taps (conv2d_by_taps).
void lower_conv2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kConv2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const bool nhwc = o.inputLayout == MLInputOperandLayout::kNhwc;
  const std::string x = to_nchw(e, in(e, op, 0), nhwc);
  const std::string w = filter_value(e, op, conv2d_filter_perm<int32_t>(o.filterLayout));
  NchwOutput out(e, op.outputs[0], nhwc);
  const bool dilated = win.dilations[0] != 1 || win.dilations[1] != 1;
  if (dilated && !from_constants(e.graph(), op.inputs[1])) {
    conv2d_by_taps(e, op, x, w, win, o.groups, out);
    return;
  }
  std::vector<Param> params{{"x", x}, {"weight", w}};
  if (has(op, 2)) params.push_back({"bias", in(e, op, 2)});
  const std::vector<int32_t> pad(win.padding.begin(), win.padding.end());
  window_params(e, params, win, pad, o.groups);
  out.write("conv", std::move(params));
}

// convTranspose2d (row 8): MIL conv_transpose over the NCHW input with the iohw filter. Its full
// output (in−1)·s + (k−1)·d + 1 is cropped by `pad`; WebNN's output (outputPadding or
// outputSizes, read from the output descriptor) ends `end` = full − pb − out positions before
// the full output's end. With end ≥ 0 that is conv_transpose's custom pad [pb, end] exactly;
// otherwise the uncropped output is zero-extended by −end and sliced from pb, and the extended
// positions (which get no input products) take the bias alone, as in the reference. A bias that
// is not a constant is added after conv_transpose (coremltools' type inference reads the bias's
// value).
void lower_convTranspose2d(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kConvTranspose2d>& attrs) {
  require_float(e, op);
  const auto& o = attrs.options;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  const InputDims x_dims = input_dims(e.desc(op.inputs[0]).shape, o.inputLayout);
  const InputDims y_dims = input_dims(e.desc(op.outputs[0]).shape, o.inputLayout);
  const FilterDims f =
      filter_dims(e.desc(op.inputs[1]).shape, conv_transpose2d_filter_axes(o.filterLayout));
  if (x_dims.channels % o.groups != 0)
    throw NotSupportedError("input channels " + std::to_string(x_dims.channels) +
                            " not divisible by groups " + std::to_string(o.groups) +
                            ": the channel groups are undefined");
  const int64_t in_size[2] = {x_dims.height, x_dims.width};
  const int64_t out_size[2] = {y_dims.height, y_dims.width};
  const int64_t kernel[2] = {f.height, f.width};
  int64_t full[2], begin[2], end[2];
  bool cropped = true;
  for (int i = 0; i < 2; ++i) {
    full[i] = (in_size[i] - 1) * win.strides[i] + (kernel[i] - 1) * win.dilations[i] + 1;
    begin[i] = win.padding[2 * i];
    end[i] = full[i] - begin[i] - out_size[i];
    cropped = cropped && end[i] >= 0;
  }
  const bool nhwc = o.inputLayout == MLInputOperandLayout::kNhwc;
  NchwOutput out(e, op.outputs[0], nhwc);
  const MilType& t = out.type();
  std::vector<Param> params{
      {"x", to_nchw(e, in(e, op, 0), nhwc)},
      {"weight", filter_value(e, op, conv_transpose2d_filter_perm<int32_t>(o.filterLayout))}};
  // conv_transpose adds a constant bias itself (coremltools' type inference reads the bias's
  // value); any other bias is added after it.
  const bool has_bias = has(op, 2);
  const bool inline_bias =
      has_bias && e.graph().operand(op.inputs[2]).kind == OperandKind::kConstant;
  if (inline_bias) params.push_back({"bias", in(e, op, 2)});
  auto bias_column = [&] {
    return e.op(
        "reshape",
        {{"x", in(e, op, 2)}, {"shape", e.const_i32_of(std::vector<int64_t>{t.shape[1], 1, 1})}},
        MilType{t.type, {t.shape[1], 1, 1}});
  };
  if (cropped) {
    const int32_t pad[] = {static_cast<int32_t>(begin[0]), static_cast<int32_t>(end[0]),
                           static_cast<int32_t>(begin[1]), static_cast<int32_t>(end[1])};
    window_params(e, params, win, pad, o.groups);
    if (!has_bias || inline_bias) {
      out.write("conv_transpose", std::move(params));
      return;
    }
    const std::string y = e.op("conv_transpose", std::move(params), t);
    out.write("add", {{"x", y}, {"y", bias_column()}});
    return;
  }
  // The uncropped output, zero-extended to reach pb + out and sliced to [pb, pb + out).
  const int32_t no_pad[] = {0, 0, 0, 0};
  window_params(e, params, win, no_pad, o.groups);
  const int64_t extend[2] = {std::max<int64_t>(0, -end[0]), std::max<int64_t>(0, -end[1])};
  const std::string full_y = e.op("conv_transpose", std::move(params),
                                  MilType{t.type, {t.shape[0], t.shape[1], full[0], full[1]}});
  const std::string padded =
      e.op("pad",
           {{"x", full_y},
            {"pad", e.const_i32_of(std::vector<int64_t>{0, 0, 0, 0, 0, extend[0], 0, extend[1]})},
            {"mode", e.const_string("constant")},
            {"constant_val", e.const_scalar(t.type, 0)}},
           MilType{t.type, {t.shape[0], t.shape[1], full[0] + extend[0], full[1] + extend[1]}});
  std::vector<Param> slice{
      {"x", padded},
      {"begin", e.const_i32_of(std::vector<int64_t>{0, 0, begin[0], begin[1]})},
      {"end", e.const_i32_of(std::vector<int64_t>{t.shape[0], t.shape[1], begin[0] + out_size[0],
                                                  begin[1] + out_size[1]})}};
  if (!has_bias) {
    out.write("slice_by_index", std::move(slice));
    return;
  }
  const std::string sliced = e.op("slice_by_index", std::move(slice), t);
  if (!inline_bias) {
    out.write("add", {{"x", sliced}, {"y", bias_column()}});
    return;
  }
  // The extended positions (zeros, without the inline bias) take the bias itself.
  std::vector<std::byte> extended;
  for (int64_t oy = 0; oy < out_size[0]; ++oy)
    for (int64_t ox = 0; ox < out_size[1]; ++ox)
      extended.push_back(
          static_cast<std::byte>(begin[0] + oy >= full[0] || begin[1] + ox >= full[1]));
  const int64_t mask_shape[] = {out_size[0], out_size[1]};
  out.write("select", {{"cond", e.const_tensor(mil::BOOL, mask_shape, extended)},
                       {"a", bias_column()},
                       {"b", sliced}});
}

}  // namespace cppnn::coreml_export
