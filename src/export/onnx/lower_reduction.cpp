// ONNX lowering of the reductions ops (see lower.h): the ten reductions (webnn-spec.md §2 rows
// 69-78), argMin/argMax (rows 1-2) and cumulativeSum (row 9).
//
// Float data (float32, float16) maps to one ONNX node. Integer data is computed exactly with
// elementwise ops (see lower_integer_reduce), wrapping like the reference backend. axes = [] (or a
// 0-D input) reduces nothing: each output is a function of one element, emitted elementwise, since
// an empty ONNX axes attribute would reduce everything.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_reduction_util.h"
#include "src/export/onnx/lower_util.h"
#include "src/ops/reduction_params.h"

namespace cppnn::onnx_export {
namespace {

using DT = MLOperandDataType;

// The ten reductions.
enum class Reduce { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProduct, kSum, kSumSquare };

// The ONNX op computing reduction `r` of float data.
std::string_view onnx_reduce(Reduce r) {
  switch (r) {
    case Reduce::kL1:
      return "ReduceL1";
    case Reduce::kL2:
      return "ReduceL2";
    case Reduce::kLogSum:
      return "ReduceLogSum";
    case Reduce::kLogSumExp:
      return "ReduceLogSumExp";
    case Reduce::kMax:
      return "ReduceMax";
    case Reduce::kMean:
      return "ReduceMean";
    case Reduce::kMin:
      return "ReduceMin";
    case Reduce::kProduct:
      return "ReduceProd";
    case Reduce::kSum:
      return "ReduceSum";
    case Reduce::kSumSquare:
      return "ReduceSumSquare";
  }
  return "";
}

// Reduce<onnx_op>(x) over `axes` writing `y`: ReduceSum takes its axes as an input from opset
// 13, the other reductions as an attribute until opset 18.
void reduce_to(Emitter& e, std::string_view onnx_op, const std::string& x,
               const std::vector<int64_t>& axes, bool keep, const std::string& y) {
  const Attr keepdims{"keepdims", int64_t{keep ? 1 : 0}};
  if (onnx_op == "ReduceSum")
    e.node_to(onnx_op, {x, e.const_i64(axes)}, {y}, {keepdims});
  else
    e.node_to(onnx_op, {x}, {y}, {{"axes", axes}, keepdims});
}

// Writes `value` (of ONNX type `from`) to the op's output of type `to`: a Cast, or nothing when
// `value` already is the output.
void cast_to_output(Emitter& e, const std::string& value, DT from, DT to, const std::string& y) {
  if (value == y) return;
  if (onnx_type_of(from) == onnx_type_of(to))
    e.node_to("Identity", {value}, {y});
  else
    e.node_to("Cast", {value}, {y}, {{"to", int64_t{onnx_type_of(to)}}});
}

// The name the last node of an integer lowering writes: the output itself when no cast back
// follows, else a fresh intermediate.
std::string last_value(Emitter& e, DT compute, DT out_type, const std::string& y) {
  return onnx_type_of(compute) == onnx_type_of(out_type) ? y : e.fresh();
}

// A reduction of float data: one ONNX node (elementwise when nothing is reduced).
void lower_float_reduce(Emitter& e, Reduce r, const std::string& x,
                        const std::vector<int64_t>& axes, bool keep, const std::string& y) {
  if (!axes.empty()) {
    reduce_to(e, onnx_reduce(r), x, axes, keep, y);
    return;
  }
  switch (r) {
    case Reduce::kL1:
    case Reduce::kL2:  // √(x²) = |x|
      e.node_to("Abs", {x}, {y});
      return;
    case Reduce::kLogSum:
      e.node_to("Log", {x}, {y});
      return;
    case Reduce::kSumSquare:
      e.node_to("Mul", {x, x}, {y});
      return;
    default:
      e.node_to("Identity", {x}, {y});
      return;
  }
}

// The elementwise ONNX op folding two partial results of integer reduction `r`.
std::string_view fold_op(Reduce r) {
  switch (r) {
    case Reduce::kMax:
      return "Max";
    case Reduce::kMin:
      return "Min";
    case Reduce::kProduct:
      return "Mul";
    default:
      return "Add";
  }
}

// A reduction of integer data (L1, Max, Min, Product, Sum, SumSquare), exact. ONNX Runtime's
// integer Reduce* kernels are not (int64 sums and products go through double), and its optimizer
// turns Cast(uint32 → int64) followed by a max into a signed 32-bit max, so: 64-bit data is
// computed in int64, 32-bit in int32 (uint32 cast bit for bit) and 8-bit (max/min only) in int32;
// unsigned 32/64-bit max/min flip the sign bit (adding the type's lowest value, wrapping), which
// maps unsigned order to signed order. The values are mapped (|x|, x²), transposed to put the
// reduced axes last, reshaped to [kept, reduced], and the reduced column is folded pairwise with
// elementwise Add/Mul/Max/Min (⌈log2 n⌉ levels of Slice + op), which wrap modulo 2^width like
// the reference backend's unsigned arithmetic.
void lower_integer_reduce(Emitter& e, Reduce r, DT t, const std::string& x,
                          const std::vector<int64_t>& shape, const std::vector<int64_t>& axes,
                          bool keep, const std::string& y) {
  const bool extreme = r == Reduce::kMax || r == Reduce::kMin;
  const bool abs = r == Reduce::kL1 && !is_unsigned_type(t);
  if (axes.empty() && r != Reduce::kSumSquare && !abs) {
    e.node_to("Identity", {x}, {y});  // one element: itself (|x| = x unsigned)
    return;
  }
  const bool wide = data_type_bits(t) == 64;
  const DT w = wide ? DT::kInt64 : DT::kInt32;
  std::string v = e.cast(x, t, w);
  std::string flip;
  if (extreme && is_unsigned_type(t) && data_type_bits(t) >= 32) {
    flip = wide ? e.const_scalar(w, MLNumber(std::numeric_limits<int64_t>::min()))
                : e.const_scalar(w, MLNumber(std::numeric_limits<int32_t>::min()));
    v = e.node("Add", {v, flip});
  }
  if (abs) v = e.node("Abs", {v});
  if (r == Reduce::kSumSquare) v = e.node("Mul", {v, v});
  if (!axes.empty()) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
    std::vector<int64_t> perm, out_shape;
    int64_t kept = 1, n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (reduced[i]) continue;
      perm.push_back(static_cast<int64_t>(i));
      kept *= shape[i];
    }
    bool identity = true;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (reduced[i]) {
        perm.push_back(static_cast<int64_t>(i));
        n *= shape[i];
      }
      if (!reduced[i] || keep) out_shape.push_back(reduced[i] ? 1 : shape[i]);
    }
    for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
    if (!identity) v = e.node("Transpose", {v}, {{"perm", perm}});
    v = e.node("Reshape", {v, e.const_i64({kept, n})});
    const std::string axis1 = e.const_i64({1});
    while (n > 1) {
      const int64_t h = n / 2;
      const std::string a = e.node("Slice", {v, e.const_i64({0}), e.const_i64({h}), axis1});
      const std::string b = e.node("Slice", {v, e.const_i64({h}), e.const_i64({2 * h}), axis1});
      std::string folded = e.node(fold_op(r), {a, b});
      if (n % 2 == 1) {
        const std::string rest =
            e.node("Slice", {v, e.const_i64({2 * h}), e.const_i64({n}), axis1});
        folded = e.node("Concat", {folded, rest}, {{"axis", int64_t{1}}});
      }
      v = folded;
      n -= h;
    }
    v = e.node("Reshape", {v, e.const_i64(out_shape)});
  }
  if (!flip.empty()) v = e.node("Add", {v, flip});
  cast_to_output(e, v, w, t, y);
}

