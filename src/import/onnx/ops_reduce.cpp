// ONNX reductions and related operators (ops_reduce.def): the Reduce* family mapped to WebNN's
// ten reductions, ArgMax/ArgMin (select_last_index by reversing), CumSum, LpNormalization,
// Trilu and TopK.
#include <algorithm>
#include <limits>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

bool is_float(DT t) {
  return t == DT::kFloat32 || t == DT::kFloat16;
}

// The WebNN reductions the ONNX Reduce* operators map to.
enum class Reduce { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProd, kSum, kSumSquare };

MLOperand record_reduce(NodeContext& c, Reduce kind, const MLOperand& x, MLReduceOptions o) {
  MLGraphBuilder& b = c.builder();
  switch (kind) {
    case Reduce::kL1:
      return b.reduceL1(x, o);
    case Reduce::kL2:
      return b.reduceL2(x, o);
    case Reduce::kLogSum:
      return b.reduceLogSum(x, o);
    case Reduce::kLogSumExp:
      return b.reduceLogSumExp(x, o);
    case Reduce::kMax:
      return b.reduceMax(x, o);
    case Reduce::kMean:
      return b.reduceMean(x, o);
    case Reduce::kMin:
      return b.reduceMin(x, o);
    case Reduce::kProd:
      return b.reduceProduct(x, o);
    case Reduce::kSum:
      return b.reduceSum(x, o);
    case Reduce::kSumSquare:
      return b.reduceSumSquare(x, o);
  }
  return x;
}

// ONNX Reduce<kind>: axes from the attribute before `input_opset`, from input 1 since; absent or
// empty axes reduce everything unless noop_with_empty_axes, which returns the input unchanged
// (ONNX: "the output tensor would be equivalent to input tensor").
void reduce_node(NodeContext& c, Reduce kind, int64_t input_opset) {
  const size_t rank = c.input_rank(0);
  const auto axes = axes_attr_or_input(c, "axes", input_opset, 1);
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const bool noop = c.attr_int("noop_with_empty_axes", 0) != 0;
  MLOperand x = c.input(0);
  if ((!axes || axes->empty()) && noop) return c.set_output(0, x);
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.keepDimensions = keep;
  if (axes && !axes->empty()) o.axes = normalize_axes(c, *axes, rank);
  const DT type = x.dataType();
  const bool float_only = kind == Reduce::kL2 || kind == Reduce::kLogSum ||
                          kind == Reduce::kLogSumExp || kind == Reduce::kMean;
  if (float_only && !is_float(type)) {
    if (kind != Reduce::kMean)
      c.unsupported(std::string(data_type_name(type)) + " input (WebNN computes this in float)");
    // Integer mean: the sum divided by the count, truncated toward zero (numpy's astype).
    if (type == DT::kInt8 || type == DT::kUint8)
      c.unsupported("an 8-bit integer mean (WebNN reduceSum has no 8-bit types)");
    uint64_t count = 1;
    for (uint32_t a : o.axes.value_or([&] {
           std::vector<uint32_t> all(rank);
           for (size_t i = 0; i < rank; ++i) all[i] = static_cast<uint32_t>(i);
           return all;
         }()))
      count *= c.input_shape(0)[a];
    MLOperand sum = c.builder().reduceSum(x, o);
    return c.set_output(0, c.builder().div(sum, c.scalar(type, static_cast<double>(count)),
                                           c.opts<MLOperatorOptions>()));
  }
  const bool no_8bit = kind != Reduce::kMax && kind != Reduce::kMin;
  if (no_8bit && (type == DT::kInt8 || type == DT::kUint8))
    c.unsupported(std::string(data_type_name(type)) + " input (no 8-bit types in this reduction)");
  c.set_output(0, record_reduce(c, kind, x, o));
}

// ArgMax/ArgMin (int64 indices). select_last_index: the first index of the reversed input,
// mirrored back (d - 1 - i).
void arg_node(NodeContext& c, bool is_max) {
  const size_t rank = c.input_rank(0);
  if (rank == 0) c.invalid("a scalar input has no axis");
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), rank);
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const bool last = c.attr_int("select_last_index", 0) != 0;
  MLGraphBuilder& b = c.builder();
  MLOperand x = c.input(0);
  const DT type = x.dataType();
  if (type == DT::kInt8 || type == DT::kUint8) x = cast_to(c, x, DT::kInt32);  // exact
  if (last) {
    MLReverseOptions r = c.opts<MLReverseOptions>();
    r.axes = std::vector<uint32_t>{axis};
    x = b.reverse(x, r);
  }
  MLArgMinMaxOptions o = c.opts<MLArgMinMaxOptions>();
  o.keepDimensions = keep;
  o.outputDataType = DT::kInt64;
  MLOperand idx = is_max ? b.argMax(x, axis, o) : b.argMin(x, axis, o);
  if (last) {
    const double d = c.input_shape(0)[axis];
    idx = b.sub(c.scalar(DT::kInt64, d - 1), idx, c.opts<MLOperatorOptions>());
  }
  c.set_output(0, idx);
}

