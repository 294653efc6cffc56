// TFLite lowerings of the reduction ops (lower.h; webnn-spec.md §2 rows 1-2, 9, 69-78): the ten
// reductions with TFLite's reducers (SUM, MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD) around the
// elementwise steps of each (ABS, SQUARE, SQRT, LOG, EXP), argMin/argMax with ARG_MIN/ARG_MAX,
// cumulativeSum with CUMSUM.
//
// axes = [] (or a 0-D input) reduces nothing: each output is a function of one element, emitted
// elementwise. Above rank 4 (XNNPACK refuses reducers above rank 6), adjacent reduced dimensions
// and adjacent kept ones are merged first, and the result RESHAPEd to the output's shape.
//
// Data types: float32 (float16 computed in float32, rounded once at the output); int32 and int64
// wrap in TFLite's int32/int64 SUM/REDUCE_PROD/MUL/CUMSUM like the reference backend; uint32 and
// uint64 are computed in int32/int64 (BITCAST: the same bits wrap the same), their max/min
// and argMin/argMax with the sign bit flipped (adding the lowest value, wrapping), which maps
// unsigned order to signed order; int8/uint8 (max/min, argMin/argMax) are TFLite's own.
// ARG_MAX/ARG_MIN lack int64, so int64/uint64 argMin/argMax compare each element with the
// REDUCE_MAX/REDUCE_MIN along the axis and take the first match (ARG_MAX of BOOL).
//
// Differences: TFLite's float REDUCE_MAX/REDUCE_MIN and ARG_MAX/ARG_MIN skip a NaN that is not
// the first element where the reference backend propagates it (no WPT case has NaN data);
// float sums accumulate in float32 where the reference accumulates in double.
#include <cstdint>
#include <limits>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_data_movement_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/ops/reduction_params.h"