// Any of the ten reductions.
void lower_reduce(Emitter& e, const Operation& op, const MLReduceOptions& options, Reduce r) {
  const DT t = e.type(op.inputs[0]);
  const std::vector<int64_t> axes = to_i64(reduction_axes(options, e.rank(op.inputs[0])));
  const std::string& x = in(e, op, 0);
  const std::string& y = out(e, op);
  if (is_float_type(t)) {
    lower_float_reduce(e, r, x, axes, options.keepDimensions, y);
    return;
  }
  switch (r) {
    case Reduce::kL1:
    case Reduce::kMax:
    case Reduce::kMin:
    case Reduce::kProduct:
    case Reduce::kSum:
    case Reduce::kSumSquare:
      lower_integer_reduce(e, r, t, x, e.dims(op.inputs[0]), axes, options.keepDimensions, y);
      return;
    default:
      throw NotSupportedError("this reduction takes float32 or float16 data");
  }
}

// argMin/argMax: ArgMin/ArgMax (first index on ties, int64), cast to int32 when asked. Integer
// data compares where ONNX Runtime has kernels: int8/uint8/int32 as is (4-bit as 8-bit), int64
// in int64, uint32/uint64 as int32/int64 with the sign bit flipped (order-preserving).
void lower_arg(Emitter& e, const Operation& op, std::string_view onnx_op, uint32_t axis,
               const MLArgMinMaxOptions& options) {
  const DT t = e.type(op.inputs[0]);
  std::string x = in(e, op, 0);
  if (t == DT::kUint32) {
    x = e.node("Add", {e.cast(x, t, DT::kInt32),
                       e.const_scalar(DT::kInt32, MLNumber(std::numeric_limits<int32_t>::min()))});
  } else if (t == DT::kInt64 || t == DT::kUint64) {
    x = e.cast(x, t, DT::kInt64);
    if (t == DT::kUint64)
      x = e.node("Add",
                 {x, e.const_scalar(DT::kInt64, MLNumber(std::numeric_limits<int64_t>::min()))});
  }
  const std::string& y = out(e, op);
  const std::string target = last_value(e, DT::kInt64, options.outputDataType, y);
  e.node_to(onnx_op, {x}, {target},
            {{"axis", int64_t{axis}}, {"keepdims", int64_t{options.keepDimensions ? 1 : 0}}});
  cast_to_output(e, target, DT::kInt64, options.outputDataType, y);
}

}  // namespace