// Trilu with a k known only at run time: where(j - i >= k (upper) or <= k (lower), x, 0) over
// the last two dimensions, j - i from a constant.
void trilu_dynamic(NodeContext& c, bool upper) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const uint32_t rows = shape[shape.size() - 2], cols = shape.back();
  const DT kt = c.input_type(1);
  if (kt != DT::kInt64 && kt != DT::kInt32) c.invalid("k must be an integer");
  if (element_count(c.input_shape(1)) != 1) c.invalid("k must hold one value");
  std::vector<int64_t> diff;
  diff.reserve(size_t{rows} * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) diff.push_back(j - i);
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  MLOperand d = c.constant_operand(HostTensor::of_int64(diff, {rows, cols}, kt));
  MLOperand k = b.reshape(c.input(1), {}, o);
  MLOperand keep = upper ? b.greaterOrEqual(d, k, o) : b.lesserOrEqual(d, k, o);
  MLOperand x = c.input(0);
  c.set_output(0, b.where(keep, x, c.scalar(x.dataType(), 0), o));
}

}  // namespace

void import_ReduceL1(NodeContext& c) {
  reduce_node(c, Reduce::kL1, 18);
}
void import_ReduceL2(NodeContext& c) {
  reduce_node(c, Reduce::kL2, 18);
}
void import_ReduceLogSum(NodeContext& c) {
  reduce_node(c, Reduce::kLogSum, 18);
}
void import_ReduceLogSumExp(NodeContext& c) {
  reduce_node(c, Reduce::kLogSumExp, 18);
}
void import_ReduceMax(NodeContext& c) {
  reduce_node(c, Reduce::kMax, 18);
}
void import_ReduceMean(NodeContext& c) {
  reduce_node(c, Reduce::kMean, 18);
}
void import_ReduceMin(NodeContext& c) {
  reduce_node(c, Reduce::kMin, 18);
}
void import_ReduceProd(NodeContext& c) {
  reduce_node(c, Reduce::kProd, 18);
}
void import_ReduceSum(NodeContext& c) {
  reduce_node(c, Reduce::kSum, 13);
}
void import_ReduceSumSquare(NodeContext& c) {
  reduce_node(c, Reduce::kSumSquare, 18);
}

void import_ArgMax(NodeContext& c) {
  arg_node(c, true);
}
void import_ArgMin(NodeContext& c) {
  arg_node(c, false);
}

// CumSum: axis from input 1 (a constant scalar), exclusive and reverse attributes.
void import_CumSum(NodeContext& c) {
  const size_t rank = c.input_rank(0);
  const std::vector<int64_t> axis = c.ints(1, "axis");
  if (axis.size() != 1) c.invalid("axis must hold one value");
  MLCumulativeSumOptions o = c.opts<MLCumulativeSumOptions>();
  o.exclusive = c.attr_int("exclusive", 0) != 0;
  o.reversed = c.attr_int("reverse", 0) != 0;
  MLOperand x = c.input(0);
  if (rank == 0) c.unsupported("a scalar input (WebNN cumulativeSum needs rank >= 1)");
  c.set_output(0, c.builder().cumulativeSum(x, normalize_axis(c, axis[0], rank), o));
}