namespace cppnn::tflite_export {
namespace {

using namespace dm;  // NOLINT(google-build-using-namespace): the data movement helpers

// The ten reductions.
enum class Reduce { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProduct, kSum, kSumSquare };

// Above this rank a reduction works on merged dimensions.
constexpr size_t kMaxDirectRank = 4;

// A unary builtin without options (ABS, SQUARE, SQRT, LOG, EXP) of `x`.
TensorIndex unary(Emitter& e, Op code, TensorIndex x) {
  return e.op1(code, {x}, e.type_of(x), e.shape_of(x));
}

// The lowest value of signed type `t` (INT32 or INT64), whose wrapping addition flips the sign bit.
TensorIndex sign_bit(Emitter& e, TT t) {
  return t == TT::INT64 ? e.scalar(TT::INT64, -9223372036854775808.0)
                        : e.scalar(TT::INT32, -2147483648.0);
}

// |x| of signed integer data, wrapping (|lowest| = lowest, as the reference's 0 - x): ABS for
// int32, MAXIMUM(x, 0 - x) for int64 (ABS lacks int64).
TensorIndex int_abs(Emitter& e, TensorIndex x) {
  if (e.type_of(x) == TT::INT32) return unary(e, Op::ABS, x);
  return binary(e, Op::MAXIMUM, x, binary(e, Op::SUB, e.scalar(e.type_of(x), 0), x));
}

// The reduction `r` of a single element x (nothing reduced), elementwise: |x| (L1, L2), ln x
// (LogSum), x² (SumSquare), else x itself.
TensorIndex reduce_nothing(Emitter& e, Reduce r, TensorIndex x, bool is_unsigned) {
  const bool is_float_data = e.type_of(x) == TT::FLOAT32;
  switch (r) {
    case Reduce::kL1:
    case Reduce::kL2:
      if (is_unsigned) return x;
      return is_float_data ? unary(e, Op::ABS, x) : int_abs(e, x);
    case Reduce::kLogSum:
      return unary(e, Op::LOG, x);
    case Reduce::kSumSquare:
      return is_float_data ? unary(e, Op::SQUARE, x) : binary(e, Op::MUL, x, x);
    default:
      return x;
  }
}

// The TFLite reducer of reduction `r`.
Op reducer_of(Reduce r) {
  switch (r) {
    case Reduce::kMax:
      return Op::REDUCE_MAX;
    case Reduce::kMin:
      return Op::REDUCE_MIN;
    case Reduce::kMean:
      return Op::MEAN;
    case Reduce::kProduct:
      return Op::REDUCE_PROD;
    default:
      return Op::SUM;
  }
}

// Any of the ten reductions (see the top of the file).
void lower_reduce(Emitter& e, const Operation& op, const MLReduceOptions& options, Reduce r) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const TT type = e.type_of(x);
  const bool is_unsigned = type == TT::UINT32 || type == TT::UINT64;
  const bool flip = is_unsigned && (r == Reduce::kMax || r == Reduce::kMin);
  TensorIndex v = as_signed(e, x);
  if (flip) v = binary(e, Op::ADD, v, sign_bit(e, e.type_of(v)));
  const std::vector<uint32_t> axes = reduction_axes(options, shape.size());
  if (axes.empty()) {
    v = reduce_nothing(e, r, v, is_unsigned);
    if (flip) v = binary(e, Op::ADD, v, sign_bit(e, e.type_of(v)));
    bind_result(e, op.outputs[0], v);
    return;
  }
  // The reduced axes, on merged dimensions above rank 4.
  std::vector<bool> reduced(shape.size(), false);
  for (uint32_t a : axes) reduced[a] = true;
  const bool merge = shape.size() > kMaxDirectRank;
  std::vector<int32_t> raxes;
  if (merge) {
    const Runs runs = merge_runs(shape, [&](size_t d) { return reduced[d] == reduced[d + 1]; });
    v = reshaped(e, v, runs.shape);
    for (size_t i = 0; i + 1 < runs.starts.size(); ++i)
      if (reduced[runs.starts[i]]) raxes.push_back(static_cast<int32_t>(i));
  } else {
    raxes = to_i32(axes);
  }
  const bool keep = !merge && options.keepDimensions;
  const bool is_float_data = e.type_of(v) == TT::FLOAT32;
  switch (r) {
    case Reduce::kL1:
      if (!is_unsigned) v = is_float_data ? unary(e, Op::ABS, v) : int_abs(e, v);
      break;
    case Reduce::kL2:
    case Reduce::kSumSquare:
      v = is_float_data ? unary(e, Op::SQUARE, v) : binary(e, Op::MUL, v, v);
      break;
    case Reduce::kLogSumExp: {
      // ln Σ exp(x − m) + m with m the largest element, replaced by 0 when infinite (the plain
      // formula, as the reference), so that exp neither overflows nor underflows.
      const TensorIndex m = reduce(e, Op::REDUCE_MAX, v, raxes, true);
      const TensorIndex finite =
          binary(e, Op::LESS, unary(e, Op::ABS, m),
                 e.scalar(TT::FLOAT32, std::numeric_limits<double>::infinity()));
      const TensorIndex shift = select(e, finite, m, e.scalar(TT::FLOAT32, 0));
      const TensorIndex sum =
          reduce(e, Op::SUM, unary(e, Op::EXP, binary(e, Op::SUB, v, shift)), raxes, true);
      bind_result(e, op.outputs[0], binary(e, Op::ADD, unary(e, Op::LOG, sum), shift));
      return;
    }
    default:
      break;
  }
  v = reduce(e, reducer_of(r), v, raxes, keep);
  if (r == Reduce::kL2) v = unary(e, Op::SQRT, v);
  if (r == Reduce::kLogSum) v = unary(e, Op::LOG, v);
  if (flip) v = binary(e, Op::ADD, v, sign_bit(e, e.type_of(v)));
  bind_result(e, op.outputs[0], v);
}

// argMin/argMax along axis as int32 or int64 (the first extreme element on ties, erratum 12):
// ARG_MIN/ARG_MAX of float32, int32, int8 and uint8 data, of uint32 with the sign bit flipped;
// int64/uint64: ARG_MAX of x == REDUCE_MIN/REDUCE_MAX(x) (the first match). keepDimensions
// RESHAPEs to the output's shape.
void lower_arg(Emitter& e, const Operation& op, uint32_t axis, bool is_max) {
  const TensorIndex x = e.value(op.inputs[0]);
  const TT type = e.type_of(x);
  const TT out_type = compute_type_of(data_type_of(e.graph(), op.outputs[0]));
  Shape shape = e.shape_of(x);
  shape.erase(shape.begin() + axis);
  TensorIndex v = as_signed(e, x);
  if (type == TT::UINT32 || type == TT::UINT64)
    v = binary(e, Op::ADD, v, sign_bit(e, e.type_of(v)));
  if (e.type_of(v) == TT::INT64) {
    const TensorIndex m =
        reduce(e, is_max ? Op::REDUCE_MAX : Op::REDUCE_MIN, v, {static_cast<int32_t>(axis)}, true);
    v = binary(e, Op::EQUAL, v, m);
    is_max = true;
  }
  const TensorIndex axis_t = e.const_i32({static_cast<int32_t>(axis)});
  const TensorIndex r = is_max
                            ? e.op1(Op::ARG_MAX, {v, axis_t}, out_type, shape, Opt::ArgMaxOptions,
                                    tfl::CreateArgMaxOptions(e.fbb(), out_type).Union())
                            : e.op1(Op::ARG_MIN, {v, axis_t}, out_type, shape, Opt::ArgMinOptions,
                                    tfl::CreateArgMinOptions(e.fbb(), out_type).Union());
  bind_result(e, op.outputs[0], r);
}

}  // namespace

