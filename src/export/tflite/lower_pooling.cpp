// TFLite lowerings of the pooling ops (lower.h; webnn-spec.md §2 rows 65-67 and the "Pooling"
// numeric note: padded positions never contribute, averagePool2d divides by the in-bounds count),
// in NHWC (an nchw input is transposed around the op). The output size (floor, ceil or
// outputSizes) is the output descriptor's; the windows follow from it with the begin padding
// (lower_window_util.h).
// - When TFLite's SAME or VALID gives WebNN's windows: AVERAGE_POOL_2D (TFLite and XNNPACK
//   divide by the in-bounds count, like WebNN) and MAX_POOL_2D (padding ignored).
// - Otherwise maxPool2d is MAX_POOL_2D (VALID) over the input padded with −Infinity (the lowest
//   integer for int8/uint8; constant blocks CONCATENATED, which XNNPACK delegates where it does
//   not delegate PADV2), so that an empty window gives −Infinity like WebNN; and
//   averagePool2d is the window sum (a DEPTHWISE_CONV_2D with a ones filter over the
//   zero-padded input) DIVided by the constant in-bounds counts (0/0 = NaN for an empty window,
//   as in the reference kernel). Dilated average pools take the same sum with the conv's
//   dilations.
// - l2Pool2d is √(window sum of x·x): MUL, the ones DEPTHWISE_CONV_2D (zero padding adds
//   nothing), SQRT. TFLite's L2_POOL_2D is a root mean square (it divides by the count) and
//   would need a rescaling rounding of its own.
// float16 computes in float32. MAX_POOL_2D takes float32, int8 and uint8; other integer types
// and dilated max pools go through the shared decomposition (lowers_pooling). MAX_POOL_2D
// ignores NaN where WebNN's max propagates it (no WPT case has NaN).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_util.h"
#include "src/export/tflite/lower_window_util.h"
#include "src/ops/pooling_params.h"

namespace cppnn::tflite_export {
namespace {

using spatial::WindowAxis;
using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;

enum class PoolKind { kAverage, kL2, kMax };

// The windows of a pool per spatial axis (NHWC input `xs`, output `ys`) and its window size
// and dilations.
struct PoolGeometry {
  WindowAxis h, w;
  int32_t kh = 1, kw = 1, dh = 1, dw = 1;

