// ONNX Pad, DepthToSpace and SpaceToDepth (ops_nn.def). Pad: pads [x1_begin, ..., x1_end, ...]
// (an attribute before opset 11, an input from then on, with optional axes from opset 18);
// negative pads crop first (a slice), then constant / edge / reflect map to WebNN pad modes and
// wrap to concatenations of slices. The block rearrangements are reshape + transpose + reshape.
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// The slice of `x` of `count` elements from `start` along `axis`.
MLOperand axis_slice(NodeContext& c, const MLOperand& x, size_t axis, uint32_t start,
                     uint32_t count) {
  std::vector<uint32_t> starts(x.shape().size(), 0), sizes = x.shape();
  starts[axis] = start;
  sizes[axis] = count;
  return c.builder().slice(x, starts, sizes, c.opts<MLSliceOptions>());
}

// Wrap padding: each padded axis becomes concat(tail of x, x, head of x).
MLOperand wrap_pad(NodeContext& c, MLOperand x, const std::vector<int64_t>& begin,
                   const std::vector<int64_t>& end) {
  for (size_t a = 0; a < begin.size(); ++a) {
    if (begin[a] == 0 && end[a] == 0) continue;
    const uint32_t dim = x.shape()[a];
    if (begin[a] > dim || end[a] > dim) c.unsupported("wrap padding larger than the dimension");
    std::vector<MLOperand> parts;
    if (begin[a] > 0) {
      const auto n = static_cast<uint32_t>(begin[a]);
      parts.push_back(axis_slice(c, x, a, dim - n, n));
    }
    parts.push_back(x);
    if (end[a] > 0) parts.push_back(axis_slice(c, x, a, 0, static_cast<uint32_t>(end[a])));
    x = c.builder().concat(parts, static_cast<uint32_t>(a), c.opts<MLOperatorOptions>());
  }
  return x;
}

// DepthToSpace / SpaceToDepth: reshape to `split`, transpose by `perm`, reshape to `out`.
void rearrange(NodeContext& c, const std::vector<uint32_t>& split,
               const std::vector<uint32_t>& perm, const std::vector<uint32_t>& out) {
  MLOperand x = reshaped_input(c, 0, split);
  MLTransposeOptions o = c.opts<MLTransposeOptions>();
  o.permutation = perm;
  c.set_output(0, reshape_to(c, c.builder().transpose(x, o), out));
}

// The block size attribute and the 4-D input shape.
std::pair<uint32_t, std::vector<uint32_t>> block_input(const NodeContext& c) {
  const std::vector<uint32_t>& xs = c.input_shape(0);
  if (xs.size() != 4) c.invalid("input must be 4-D");
  const int64_t bs = c.attr_int("blocksize", 0);
  if (bs <= 0 || bs > 65535) c.invalid("blocksize must be positive");
  return {static_cast<uint32_t>(bs), xs};
}

}  // namespace

void import_Pad(NodeContext& c) {
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const size_t rank = xs.size();
  const std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  std::vector<uint32_t> axes;
  if (c.opset() < 11) {
    pads = c.has_attr("pads") ? c.attr_ints("pads") : c.attr_ints("paddings");
    value = c.attr_float("value", 0.0f);
  } else {
    pads = c.ints(1, "pads");
    if (c.has_input(2) && mode == "constant") {
      const HostTensor& v = c.constant(2, "constant_value");
      if (v.elements() > 0) value = v.to_double().at(0);
    }
    if (c.has_input(3)) axes = normalize_axes(c, c.ints(3, "axes"), rank);
  }
  if (axes.empty())
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  if (pads.size() != 2 * axes.size())
    c.invalid("pads needs " + std::to_string(2 * axes.size()) + " entries");
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    begin[axes[k]] = pads[k];
    end[axes[k]] = pads[k + axes.size()];
  }
  MLOperand x = c.input(0);
  // Negative pads crop.
  std::vector<uint32_t> starts(rank, 0), sizes = xs;
  bool crop = false;
  for (size_t a = 0; a < rank; ++a) {
    const int64_t cut_b = begin[a] < 0 ? -begin[a] : 0, cut_e = end[a] < 0 ? -end[a] : 0;
    if (cut_b + cut_e == 0) continue;
    if (cut_b + cut_e >= xs[a]) c.unsupported("negative pads that leave an empty tensor");
    crop = true;
    starts[a] = static_cast<uint32_t>(cut_b);
    sizes[a] = static_cast<uint32_t>(xs[a] - cut_b - cut_e);
    begin[a] = std::max<int64_t>(begin[a], 0);
    end[a] = std::max<int64_t>(end[a], 0);
  }
  if (crop) x = c.builder().slice(x, starts, sizes, c.opts<MLSliceOptions>());
  bool any = false;
  for (size_t a = 0; a < rank; ++a) any = any || begin[a] > 0 || end[a] > 0;
  if (!any) return c.set_output(0, x);
  if (mode == "wrap") return c.set_output(0, wrap_pad(c, x, begin, end));
  MLPadOptions o = c.opts<MLPadOptions>();
  if (mode == "constant") {
    o.mode = MLPaddingMode::kConstant;
    o.value = MLNumber(value);
  } else if (mode == "edge") {
    o.mode = MLPaddingMode::kEdge;
  } else if (mode == "reflect") {
    o.mode = MLPaddingMode::kReflection;
    for (size_t a = 0; a < rank; ++a)
      if (begin[a] >= sizes[a] || end[a] >= sizes[a])
        c.unsupported("reflect padding not smaller than the dimension");
  } else {
    c.invalid("unknown mode '" + mode + "'");
  }
  std::vector<uint32_t> b, e;
  for (size_t a = 0; a < rank; ++a) {
    b.push_back(to_dims(c, {begin[a]})[0]);
    e.push_back(to_dims(c, {end[a]})[0]);
  }
  c.set_output(0, c.builder().pad(x, b, e, o));
}

void import_DepthToSpace(NodeContext& c) {
  auto [bs, xs] = block_input(c);
  const uint32_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  if (ch % (bs * bs) != 0) c.invalid("channels not divisible by blocksize^2");
  const uint32_t oc = ch / (bs * bs);
  const std::vector<uint32_t> out = {n, oc, h * bs, w * bs};
  if (c.attr_string("mode", "DCR") == "CRD")
    return rearrange(c, {n, oc, bs, bs, h, w}, {0, 1, 4, 2, 5, 3}, out);
  rearrange(c, {n, bs, bs, oc, h, w}, {0, 3, 4, 1, 5, 2}, out);
}

void import_SpaceToDepth(NodeContext& c) {
  auto [bs, xs] = block_input(c);
  const uint32_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  if (h % bs != 0 || w % bs != 0) c.invalid("spatial dims not divisible by blocksize");
  rearrange(c, {n, ch, h / bs, bs, w / bs, bs}, {0, 3, 5, 1, 2, 4},
            {n, ch * bs * bs, h / bs, w / bs});
}

}  // namespace cppnn::onnx_import