bool lowers_reduction(const Graph&, const Operation&) {
  return true;
}

// argMin (row 1): see lower_arg.
void lower_argMin(Emitter& e, const Operation& op, const AttrsOf<OpType::kArgMin>& attrs) {
  lower_arg(e, op, attrs.params.axis, false);
}

// argMax (row 2): see lower_arg.
void lower_argMax(Emitter& e, const Operation& op, const AttrsOf<OpType::kArgMax>& attrs) {
  lower_arg(e, op, attrs.params.axis, true);
}

// cumulativeSum (row 9): CUMSUM along axis with its exclusive and reverse options (uint32/64 as
// int32/64, wrapping alike).
void lower_cumulativeSum(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kCumulativeSum>& attrs) {
  const TensorIndex v = as_signed(e, e.value(op.inputs[0]));
  bind_result(
      e, op.outputs[0],
      e.op1(Op::CUMSUM, {v, i32_scalar(e, static_cast<int32_t>(attrs.params.axis))}, e.type_of(v),
            e.shape_of(v), Opt::CumsumOptions,
            tfl::CreateCumsumOptions(e.fbb(), attrs.options.exclusive, attrs.options.reversed)
                .Union()));
}

// reduceL1 (row 69): SUM(|x|) (ABS; int64 MAXIMUM(x, 0 - x); unsigned x itself).
void lower_reduceL1(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceL1>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kL1);
}

// reduceL2 (row 70): SQRT(SUM(SQUARE(x))).
void lower_reduceL2(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceL2>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kL2);
}

// reduceLogSum (row 71): LOG(SUM(x)).
void lower_reduceLogSum(Emitter& e, const Operation& op,
                        const AttrsOf<OpType::kReduceLogSum>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kLogSum);
}

// reduceLogSumExp (row 72): LOG(SUM(EXP(x − m))) + m, m the finite REDUCE_MAX or 0.
void lower_reduceLogSumExp(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kReduceLogSumExp>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kLogSumExp);
}

// reduceMax (row 73): REDUCE_MAX (unsigned 32/64-bit with the sign bit flipped).
void lower_reduceMax(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMax>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMax);
}

// reduceMean (row 74): MEAN.
void lower_reduceMean(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMean>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMean);
}

// reduceMin (row 75): REDUCE_MIN (unsigned 32/64-bit with the sign bit flipped).
void lower_reduceMin(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceMin>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kMin);
}

// reduceProduct (row 76): REDUCE_PROD (integers wrap).
void lower_reduceProduct(Emitter& e, const Operation& op,
                         const AttrsOf<OpType::kReduceProduct>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kProduct);
}

// reduceSum (row 77): SUM (integers wrap).
void lower_reduceSum(Emitter& e, const Operation& op, const AttrsOf<OpType::kReduceSum>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kSum);
}

// reduceSumSquare (row 78): SUM(SQUARE(x)) (integers: SUM(MUL(x, x)), wrapping).
void lower_reduceSumSquare(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kReduceSumSquare>& attrs) {
  lower_reduce(e, op, attrs.options, Reduce::kSumSquare);
}

}  // namespace cppnn::tflite_export
