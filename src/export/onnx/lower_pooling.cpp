// ONNX lowering of the pooling ops (see lower.h; webnn-spec.md §2 rows 65-67). Padded positions
// never contribute and averagePool2d divides by the in-bounds count (count_include_pad=0). The
// output size (floor, ceil or outputSizes) is reached in floor mode by extending the end padding
// (padding never contributes, so this does not change any value). ONNX opset 17 pools lack what
// WebNN allows in three places, which take exact decompositions instead:
//  - AveragePool and LpPool have no dilations, and ORT requires every pad < kernel: the sum over
//    the window is then a Conv with a ones filter, divided by a constant in-bounds count (average)
//    or passed to Sqrt (l2, over x·x);
//  - MaxPool has no int32/uint32/int64/uint64 kernel: 32-bit integers pool exactly in double
//    (so does uint8 needing a Pad node, whose 0 padding ORT would fuse into MaxPool's pads);
//    64-bit integers take the max of the window's strided Slices of the padded input;
//  - MaxPool starts from the lowest finite float, so windows with no in-bounds element (which
//    WebNN defines as -Infinity) are patched with a Where over a constant mask.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_convolution_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/pooling_params.h"

namespace cppnn::onnx_export {
namespace {

enum class PoolKind { kAverage, kL2, kMax };

// The resolved window of a pool in nchw terms, per spatial dim (0: height, 1: width).
struct PoolGeometry {
  int64_t batches = 0, channels = 0;
  int64_t in[2] = {}, out[2] = {}, k[2] = {}, s[2] = {}, d[2] = {};
  int64_t pad_begin[2] = {}, pad_end[2] = {};  // pad_end extended so that floor gives `out`
  std::vector<int64_t> count[2];               // in-bounds window positions per output index