// reduceL1: Σ|x| (row 69).
void lower_reduceL1(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceL1>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kL1);
}

// reduceL2: √Σx² (row 70).
void lower_reduceL2(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceL2>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kL2);
}

// reduceLogSum: ln Σx (row 71).
void lower_reduceLogSum(Emitter& e, const Operation& op,
                        const AttrsOf<OpType::kReduceLogSum>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kLogSum);
}

// reduceLogSumExp: ln Σeˣ (row 72).
void lower_reduceLogSumExp(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kReduceLogSumExp>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kLogSumExp);
}

// reduceMax: the largest element (row 73).
void lower_reduceMax(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMax>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMax);
}

// reduceMean: Σx / count (row 74).
void lower_reduceMean(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMean>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMean);
}

// reduceMin: the smallest element (row 75).
void lower_reduceMin(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMin>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMin);
}

// reduceProduct: Πx (row 76).
void lower_reduceProduct(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kReduceProduct>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kProduct);
}

// reduceSum: Σx (row 77).
void lower_reduceSum(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceSum>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kSum);
}

// reduceSumSquare: Σx² (row 78).
void lower_reduceSumSquare(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kReduceSumSquare>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kSumSquare);
}

// argMin: index of the first smallest element along axis (row 1).
void lower_argMin(Emitter& e, const Operation& op, const AttrsOf<OpType::kArgMin>& attrs) {
  lower_arg(e, op, "ArgMin", attrs.params.axis, attrs.options);
}

// argMax: index of the first largest element along axis (row 2).
void lower_argMax(Emitter& e, const Operation& op, const AttrsOf<OpType::kArgMax>& attrs) {
  lower_arg(e, op, "ArgMax", attrs.params.axis, attrs.options);
}

// cumulativeSum: CumSum along axis with exclusive/reverse (row 9). uint32/uint64 run in int64
// (wrapping) and are cast back; float16 is widened by ONNX Runtime itself.
void lower_cumulativeSum(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kCumulativeSum>& attrs) {
  const DT t = e.type(op.inputs[0]);
  const DT w = t == DT::kUint32 || t == DT::kUint64 ? DT::kInt64 : t;
  const std::string x = e.cast(in(e, op, 0), t, w);
  const std::string axis = e.const_scalar(DT::kInt64, MLNumber(int64_t{attrs.params.axis}));
  std::vector<Attr> a;
  if (attrs.options.exclusive) a.push_back({"exclusive", int64_t{1}});
  if (attrs.options.reversed) a.push_back({"reverse", int64_t{1}});
  const std::string& y = out(e, op);
  const std::string target = last_value(e, w, t, y);
  e.node_to("CumSum", {x, axis}, {target}, std::move(a));
  cast_to_output(e, target, w, t, y);
}

}  // namespace cppnn::onnx_export
