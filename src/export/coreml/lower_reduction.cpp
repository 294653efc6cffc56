// CoreML lowering of the reductions (see lower.h; webnn-spec.md §2 rows 69-78), argMin/argMax
// (rows 1-2) and cumulativeSum (row 9), for float32, float16 and int32 data.
//
// A reduction over elements that are each alone in their group (axes = [], a 0-D input, or only
// dimensions of size 1) is elementwise: the one element's value (|x|, ln x, x², or x itself),
// then a squeeze of the reduced axes; MIL's reductions need rank >= 1 and would read empty axes
// as "all". Every other reduction is the MIL reduce_* op of the same meaning, except
// reduceLogSumExp (MIL's shifted form gives NaN where the largest element is infinite; written
// out with the reference's shift) and float16 reduceL2 (computed in float32: the squares overflow
// float16 long before the norm does). argMin/argMax pick the first extreme index (erratum §6.12;
// MIL's reduce_arg* leaves ties unspecified), cumulativeSum is MIL cumsum. keepDimensions is an
// expand_dims after the reduction (see reduce_params).
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/reduction_params.h"

namespace cppnn::coreml_export {
namespace {

// The ten reductions.
enum class Reduce { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProduct, kSum, kSumSquare };

// The MIL op computing reduction `r` (all but reduceLogSumExp).
std::string_view mil_reduce(Reduce r) {
  switch (r) {
    case Reduce::kL1:
      return "reduce_l1_norm";
    case Reduce::kL2:
      return "reduce_l2_norm";
    case Reduce::kLogSum:
      return "reduce_log_sum";
    case Reduce::kLogSumExp:  // written out: lower_log_sum_exp
      break;
    case Reduce::kMax:
      return "reduce_max";
    case Reduce::kMean:
      return "reduce_mean";
    case Reduce::kMin:
      return "reduce_min";
    case Reduce::kProduct:
      return "reduce_prod";
    case Reduce::kSum:
      return "reduce_sum";
    case Reduce::kSumSquare:
      return "reduce_sum_square";
  }
  return "";
}

// One reduction being lowered: the reduced axes (increasing), keepDimensions, the number of
// elements folded into each output element, and the input's shape with the reduced dimensions
// set to 1 (kept) or dropped (reduced).
struct Reduction {
  std::vector<int32_t> axes;
  bool keep = false;
  uint64_t count = 1;
  std::vector<int64_t> kept_shape;
  std::vector<int64_t> reduced_shape;
};

// The reduction `op` computes with `options`.
Reduction reduction_of(const Emitter& e, const Operation& op, const MLReduceOptions& options) {
  Reduction r;
  const std::vector<int64_t>& shape = e.mil_type(op.inputs[0]).shape;
  std::vector<bool> reduced(shape.size(), false);
  for (uint32_t a : reduction_axes(options, shape.size())) reduced[a] = true;
  r.keep = options.keepDimensions;
  for (size_t i = 0; i < shape.size(); ++i) {
    r.kept_shape.push_back(reduced[i] ? 1 : shape[i]);
    if (reduced[i]) {
      r.axes.push_back(static_cast<int32_t>(i));
      r.count *= static_cast<uint64_t>(shape[i]);
    } else {
      r.reduced_shape.push_back(shape[i]);
    }
  }
  return r;
}

// The parameters of MIL reduction of x over `axes`, which drops the reduced dimensions.
// keep_dims is never set (emit_reduced puts the dimensions back): coremltools' loader folds a
// reduction of constants with numpy, which (2.4) rejects the numpy bool it reads keep_dims as.
std::vector<Param> reduce_params(Emitter& e, const std::string& x, std::span<const int32_t> axes) {
  return {{"x", x}, {"axes", e.const_i32(axes)}};
}

// Emits the last MIL op `type(params)` of a lowering computed in element type `compute`: it
// writes the op's output, or a fresh variable of the output's shape cast to the output's type.
void emit_result(Emitter& e, const Operation& op, std::string_view type, std::vector<Param> params,
                 mil::DataType compute) {
  const MilType out = out_type(e, op);
  if (compute == out.type) {
    e.op_to(type, std::move(params), op.outputs[0]);
    return;
  }
  const std::string v = e.op(type, std::move(params), MilType{compute, out.shape});
  e.op_to("cast", {{"x", v}, {"dtype", e.const_string(mil_dtype_name(out.type))}}, op.outputs[0]);
}

// Emits MIL op `type(params)` whose result has the reduced dimensions kept as 1, as the op's
// output: directly when keepDimensions (or nothing is reduced), else squeezed.
void emit_kept(Emitter& e, const Operation& op, const Reduction& r, std::string_view type,
               std::vector<Param> params, mil::DataType compute) {
  if (r.keep || r.axes.empty()) {
    emit_result(e, op, type, std::move(params), compute);
    return;
  }
  const std::string v = e.op(type, std::move(params), MilType{compute, r.kept_shape});
  emit_result(e, op, "squeeze", {{"x", v}, {"axes", e.const_i32(r.axes)}}, compute);
}

// Emits MIL op `type(params)` whose result has the reduced dimensions dropped, as the op's
// output: directly, or expanded back to size-1 dimensions when keepDimensions.
void emit_reduced(Emitter& e, const Operation& op, const Reduction& r, std::string_view type,
                  std::vector<Param> params, mil::DataType compute) {
  if (!r.keep) {
    emit_result(e, op, type, std::move(params), compute);
    return;
  }
  const std::string v = e.op(type, std::move(params), MilType{compute, r.reduced_shape});
  emit_result(e, op, "expand_dims", {{"x", v}, {"axes", e.const_i32(r.axes)}}, compute);
}

// A reduction whose every group holds one element x: |x| (L1, L2 = √(x²)), ln x (MIL log with
// epsilon 0, not its default 1e-45), x² or x itself.
void lower_single(Emitter& e, const Operation& op, Reduce kind, const Reduction& r) {
  const std::string& x = in(e, op, 0);
  const mil::DataType t = e.type_of(x).type;
  switch (kind) {
    case Reduce::kL1:
    case Reduce::kL2:
      emit_kept(e, op, r, "abs", {{"x", x}}, t);
      return;
    case Reduce::kLogSum:
      emit_kept(e, op, r, "log", {{"x", x}, {"epsilon", e.const_scalar(t, 0)}}, t);
      return;
    case Reduce::kSumSquare:
      emit_kept(e, op, r, "mul", {{"x", x}, {"y", x}}, t);
      return;
    default:
      emit_kept(e, op, r, "identity", {{"x", x}}, t);
      return;
  }
}

// reduceLogSumExp = m + ln Σ exp(x - m), m the largest element where it is finite and 0 elsewhere
// (the reference's shift; MIL's reduce_log_sum_exp subtracts an infinite maximum too), float16
// computed in float32; the shift is expanded back to the input's rank to subtract it.
void lower_log_sum_exp(Emitter& e, const Operation& op, const Reduction& r) {
  const std::string x = e.cast(in(e, op, 0), mil::FLOAT32);
  const MilType t = e.type_of(x);
  const MilType reduced{mil::FLOAT32, r.reduced_shape};
  const std::string zero = e.const_scalar(mil::FLOAT32, 0);
  const std::string m = e.op("reduce_max", reduce_params(e, x, r.axes), reduced);
  const std::string spread = e.op("sub", {{"x", m}, {"y", m}}, reduced);
  const std::string finite =
      e.op("equal", {{"x", spread}, {"y", zero}}, MilType{mil::BOOL, r.reduced_shape});
  const std::string shift = e.op("select", {{"cond", finite}, {"a", m}, {"b", zero}}, reduced);
  const std::string shift_kept = e.op("expand_dims", {{"x", shift}, {"axes", e.const_i32(r.axes)}},
                                      MilType{mil::FLOAT32, r.kept_shape});
  const std::string centred = e.op("sub", {{"x", x}, {"y", shift_kept}}, t);
  const std::string exp = e.op("exp", {{"x", centred}}, t);
  const std::string sum = e.op("reduce_sum", reduce_params(e, exp, r.axes), reduced);
  const std::string log = e.op("log", {{"x", sum}, {"epsilon", zero}}, reduced);
  emit_reduced(e, op, r, "add", {{"x", shift}, {"y", log}}, mil::FLOAT32);
}

// Any of the ten reductions.
void lower_reduce(Emitter& e, const Operation& op, const MLReduceOptions& options, Reduce kind) {
  const Reduction r = reduction_of(e, op, options);
  if (r.count == 1) {
    lower_single(e, op, kind, r);
    return;
  }
  if (kind == Reduce::kLogSumExp) {
    lower_log_sum_exp(e, op, r);
    return;
  }
  std::string x = in(e, op, 0);
  if (kind == Reduce::kL2) x = e.cast(x, mil::FLOAT32);
  emit_reduced(e, op, r, mil_reduce(kind), reduce_params(e, x, r.axes), e.type_of(x).type);
}

// argMin/argMax along `axis`: the first index holding the extreme m (reduce_max/reduce_min
// along the axis, expanded back to rank: see reduce_params), or a NaN for floats (the reference
// returns the first NaN; m is NaN then): hit = x == m (or x != x), picked = hit * (K - i) for
// index i of K, whose largest value is unique, so reduce_argmax finds that first index whatever
// its tie rule (its own keep_dims is safe to set: its constant folding does not hand it to numpy).
void lower_arg(Emitter& e, const Operation& op, bool is_max, uint32_t axis,
               const MLArgMinMaxOptions& options) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  const MilType hits{mil::BOOL, t.shape};
  std::vector<int64_t> kept_shape = t.shape, reduced_shape = t.shape;
  kept_shape[axis] = 1;
  reduced_shape.erase(reduced_shape.begin() + axis);
  const int32_t axes[] = {static_cast<int32_t>(axis)};
  const std::string extreme = e.op(is_max ? "reduce_max" : "reduce_min", reduce_params(e, x, axes),
                                   {t.type, reduced_shape});
  const std::string m = e.op("expand_dims", {{"x", extreme}, {"axes", e.const_i32(axes)}},
                             MilType{t.type, kept_shape});
  std::string hit = e.op("equal", {{"x", x}, {"y", m}}, hits);
  if (t.type != mil::INT32) {
    const std::string nan = e.op("not_equal", {{"x", x}, {"y", x}}, hits);
    hit = e.op("logical_or", {{"x", hit}, {"y", nan}}, hits);
  }
  const int64_t k = t.shape[axis];
  std::vector<int64_t> column(t.shape.size() - axis, 1);
  column[0] = k;
  std::vector<int32_t> countdown(static_cast<size_t>(k));
  std::iota(countdown.rbegin(), countdown.rend(), 1);
  const std::string weights =
      e.const_tensor(mil::INT32, column, std::as_bytes(std::span<const int32_t>(countdown)));
  const std::string picked =
      e.op("mul", {{"x", e.cast(hit, mil::INT32)}, {"y", weights}}, MilType{mil::INT32, t.shape});
  e.op_to("reduce_argmax",
          {{"x", picked},
           {"axis", e.const_int(static_cast<int32_t>(axis))},
           {"keep_dims", e.const_bool(options.keepDimensions)}},
          op.outputs[0]);
}

}  // namespace

bool lowers_reduction(const Graph&, const Operation&) {
  return true;
}

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
  lower_arg(e, op, false, attrs.params.axis, attrs.options);
}

// argMax: index of the first largest element along axis (row 2).
void lower_argMax(Emitter& e, const Operation& op, const AttrsOf<OpType::kArgMax>& attrs) {
  lower_arg(e, op, true, attrs.params.axis, attrs.options);
}

// cumulativeSum: MIL cumsum along axis; exclusive (the first sum is the empty sum 0) and reversed
// map to its `exclusive` and `reverse` (row 9).
void lower_cumulativeSum(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kCumulativeSum>& attrs) {
  e.op_to("cumsum",
          {{"x", in(e, op, 0)},
           {"axis", e.const_int(static_cast<int32_t>(attrs.params.axis))},
           {"exclusive", e.const_bool(attrs.options.exclusive)},
           {"reverse", e.const_bool(attrs.options.reversed)}},
          op.outputs[0]);
}

}  // namespace cppnn::coreml_export