  bool dilated() const { return dh != 1 || dw != 1; }
  // The number of in-bounds elements of the window of output position `o` along `a`.
  static int64_t count(const WindowAxis& a, int64_t o, int64_t k, int64_t d) {
    int64_t n = 0;
    for (int64_t t = 0; t < k; ++t) {
      const int64_t i = o * a.stride - a.pad_begin + t * d;
      if (i >= 0 && i < a.in) ++n;
    }
    return n;
  }
};

PoolGeometry geometry(const Emitter& e, const Operation& op, const MLPool2dOptions& o,
                      const std::vector<int32_t>& ys) {
  const PoolWindow pw = pool_window(e.graph().descriptor(op.inputs[0]).shape, o);
  PoolGeometry g;
  g.kh = static_cast<int32_t>(pw.window[0]);
  g.kw = static_cast<int32_t>(pw.window[1]);
  g.dh = static_cast<int32_t>(pw.dilations[0]);
  g.dw = static_cast<int32_t>(pw.dilations[1]);
  g.h = WindowAxis{pw.height, (int64_t{g.kh} - 1) * g.dh + 1, pw.strides[0], pw.padding[0], ys[1]};
  g.w = WindowAxis{pw.width, (int64_t{g.kw} - 1) * g.dw + 1, pw.strides[1], pw.padding[2], ys[2]};
  return g;
}

// AVERAGE_POOL_2D or MAX_POOL_2D of the NHWC `x` with `padding`.
TensorIndex pool_op(Emitter& e, Op code, TensorIndex x, const PoolGeometry& g, tfl::Padding padding,
                    const std::vector<int32_t>& ys) {
  return e.op1(code, {x}, e.type_of(x), ys, Opt::Pool2DOptions,
               tfl::CreatePool2DOptions(e.fbb(), padding, static_cast<int32_t>(g.w.stride),
                                        static_cast<int32_t>(g.h.stride), g.kw, g.kh,
                                        tfl::ActivationFunctionType::NONE)
                   .Union());
}

// The sum of every window's in-bounds elements of the float32 NHWC `x`: DEPTHWISE_CONV_2D with
// a ones filter and a zero bias, over x zero-padded (SAME or VALID when they give the windows).
TensorIndex window_sum(Emitter& e, TensorIndex x, const PoolGeometry& g,
                       const std::vector<int32_t>& ys) {
  std::optional<tfl::Padding> padding = spatial::implicit_padding(g.h, g.w);
  if (!padding) {
    x = spatial::pad_spatial(e, x, g.h, g.w);
    padding = tfl::Padding::VALID;
  }
  const int32_t c = ys[3];
  const TensorIndex ones = e.scalar(tfl::TensorType::FLOAT32, 1, {1, g.kh, g.kw, c});
  const TensorIndex zeros = e.scalar(tfl::TensorType::FLOAT32, 0, {c});
  return e.op1(
      Op::DEPTHWISE_CONV_2D, {x, ones, zeros}, tfl::TensorType::FLOAT32, ys,
      Opt::DepthwiseConv2DOptions,
      tfl::CreateDepthwiseConv2DOptions(e.fbb(), *padding, static_cast<int32_t>(g.w.stride),
                                        static_cast<int32_t>(g.h.stride), 1,
                                        tfl::ActivationFunctionType::NONE, g.dw, g.dh)
          .Union());
}

// The [oH, oW, 1] float32 constant of the in-bounds element counts of every window.
TensorIndex window_counts(Emitter& e, const PoolGeometry& g) {
  std::vector<float> counts;
  counts.reserve(static_cast<size_t>(g.h.out * g.w.out));
  for (int64_t y = 0; y < g.h.out; ++y)
    for (int64_t x = 0; x < g.w.out; ++x)
      counts.push_back(static_cast<float>(PoolGeometry::count(g.h, y, g.kh, g.dh) *
                                          PoolGeometry::count(g.w, x, g.kw, g.dw)));
  std::vector<std::byte> bytes(counts.size() * sizeof(float));
  std::memcpy(bytes.data(), counts.data(), bytes.size());
  return e.constant(tfl::TensorType::FLOAT32,
                    {static_cast<int32_t>(g.h.out), static_cast<int32_t>(g.w.out), 1},
                    std::move(bytes));
}

// The [oH, oW, 1] constant of `type` holding −Infinity (the lowest integer) where a window has no
// in-bounds element and the highest value elsewhere, or kOmitted when every window has one.
TensorIndex empty_window_bound(Emitter& e, const PoolGeometry& g, tfl::TensorType type);

// The lowest value of a MAX_POOL_2D type (the padding that never wins, −Infinity for floats).
double lowest_of(tfl::TensorType t) {
  switch (t) {
    case tfl::TensorType::INT8:
      return std::numeric_limits<int8_t>::lowest();
    case tfl::TensorType::UINT8:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

// The highest value of a MAX_POOL_2D type.
double highest_of(tfl::TensorType t) {
  switch (t) {
    case tfl::TensorType::INT8:
      return std::numeric_limits<int8_t>::max();
    case tfl::TensorType::UINT8:
      return std::numeric_limits<uint8_t>::max();
    default:
      return std::numeric_limits<double>::infinity();
  }
}

TensorIndex empty_window_bound(Emitter& e, const PoolGeometry& g, tfl::TensorType type) {
  std::vector<double> bound;
  bool empty = false;
  for (int64_t y = 0; y < g.h.out; ++y) {
    for (int64_t x = 0; x < g.w.out; ++x) {
      const bool none = PoolGeometry::count(g.h, y, g.kh, g.dh) == 0 ||
                        PoolGeometry::count(g.w, x, g.kw, g.dw) == 0;
      empty = empty || none;
      bound.push_back(none ? lowest_of(type) : highest_of(type));
    }
  }
  if (!empty) return kOmitted;
  std::vector<std::byte> bytes;
  for (double v : bound) {
    if (type == tfl::TensorType::FLOAT32) {
      const float f = static_cast<float>(v);
      const auto* p = reinterpret_cast<const std::byte*>(&f);
      bytes.insert(bytes.end(), p, p + sizeof(f));
    } else {
      bytes.push_back(static_cast<std::byte>(static_cast<int32_t>(v)));  // int8/uint8 bits
    }
  }
  return e.constant(type, {static_cast<int32_t>(g.h.out), static_cast<int32_t>(g.w.out), 1},
                    std::move(bytes));
}

// Any of the three pools (the cases lowers_pooling accepts).
void lower_pool(Emitter& e, const Operation& op, const MLPool2dOptions& o, PoolKind kind) {
  const MLOperandDataType type = data_type_of(e.graph(), op.inputs[0]);
  const bool max_type =
      is_float(type) || type == MLOperandDataType::kInt8 || type == MLOperandDataType::kUint8;
  if (!(kind == PoolKind::kMax ? max_type : is_float(type)))
    throw NotSupportedError("tflite: no pooling kernel for this data type");
  TensorIndex x = spatial::nhwc_input(e, op, o.layout);
  const std::vector<int32_t> ys = spatial::nhwc_output_shape(e, op, o.layout);
  const PoolGeometry g = geometry(e, op, o, ys);
  const std::optional<tfl::Padding> padding = spatial::implicit_padding(g.h, g.w);
  TensorIndex y = kOmitted;
  switch (kind) {
    case PoolKind::kMax:
      if (g.dilated()) throw NotSupportedError("tflite: MAX_POOL_2D has no dilations");
      if (padding) {
        y = pool_op(e, Op::MAX_POOL_2D, x, g, *padding, ys);
      } else {
        x = spatial::pad_spatial(e, x, g.h, g.w, lowest_of(e.type_of(x)));
        y = pool_op(e, Op::MAX_POOL_2D, x, g, tfl::Padding::VALID, ys);
        // TFLite's own MAX_POOL_2D (where XNNPACK does not take the op, e.g. a stride larger
        // than the window) clamps its result to the finite range, so empty windows are set to
        // −Infinity after it.
        const TensorIndex bound = empty_window_bound(e, g, e.type_of(y));
        if (bound != kOmitted)
          y = e.op1(Op::MINIMUM, {y, bound}, e.type_of(y), ys, Opt::MaximumMinimumOptions,
                    tfl::CreateMaximumMinimumOptions(e.fbb()).Union());
      }
      break;
    case PoolKind::kAverage:
      if (padding && !g.dilated()) {
        y = pool_op(e, Op::AVERAGE_POOL_2D, x, g, *padding, ys);
      } else {
        const TensorIndex sum = window_sum(e, x, g, ys);
        y = e.op1(Op::DIV, {sum, window_counts(e, g)}, tfl::TensorType::FLOAT32, ys,
                  Opt::DivOptions, tfl::CreateDivOptions(e.fbb()).Union());
      }
      break;
    case PoolKind::kL2: {
      const TensorIndex squares = e.op1(Op::MUL, {x, x}, tfl::TensorType::FLOAT32, e.shape_of(x),
                                        Opt::MulOptions, tfl::CreateMulOptions(e.fbb()).Union());
      y = e.op1(Op::SQRT, {window_sum(e, squares, g, ys)}, tfl::TensorType::FLOAT32, ys);
      break;
    }
  }
  spatial::bind_nhwc_output(e, op, o.layout, y);
}

}  // namespace

// MAX_POOL_2D takes float32 (float16 computed in float32), int8 and uint8 and has no dilations:
// other integer types and dilated max pools decompose (strided slices and max). Average and L2
// pools take every case (float only).
bool lowers_pooling(const Graph& graph, const Operation& op) {
  if (op.type != OpType::kMaxPool2d) return is_float(data_type_of(graph, op.inputs.at(0)));
  const MLPool2dOptions& o = attrs_of<OpType::kMaxPool2d>(op.attrs).options;
  const MLOperandDataType t = data_type_of(graph, op.inputs.at(0));
  if (!is_float(t) && t != MLOperandDataType::kInt8 && t != MLOperandDataType::kUint8) return false;
  const PoolWindow w = pool_window(graph.descriptor(op.inputs.at(0)).shape, o);
  return w.dilations[0] == 1 && w.dilations[1] == 1;
}

// averagePool2d (row 65): the mean of the in-bounds window elements.
void lower_averagePool2d(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kAveragePool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kAverage);
}

// l2Pool2d (row 66): √Σx² over the in-bounds window elements.
void lower_l2Pool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kL2Pool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kL2);
}

// maxPool2d (row 67): the largest in-bounds window element (−Infinity for an empty window).
void lower_maxPool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kMaxPool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kMax);
}

}  // namespace cppnn::tflite_export
