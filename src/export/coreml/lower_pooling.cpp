// CoreML lowering of the pooling ops (see lower.h; webnn-spec.md §2 rows 65-67, numeric notes
// "Pooling"): MIL avg_pool, l2_pool and max_pool over the NCHW input (nhwc is transposed around
// them), float32 and float16. Padded positions never contribute: avg_pool excludes them from the
// count (exclude_padding_from_average), l2_pool's zero padding adds nothing to Σx², and max_pool
// ignores them. MIL's ceil_mode follows PyTorch's rule (the last window must start inside the
// input) and needs symmetric padding, which WebNN's ceil rounding does not; so the pools always
// round down, and the output size (floor, ceil or outputSizes, read from the output descriptor)
// is reached by extending the end padding, which never contributes either. A window with no
// input element at all is then possible: WebNN gives 0/0 = NaN for averagePool2d and -Infinity
// for maxPool2d (l2Pool2d gives 0, like l2_pool), so those outputs are set by a select over a
// constant mask. float16 l2Pool2d pools in float32 (x² overflows float16 long before the norm
// does). MIL pools have no dilations and max_pool takes floats only: dilated pools and int32
// maxPool2d go through the shared decompositions (lowers_pooling).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_layout_util.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/pooling_params.h"

namespace cppnn::coreml_export {
namespace {

enum class PoolKind { kAverage, kL2, kMax };

// The resolved window of a pool per spatial dim (0: height, 1: width), its end padding extended
// so that rounding down gives the output size.
struct PoolGeometry {
  int64_t in[2] = {}, out[2] = {}, k[2] = {}, s[2] = {};
  int64_t pad_begin[2] = {}, pad_end[2] = {};
  std::vector<int64_t> count[2];  // in-bounds window positions per output index