// LpNormalization: x / ||x||_p along `axis` (p = 1 or 2), a plain division as in ONNX's reference.
void import_LpNormalization(NodeContext& c) {
  const size_t rank = c.input_rank(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", -1), rank);
  const int64_t p = c.attr_int("p", 2);
  if (p != 1 && p != 2) c.invalid("p must be 1 or 2, not " + std::to_string(p));
  MLOperand x = c.input(0);
  if (!is_float(x.dataType())) c.unsupported("a non-float input");
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.axes = std::vector<uint32_t>{axis};
  o.keepDimensions = true;
  MLOperand norm = p == 1 ? c.builder().reduceL1(x, o) : c.builder().reduceL2(x, o);
  c.set_output(0, c.builder().div(x, norm, c.opts<MLOperatorOptions>()));
}

// Trilu: WebNN triangular; k from optional input 1, clamped into int32 when known (beyond the
// matrix size every k keeps or zeroes everything the same way), else a masked where.
void import_Trilu(NodeContext& c) {
  MLTriangularOptions o = c.opts<MLTriangularOptions>();
  o.upper = c.attr_int("upper", 1) != 0;
  if (c.input_rank(0) < 2) c.invalid("the input needs rank >= 2");
  if (c.has_input(1) && !c.is_constant(1)) return trilu_dynamic(c, o.upper);
  int64_t k = 0;
  if (c.has_input(1)) {
    const std::vector<int64_t> ks = c.ints(1, "k");
    if (ks.size() != 1) c.invalid("k must hold one value");
    k = ks[0];
  }
  o.diagonal = static_cast<int32_t>(std::clamp<int64_t>(k, std::numeric_limits<int32_t>::min(),
                                                        std::numeric_limits<int32_t>::max()));
  c.set_output(0, c.builder().triangular(c.input(0), o));
}

// TopK. k = 1: the arg max (largest) or arg min along `axis`, kept as a dimension of 1, and the
// values gathered there. k > 1: every element's rank is counted by comparing all pairs along the
// axis (rank(e) = #{j: x_j beats x_e} + #{j < e: x_j == x_e}, so ties keep the lower index
// first, as ONNX requires), then output r takes the index whose rank is r. Sorted either way.
void import_TopK(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const size_t rank = shape.size();
  if (rank == 0) c.invalid("a scalar input has no axis");
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", -1), rank);
  int64_t k = 0;
  if (c.opset() < 10) {
    k = c.attr_int("k", 0);
  } else {
    const std::vector<int64_t> ks = c.ints(1, "k");
    if (ks.size() != 1) c.invalid("k must hold one value");
    k = ks[0];
  }
  const uint32_t d = shape[axis];
  if (k < 1 || k > d) c.unsupported("k = " + std::to_string(k) + " (an empty or invalid result)");
  const bool largest = c.attr_int("largest", 1) != 0;
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions oo = c.opts<MLOperatorOptions>();
  MLOperand x = c.input(0);
  MLGatherOptions g = c.opts<MLGatherOptions>();
  g.axis = axis;
  if (k == 1) {
    MLOperand xs =
        x.dataType() == DT::kInt8 || x.dataType() == DT::kUint8 ? cast_to(c, x, DT::kInt32) : x;
    MLArgMinMaxOptions o = c.opts<MLArgMinMaxOptions>();
    o.keepDimensions = true;
    o.outputDataType = DT::kInt64;
    MLOperand idx = largest ? b.argMax(xs, axis, o) : b.argMin(xs, axis, o);
    c.set_output(0, b.gatherElements(x, idx, g));
    return c.set_output(1, idx);
  }
  if (element_count(shape) * d > (uint64_t{1} << 26))
    c.unsupported("k > 1 on more than 2^26 element pairs (the rank count is quadratic)");
  // Shapes with an extra axis after `axis`: xe [.., d, 1, ..] (element e), xj [.., 1, d, ..].
  auto with = [&](uint32_t at_axis, uint32_t after) {
    std::vector<uint32_t> s(shape.begin(), shape.end());
    s[axis] = at_axis;
    s.insert(s.begin() + axis + 1, after);
    return s;
  };
  MLOperand xe = b.reshape(x, with(d, 1), oo);
  MLOperand xj = b.reshape(x, with(1, d), oo);
  std::vector<uint32_t> ps(rank + 1, 1);
  ps[axis] = d;
  ps[axis + 1] = d;
  std::vector<int64_t> before;  // j < e
  for (uint32_t e = 0; e < d; ++e)
    for (uint32_t j = 0; j < d; ++j) before.push_back(j < e ? 1 : 0);
  MLOperand jlt = c.constant_operand(HostTensor::of_int64(before, ps, DT::kUint8));
  MLOperand beats = largest ? b.greater(xj, xe, oo) : b.lesser(xj, xe, oo);
  MLOperand tie = b.logicalAnd(b.equal(xj, xe, oo), jlt, oo);
  MLReduceOptions sum = c.opts<MLReduceOptions>();
  sum.axes = std::vector<uint32_t>{axis + 1};
  MLOperand ranks = b.reduceSum(b.cast(b.logicalOr(beats, tie, oo), DT::kInt32, oo), sum);  // shape
  // idx[r] = sum over e of (rank(e) == r) * e.
  std::vector<int64_t> rs(static_cast<size_t>(k)), es(d);
  for (size_t r = 0; r < rs.size(); ++r) rs[r] = static_cast<int64_t>(r);
  for (uint32_t e = 0; e < d; ++e) es[e] = e;
  std::vector<uint32_t> rshape(rank + 1, 1), eshape(rank + 1, 1);
  rshape[axis + 1] = static_cast<uint32_t>(k);
  eshape[axis] = d;
  MLOperand riota = c.constant_operand(HostTensor::of_int64(rs, rshape, DT::kInt32));
  MLOperand eiota = c.constant_operand(HostTensor::of_int64(es, eshape, DT::kInt64));
  MLOperand hit = b.equal(b.reshape(ranks, with(d, 1), oo), riota, oo);
  MLReduceOptions over_e = c.opts<MLReduceOptions>();
  over_e.axes = std::vector<uint32_t>{axis};
  MLOperand idx =
      b.reduceSum(b.where(hit, eiota, c.scalar(DT::kInt64, 0), oo), over_e);  // [.., k, ..]
  c.set_output(0, b.gatherElements(x, idx, g));
  c.set_output(1, idx);
}

}  // namespace cppnn::onnx_import