  // ONNX pads [beginH, beginW, endH, endW].
  std::vector<int64_t> pads() const { return {pad_begin[0], pad_begin[1], pad_end[0], pad_end[1]}; }
  std::vector<int64_t> kernel() const { return {k[0], k[1]}; }
  std::vector<int64_t> strides() const { return {s[0], s[1]}; }
  std::vector<int64_t> dilations() const { return {d[0], d[1]}; }
  bool dilated() const { return d[0] != 1 || d[1] != 1; }
  // ORT's pooling kernels require every pad to be smaller than the kernel.
  bool pads_below_kernel() const {
    for (int i = 0; i < 2; ++i)
      if (pad_begin[i] >= k[i] || pad_end[i] >= k[i]) return false;
    return true;
  }
  bool has_padding() const { return pad_begin[0] || pad_begin[1] || pad_end[0] || pad_end[1]; }
  // The window is the whole input: a Global* pool.
  bool global() const {
    return !has_padding() && k[0] == in[0] && k[1] == in[1] && out[0] == 1 && out[1] == 1;
  }
  // Some output's window holds no input element.
  bool empty_window() const {
    for (const auto& c : count)
      for (int64_t n : c)
        if (n == 0) return true;
    return false;
  }
};

PoolGeometry geometry(const Emitter& e, const Operation& op, const MLPool2dOptions& o) {
  const Dims& x = e.desc(op.inputs.at(0)).shape;
  const Dims& y = e.desc(op.outputs.at(0)).shape;
  const PoolWindow w = pool_window(x, o);
  const bool nchw = o.layout == MLInputOperandLayout::kNchw;
  PoolGeometry g;
  g.batches = x[0];
  g.channels = nchw ? x[1] : x[3];
  g.in[0] = w.height;
  g.in[1] = w.width;
  g.out[0] = nchw ? y[2] : y[1];
  g.out[1] = nchw ? y[3] : y[2];
  for (int i = 0; i < 2; ++i) {
    g.k[i] = w.window[i];
    g.s[i] = w.strides[i];
    g.d[i] = w.dilations[i];
    g.pad_begin[i] = w.padding[2 * i];
    g.pad_end[i] = w.padding[2 * i + 1];
    const int64_t needed = (g.out[i] - 1) * g.s[i] + (g.k[i] - 1) * g.d[i] + 1;
    const int64_t have = g.in[i] + g.pad_begin[i] + g.pad_end[i];
    if (needed > have) g.pad_end[i] += needed - have;
    g.count[i].resize(g.out[i]);
    for (int64_t o_i = 0; o_i < g.out[i]; ++o_i) {
      int64_t n = 0;
      for (int64_t t = 0; t < g.k[i]; ++t) {
        const int64_t pos = o_i * g.s[i] - g.pad_begin[i] + t * g.d[i];
        if (pos >= 0 && pos < g.in[i]) ++n;
      }
      g.count[i][o_i] = n;
    }
  }
  return g;
}

// A Cast node to the ONNX element type `to`.
std::string cast_to(Emitter& e, const std::string& x, int64_t to) {
  return e.node("Cast", {x}, {{"to", to}});
}

// The window sum of the nchw float32 `x` at every output position: a one-channel Conv with a
// ones filter over x reshaped to [N·C, 1, H, W] (any padding and dilation), reshaped back.
std::string window_sum(Emitter& e, const std::string& x, const PoolGeometry& g) {
  const std::string flat =
      e.node("Reshape", {x, e.const_i64({g.batches * g.channels, 1, g.in[0], g.in[1]})});
  const std::string ones = const_f32(e, {1, 1, g.k[0], g.k[1]},
                                     std::vector<float>(static_cast<size_t>(g.k[0] * g.k[1]), 1.f));
  const std::string sum = e.node("Conv", {flat, ones},
                                 {{"dilations", g.dilations()},
                                  {"kernel_shape", g.kernel()},
                                  {"pads", g.pads()},
                                  {"strides", g.strides()}});
  return e.node("Reshape", {sum, e.const_i64({g.batches, g.channels, g.out[0], g.out[1]})});
}

// The constant [oH, oW] table of in-bounds counts (float32), or of empty windows (bool).
std::vector<float> count_table(const PoolGeometry& g) {
  std::vector<float> t;
  for (int64_t c0 : g.count[0])
    for (int64_t c1 : g.count[1]) t.push_back(static_cast<float>(c0 * c1));
  return t;
}
std::string empty_mask(Emitter& e, const PoolGeometry& g) {
  std::vector<uint8_t> m;
  for (int64_t c0 : g.count[0])
    for (int64_t c1 : g.count[1]) m.push_back(c0 * c1 == 0 ? 1 : 0);
  return const_bool(e, {g.out[0], g.out[1]}, m);
}

// averagePool2d / l2Pool2d through window_sum, computing in float32 (float16 is cast).
void sum_pool(Emitter& e, PoolKind kind, MLOperandDataType type, const std::string& x,
              const std::string& y, const PoolGeometry& g) {
  std::string v = e.cast(x, type, MLOperandDataType::kFloat32);
  if (kind == PoolKind::kL2) v = e.node("Mul", {v, v});
  const std::string sum = window_sum(e, v, g);
  // The last node writes `y` (through a Cast back to float16 when needed).
  const bool f32 = type == MLOperandDataType::kFloat32;
  const std::string r = f32 ? y : e.fresh();
  if (kind == PoolKind::kL2) {
    e.node_to("Sqrt", {sum}, {r});
  } else {
    e.node_to("Div", {sum, const_f32(e, {g.out[0], g.out[1]}, count_table(g))}, {r});
  }
  if (!f32) e.node_to("Cast", {r}, {y}, {{"to", int64_t{onnx_type_of(type)}}});
}

// averagePool2d / l2Pool2d on the nchw float `x`, writing `y`.
void float_pool(Emitter& e, PoolKind kind, MLOperandDataType type, const std::string& x,
                const std::string& y, const PoolGeometry& g) {
  if (g.global()) {
    if (kind == PoolKind::kAverage)
      e.node_to("GlobalAveragePool", {x}, {y});
    else
      e.node_to("GlobalLpPool", {x}, {y}, {{"p", int64_t{2}}});
    return;
  }
  if (g.dilated() || !g.pads_below_kernel()) {
    sum_pool(e, kind, type, x, y, g);
    return;
  }
  std::vector<Attr> attrs = {{"kernel_shape", g.kernel()}};
  if (kind == PoolKind::kL2) attrs.push_back({"p", int64_t{2}});
  if (g.has_padding()) attrs.push_back({"pads", g.pads()});
  attrs.push_back({"strides", g.strides()});
  e.node_to(kind == PoolKind::kAverage ? "AveragePool" : "LpPool", {x}, {y}, std::move(attrs));
}

// maxPool2d of 64-bit integers: Max over the window's strided Slices of the input padded with
// the type's lowest value (which is max's identity, so empty windows give it too).
void sliced_max_pool(Emitter& e, MLOperandDataType type, const std::string& x, const std::string& y,
                     const PoolGeometry& g) {
  std::string padded = x;
  if (g.has_padding()) {
    const std::string lowest = e.const_scalar(type, -std::numeric_limits<double>::infinity());
    padded = e.node(
        "Pad",
        {x, e.const_i64({0, 0, g.pad_begin[0], g.pad_begin[1], 0, 0, g.pad_end[0], g.pad_end[1]}),
         lowest});
  }
  const std::string axes = e.const_i64({2, 3}), steps = e.const_i64({g.s[0], g.s[1]});
  std::vector<std::string> taps;
  for (int64_t ky = 0; ky < g.k[0]; ++ky) {
    for (int64_t kx = 0; kx < g.k[1]; ++kx) {
      const int64_t y0 = ky * g.d[0], x0 = kx * g.d[1];
      taps.push_back(e.node("Slice", {padded, e.const_i64({y0, x0}),
                                      e.const_i64({y0 + (g.out[0] - 1) * g.s[0] + 1,
                                                   x0 + (g.out[1] - 1) * g.s[1] + 1}),
                                      axes, steps}));
    }
  }
  e.node_to(taps.size() == 1 ? "Identity" : "Max", taps, {y});
}

// maxPool2d on the nchw `x`, writing `y`.
void max_pool(Emitter& e, MLOperandDataType type, const std::string& x, const std::string& y,
              const PoolGeometry& g) {
  using T = MLOperandDataType;
  if (type == T::kInt64 || type == T::kUint64) {
    sliced_max_pool(e, type, x, y, g);
    return;
  }
  // int4/uint4 values are held unpacked in int8/uint8 (see onnx_type_of).
  if (type == T::kInt4) type = T::kInt8;
  if (type == T::kUint4) type = T::kUint8;
  // 32-bit integers have no MaxPool kernel; uint8 padded by a Pad node would pad with 0, which
  // ORT fuses into MaxPool's pads (then rejected as not below the kernel): both pool in double.
  const bool via_double = type == T::kInt32 || type == T::kUint32 ||
                          (type == T::kUint8 && g.has_padding() && !g.pads_below_kernel());
  const bool is_float = type == T::kFloat32 || type == T::kFloat16;
  // The working value (32-bit integers in double), and a scalar of -Infinity (floats) or the
  // lowest value (integers) in its type.
  std::string v = via_double ? cast_to(e, x, onnx::TensorProto::DOUBLE) : x;
  auto neg_inf = [&] {
    if (!via_double) return e.const_scalar(type, -std::numeric_limits<double>::infinity());
    return cast_to(e, e.const_scalar(T::kFloat32, -std::numeric_limits<double>::infinity()),
                   onnx::TensorProto::DOUBLE);
  };
  std::vector<Attr> attrs = {{"dilations", g.dilations()}, {"kernel_shape", g.kernel()}};
  if (g.has_padding()) {
    if (g.pads_below_kernel()) {
      attrs.push_back({"pads", g.pads()});
    } else {
      v = e.node(
          "Pad",
          {v, e.const_i64({0, 0, g.pad_begin[0], g.pad_begin[1], 0, 0, g.pad_end[0], g.pad_end[1]}),
           neg_inf()});
    }
  }
  attrs.push_back({"strides", g.strides()});
  const bool patch = g.empty_window() && (is_float || via_double);
  if (is_float && !patch && !g.dilated() && g.global()) {
    e.node_to("GlobalMaxPool", {v}, {y});
    return;
  }
  if (!via_double && !patch) {
    e.node_to("MaxPool", {v}, {y}, std::move(attrs));
    return;
  }
  std::string r = e.node("MaxPool", {v}, std::move(attrs));
  if (patch) {
    // Empty windows are max's identity: -Infinity, or the integer type's lowest value.
    const std::string identity =
        via_double
            ? cast_to(e, e.const_scalar(T::kFloat32, type == T::kInt32 ? -2147483648.f : 0.f),
                      onnx::TensorProto::DOUBLE)
            : neg_inf();
    if (!via_double) {
      e.node_to("Where", {empty_mask(e, g), identity, r}, {y});
      return;
    }
    r = e.node("Where", {empty_mask(e, g), identity, r});
  }
  e.node_to("Cast", {r}, {y}, {{"to", int64_t{onnx_type_of(type)}}});
}

void lower_pool(Emitter& e, const Operation& op, const MLPool2dOptions& o, PoolKind kind) {
  const MLOperandDataType type = e.type(op.inputs.at(0));
  if (kind != PoolKind::kMax && type != MLOperandDataType::kFloat32 &&
      type != MLOperandDataType::kFloat16)
    throw NotSupportedError("input must be float32 or float16");
  const PoolGeometry g = geometry(e, op, o);
  emit_in_nchw(e, in(e, op, 0), out(e, op), o.layout == MLInputOperandLayout::kNhwc,
               [&](const std::string& x, const std::string& y) {
                 if (kind == PoolKind::kMax)
                   max_pool(e, type, x, y, g);
                 else
                   float_pool(e, kind, type, x, y, g);
               });
}

}  // namespace

// averagePool2d (§2 row 65): mean of the in-bounds window elements.
void lower_averagePool2d(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kAveragePool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kAverage);
}

// l2Pool2d (§2 row 66): sqrt of the sum of squares of the in-bounds window elements.
void lower_l2Pool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kL2Pool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kL2);
}

// maxPool2d (§2 row 67): maximum of the in-bounds window elements, any data type.
void lower_maxPool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kMaxPool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kMax);
}

}  // namespace cppnn::onnx_export