  // Whether some output's window holds no input element.
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
  g.in[0] = w.height;
  g.in[1] = w.width;
  g.out[0] = nchw ? y[2] : y[1];
  g.out[1] = nchw ? y[3] : y[2];
  for (int i = 0; i < 2; ++i) {
    g.k[i] = w.window[i];
    g.s[i] = w.strides[i];
    g.pad_begin[i] = w.padding[2 * i];
    g.pad_end[i] = w.padding[2 * i + 1];
    // floor((in + pb + pe − k)/s) + 1 = out once in + pb + pe reaches (out − 1)·s + k (the
    // output size is at least the floor one, so only an extension can be needed).
    const int64_t needed = (g.out[i] - 1) * g.s[i] + g.k[i];
    const int64_t have = g.in[i] + g.pad_begin[i] + g.pad_end[i];
    if (needed > have) g.pad_end[i] += needed - have;
    g.count[i].resize(static_cast<size_t>(g.out[i]));
    for (int64_t o_i = 0; o_i < g.out[i]; ++o_i) {
      const int64_t first = o_i * g.s[i] - g.pad_begin[i];
      const int64_t lo = std::max<int64_t>(first, 0);
      const int64_t hi = std::min<int64_t>(first + g.k[i], g.in[i]);
      g.count[i][static_cast<size_t>(o_i)] = std::max<int64_t>(hi - lo, 0);
    }
  }
  return g;
}

// The constant [oH, oW] bool mask of the outputs whose window is empty.
std::string empty_mask(Emitter& e, const PoolGeometry& g) {
  std::vector<std::byte> mask;
  for (int64_t c0 : g.count[0])
    for (int64_t c1 : g.count[1]) mask.push_back(std::byte{c0 * c1 == 0 ? uint8_t{1} : uint8_t{0}});
  const int64_t shape[] = {g.out[0], g.out[1]};
  return e.const_tensor(mil::BOOL, shape, mask);
}

// The MIL op of a pool kind.
std::string_view mil_pool(PoolKind kind) {
  switch (kind) {
    case PoolKind::kAverage:
      return "avg_pool";
    case PoolKind::kL2:
      return "l2_pool";
    case PoolKind::kMax:
      break;
  }
  return "max_pool";
}

// Any of the three pools (the cases lowers_pooling accepts).
void lower_pool(Emitter& e, const Operation& op, const MLPool2dOptions& o, PoolKind kind) {
  const mil::DataType t = e.mil_type(op.inputs.at(0)).type;
  if (t != mil::FLOAT32 && t != mil::FLOAT16)
    throw NotSupportedError("input must be float32 or float16");
  const PoolWindow w = pool_window(e.desc(op.inputs.at(0)).shape, o);
  if (w.dilations[0] != 1 || w.dilations[1] != 1)
    throw NotSupportedError("MIL pools have no dilations");
  const PoolGeometry g = geometry(e, op, o);
  const bool nhwc = o.layout == MLInputOperandLayout::kNhwc;
  NchwOutput out(e, op.outputs[0], nhwc);
  // float16 l2Pool2d pools in float32.
  const mil::DataType compute = kind == PoolKind::kL2 ? mil::FLOAT32 : t;
  std::vector<Param> params{
      {"x", e.cast(to_nchw(e, in(e, op, 0), nhwc), compute)},
      {"kernel_sizes", e.const_i32_of(std::vector<int64_t>{g.k[0], g.k[1]})},
      {"strides", e.const_i32_of(std::vector<int64_t>{g.s[0], g.s[1]})},
      {"pad_type", e.const_string("custom")},
      {"pad", e.const_i32_of(std::vector<int64_t>{g.pad_begin[0], g.pad_end[0], g.pad_begin[1],
                                                  g.pad_end[1]})}};
  if (kind == PoolKind::kAverage)
    params.push_back({"exclude_padding_from_average", e.const_bool(true)});
  const MilType pooled{compute, out.type().shape};
  if (compute != t) {
    const std::string y = e.op(mil_pool(kind), std::move(params), pooled);
    out.write("cast", {{"x", y}, {"dtype", e.const_string(mil_dtype_name(t))}});
    return;
  }
  if (kind == PoolKind::kL2 || !g.empty_window()) {
    out.write(mil_pool(kind), std::move(params));
    return;
  }
  // Empty windows: NaN (average) or -Infinity (max).
  const std::string y = e.op(mil_pool(kind), std::move(params), pooled);
  const double empty = kind == PoolKind::kAverage ? std::numeric_limits<double>::quiet_NaN()
                                                  : -std::numeric_limits<double>::infinity();
  out.write("select", {{"cond", empty_mask(e, g)}, {"a", e.const_scalar(t, empty)}, {"b", y}});
}

}  // namespace

// MIL pools lack dilations, and max_pool takes float32/float16 only: those cases decompose
// (dilated pools through window sums / strided slices, int32 maxPool2d through slices and max).
bool lowers_pooling(const Graph& graph, const Operation& op) {
  const MLPool2dOptions* o = nullptr;
  switch (op.type) {
    case OpType::kAveragePool2d:
      o = &attrs_of<OpType::kAveragePool2d>(op.attrs).options;
      break;
    case OpType::kL2Pool2d:
      o = &attrs_of<OpType::kL2Pool2d>(op.attrs).options;
      break;
    case OpType::kMaxPool2d:
      o = &attrs_of<OpType::kMaxPool2d>(op.attrs).options;
      break;
    default:
      return true;
  }
  const MLOperandDataType t = graph.descriptor(op.inputs.at(0)).dataType;
  if (t != MLOperandDataType::kFloat32 && t != MLOperandDataType::kFloat16) return false;
  const PoolWindow w = pool_window(graph.descriptor(op.inputs.at(0)).shape, *o);
  return w.dilations[0] == 1 && w.dilations[1] == 1;
}

// averagePool2d (row 65): MIL avg_pool, the mean of the in-bounds window elements.
void lower_averagePool2d(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kAveragePool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kAverage);
}

// l2Pool2d (row 66): MIL l2_pool, √Σx² over the in-bounds window elements.
void lower_l2Pool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kL2Pool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kL2);
}

// maxPool2d (row 67): MIL max_pool, the largest in-bounds window element.
void lower_maxPool2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kMaxPool2d>& attrs) {
  lower_pool(e, op, attrs.options, PoolKind::kMax);
}

}  // namespace cppnn::coreml_export
