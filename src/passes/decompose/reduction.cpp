// Decompositions of the reduction ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). reduceSum and
// reduceMax are the primitives; every other reduction, argMin/argMax and cumulativeSum is built
// from them and elementwise ops. Sums of products (reduceSumSquare, reduceL2, the float
// cumulativeSum) go through matmul, which accumulates in double and rounds once like the reference
// kernels; float16 is computed in float32 where several rounded ops follow each other.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "src/ops/reduction_params.h"
#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

// The float cumulativeSum uses a [K, K] constant matrix up to this K, plain log-step sums above.
constexpr uint32_t kMaxScanMatrix = 1024;

// One reduction being decomposed: its mapped input, the reduced axes (absent: all), the option
// keepDimensions and the descriptor to produce.
struct Reduction {
  MLOperand x;
  std::vector<uint32_t> axes;
  bool keep = false;
  MLOperandDescriptor out;
  uint64_t count = 1;  // elements reduced into each output element
};

// The reduction ctx decomposes (any of the 10: they share MLReduceOptions).
template <OpType T>
Reduction reduction_of(DecomposeContext& c) {
  const MLReduceOptions& o = c.attrs<T>().options;
  const std::vector<uint32_t> shape = c.input(0).shape();
  Reduction r{c.input(0), reduction_axes(o, shape.size()), o.keepDimensions, c.output_desc(0)};
  for (uint32_t a : r.axes) r.count *= shape[a];
  return r;
}

// The options of a reduction over `axes`, keeping the reduced dimensions as 1 when `keep`.
MLReduceOptions reduce_options(const std::vector<uint32_t>& axes, bool keep) {
  return {.axes = axes, .keepDimensions = keep};
}

// x reshaped to `shape` (no op when it has that shape already).
MLOperand reshaped(MLGraphBuilder& b, const MLOperand& x, const std::vector<uint32_t>& shape) {
  return x.shape() == shape ? x : b.reshape(x, shape);
}

// x (computed in float32 for a float16 reduction) as the reduction's output.
MLOperand finish(MLGraphBuilder& b, const MLOperand& x, const Reduction& r) {
  return reshaped(b, narrow(b, x, r.out.dataType), r.out.shape);
}

// The order-reversing bijection of x's type: -x for floats (exact, keeps NaN), -1 - x (bitwise
// not) for signed integers and MAX - x for unsigned ones, so min(x) = flip(max(flip(x))).
MLOperand flip(MLGraphBuilder& b, const MLOperand& x) {
  const MLOperandDataType t = x.dataType();
  if (is_float(t)) return b.mul(x, scalar(b, t, -1));
  if (is_unsigned(t)) return b.sub(scalar(b, t, std::numeric_limits<uint64_t>::max()), x);
  return b.sub(scalar(b, t, -1), x);
}

// |x| exactly: 0 - x where x <= 0 (so -0 becomes +0, as the reference's fabs), x elsewhere (NaN
// kept); integers wrap (|lowest| is lowest) and unsigned values are their own magnitude.
MLOperand magnitude(MLGraphBuilder& b, const MLOperand& x) {
  if (is_unsigned(x.dataType())) return x;
  const MLOperand zero = scalar_like(b, x, 0);
  return b.where(b.lesserOrEqual(x, zero), b.sub(zero, x), x);
}

// x as rows [G, K]: the kept axes (in order) first, then the reduced ones, K their element count.
MLOperand as_rows(MLGraphBuilder& b, const MLOperand& x, const std::vector<uint32_t>& axes) {
  const std::vector<uint32_t> shape = x.shape();
  std::vector<bool> reduced(shape.size(), false);
  for (uint32_t a : axes) reduced[a] = true;
  std::vector<uint32_t> perm;
  uint64_t kept = 1, inner = 1;
  for (bool take_reduced : {false, true}) {
    for (uint32_t i = 0; i < shape.size(); ++i) {
      if (reduced[i] != take_reduced) continue;
      perm.push_back(i);
      (take_reduced ? inner : kept) *= shape[i];
    }
  }
  std::vector<uint32_t> identity(shape.size());
  std::iota(identity.begin(), identity.end(), 0u);
  const MLOperand moved = perm == identity ? x : b.transpose(x, {.permutation = perm});
  return reshaped(b, moved, {static_cast<uint32_t>(kept), static_cast<uint32_t>(inner)});
}

// Σx² over `axes` of a float x, as [G, 1, 1]: a batched matmul of each row with itself, which
// accumulates the products in double and rounds once (reference reduceSumSquare).
MLOperand float_sum_of_squares(MLGraphBuilder& b, const MLOperand& x,
                               const std::vector<uint32_t>& axes) {
  const MLOperand rows = as_rows(b, x, axes);
  const std::vector<uint32_t> gk = rows.shape();
  return b.matmul(b.reshape(rows, {gk[0], 1, gk[1]}), b.reshape(rows, {gk[0], gk[1], 1}));
}

// Σx² over the reduction's axes: matmul for floats, wrapping x·x summed for integers.
MLOperand sum_of_squares(MLGraphBuilder& b, const MLOperand& x, const Reduction& r) {
  if (is_float(x.dataType())) return float_sum_of_squares(b, x, r.axes);
  return b.reduceSum(b.mul(x, x), reduce_options(r.axes, r.keep));
}

// reduceL1 = reduceSum(|x|) (spec emulation); |x| is exact, so the sum rounds once.
std::vector<MLOperand> decompose_reduce_l1(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceL1>(c);
  return {finish(b, b.reduceSum(magnitude(b, r.x), reduce_options(r.axes, r.keep)), r)};
}

// reduceSumSquare = Σx² (spec emulation reduceSum(mul(x, x)); floats through matmul).
std::vector<MLOperand> decompose_reduce_sum_square(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceSumSquare>(c);
  return {finish(b, sum_of_squares(b, r.x, r), r)};
}

// reduceL2 = √Σx² (spec emulation), float16 in float32.
std::vector<MLOperand> decompose_reduce_l2(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceL2>(c);
  if (r.count == 1) return {finish(b, magnitude(b, r.x), r)};  // exactly |x|, as √(x²) in double
  return {finish(b, b.sqrt(float_sum_of_squares(b, widen(b, r.x), r.axes)), r)};
}

// reduceMean = reduceSum(x) / count (spec emulation), float16 in float32.
std::vector<MLOperand> decompose_reduce_mean(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceMean>(c);
  const MLOperand sum = b.reduceSum(widen(b, r.x), reduce_options(r.axes, r.keep));
  return {finish(b, b.div(sum, scalar_like(b, sum, static_cast<double>(r.count))), r)};
}

// reduceLogSum = ln reduceSum(x) (spec emulation), float16 in float32.
std::vector<MLOperand> decompose_reduce_log_sum(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceLogSum>(c);
  return {finish(b, b.log(b.reduceSum(widen(b, r.x), reduce_options(r.axes, r.keep))), r)};
}

// reduceLogSumExp = m + ln Σ exp(x - m) with m the largest element (the reference's shifted
// form), m taken as 0 where it is not finite (the plain formula); a single element is itself.
std::vector<MLOperand> decompose_reduce_log_sum_exp(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceLogSumExp>(c);
  if (r.count == 1) return {finish(b, r.x, r)};
  const MLOperand x = widen(b, r.x);
  const MLOperand m = b.reduceMax(x, reduce_options(r.axes, true));
  const MLOperand zero = scalar_like(b, m, 0);
  const MLOperand shift = b.where(b.equal(b.sub(m, m), zero), m, zero);
  const MLOperand sum = b.reduceSum(b.exp(b.sub(x, shift)), reduce_options(r.axes, true));
  return {finish(b, b.add(shift, b.log(sum)), r)};
}

// reduceMin(x) = flip(reduceMax(flip(x))), flip the order-reversing bijection: bit-exact, NaN
// propagating like reduceMax.
std::vector<MLOperand> decompose_reduce_min(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceMin>(c);
  return {finish(b, flip(b, b.reduceMax(flip(b, r.x), reduce_options(r.axes, r.keep))), r)};
}

// The elements [start, start + size) of x along `axis`.
MLOperand slice_axis(MLGraphBuilder& b, const MLOperand& x, uint32_t axis, uint32_t start,
                     uint32_t size) {
  std::vector<uint32_t> starts(x.shape().size(), 0), sizes = x.shape();
  starts[axis] = start;
  sizes[axis] = size;
  return b.slice(x, starts, sizes);
}

// The product along `axis` of x (kept as size 1): halves multiplied pairwise, the odd last element
// carried over, until one is left.
MLOperand product_along(MLGraphBuilder& b, MLOperand x, uint32_t axis) {
  for (uint32_t n = x.shape()[axis]; n > 1; n = n / 2 + n % 2) {
    const uint32_t half = n / 2;
    MLOperand p = b.mul(slice_axis(b, x, axis, 0, half), slice_axis(b, x, axis, half, half));
    if (n % 2) p = b.concat({p, slice_axis(b, x, axis, 2 * half, 1)}, axis);
    x = p;
  }
  return x;
}

// reduceProduct = Πx by pairwise multiplication along each reduced axis (exact wrapping products
// for integers, no log/exp), float16 in float32.
std::vector<MLOperand> decompose_reduce_product(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Reduction r = reduction_of<OpType::kReduceProduct>(c);
  if (r.count == 1) return {finish(b, r.x, r)};
  MLOperand x = widen(b, r.x);
  for (uint32_t a : r.axes) x = product_along(b, x, a);
  return {finish(b, x, r)};
}

// The index of the first largest element of x along `axis`, as `type` (kept as size 1):
// K - max over the axis of (K - i where x[i] is the maximum or NaN, else 0). reduceMax gives the
// maximum; a NaN along the axis makes it NaN, and then the first NaN is the one found.
MLOperand first_max_index(MLGraphBuilder& b, const MLOperand& x, uint32_t axis,
                          MLOperandDataType type, bool keep) {
  const std::vector<uint32_t> shape = x.shape();
  const uint32_t k = shape[axis];
  MLOperand hit = b.equal(x, b.reduceMax(x, reduce_options({axis}, true)));
  if (is_float(x.dataType())) hit = b.max(hit, b.logicalNot(b.equal(x, x)));
  std::vector<MLNumber> countdown;
  for (uint32_t i = 0; i < k; ++i) countdown.emplace_back(static_cast<long long>(k - i));
  std::vector<uint32_t> column(shape.size() - axis, 1);
  column[0] = k;
  const MLOperand picked =
      b.where(hit, constant_of(b, type, column, countdown), scalar(b, type, 0));
  return b.sub(scalar(b, type, k), b.reduceMax(picked, reduce_options({axis}, keep)));
}

// argMax: the first index of the largest element (reference kernel, erratum §6.12).
std::vector<MLOperand> decompose_arg_max(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& attrs = c.attrs<OpType::kArgMax>();
  const MLOperand y = first_max_index(b, c.input(0), attrs.params.axis,
                                      attrs.options.outputDataType, attrs.options.keepDimensions);
  return {reshaped(b, y, c.output_desc(0).shape)};
}

// argMin(x) = argMax(flip(x)): flip reverses the order exactly, so ties and NaN stay first.
std::vector<MLOperand> decompose_arg_min(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& attrs = c.attrs<OpType::kArgMin>();
  const MLOperand y = first_max_index(b, flip(b, c.input(0)), attrs.params.axis,
                                      attrs.options.outputDataType, attrs.options.keepDimensions);
  return {reshaped(b, y, c.output_desc(0).shape)};
}

// x moved by `s` along `axis` toward the end (toward the start when `reversed`), the freed
// places holding `fill`.
MLOperand shifted(MLGraphBuilder& b, const MLOperand& x, uint32_t axis, uint32_t s, bool reversed,
                  MLNumber fill) {
  std::vector<uint32_t> pad_shape = x.shape();
  const uint32_t k = pad_shape[axis];
  pad_shape[axis] = std::min(s, k);
  const MLOperand pad = filled(b, {x.dataType(), pad_shape}, fill);
  if (s >= k) return pad;
  if (reversed) return b.concat({slice_axis(b, x, axis, s, k - s), pad}, axis);
  return b.concat({pad, slice_axis(b, x, axis, 0, k - s)}, axis);
}

// The running sum along `axis` by log-step (Hillis-Steele) prefix sums: exact for integers and
// for the infinities, NaN and signed zeros of floats (the pads are -0, the identity of +). The
// exclusive sum is the inclusive one moved by one, its first element the empty sum +0, as the
// reference kernel writes it.
MLOperand log_step_scan(MLGraphBuilder& b, MLOperand x, uint32_t axis,
                        const MLCumulativeSumOptions& o) {
  const uint32_t k = x.shape()[axis];
  const MLNumber identity = is_float(x.dataType()) ? MLNumber(-0.0) : MLNumber(0);
  for (uint32_t s = 1; s < k; s *= 2) x = b.add(x, shifted(b, x, axis, s, o.reversed, identity));
  return o.exclusive ? shifted(b, x, axis, 1, o.reversed, 0) : x;
}

// The [K, K] matrix t with y = x·t the running sum of a row x: t[i][j] = 1 where input i counts
// toward output j (i <= j; i < j when exclusive; mirrored when reversed).
MLOperand scan_matrix(MLGraphBuilder& b, MLOperandDataType type, uint32_t k,
                      const MLCumulativeSumOptions& o) {
  std::vector<MLNumber> t;
  t.reserve(static_cast<size_t>(k) * k);
  for (uint32_t i = 0; i < k; ++i) {
    for (uint32_t j = 0; j < k; ++j) {
      const bool counts =
          o.reversed ? (o.exclusive ? i > j : i >= j) : (o.exclusive ? i < j : i <= j);
      t.emplace_back(counts ? 1 : 0);
    }
  }
  return constant_of(b, type, {k, k}, t);
}

// The running sum of finite float data along `axis` as one matmul with scan_matrix (accumulated
// in double, rounded once, like the reference kernel).
MLOperand matmul_scan(MLGraphBuilder& b, const MLOperand& x, uint32_t axis,
                      const MLCumulativeSumOptions& o) {
  const std::vector<uint32_t> shape = x.shape();
  const uint32_t rank = static_cast<uint32_t>(shape.size());
  std::vector<uint32_t> perm;
  for (uint32_t i = 0; i < rank; ++i)
    if (i != axis) perm.push_back(i);
  perm.push_back(axis);
  std::vector<uint32_t> inverse(rank);
  for (uint32_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
  const MLOperand t = scan_matrix(b, x.dataType(), shape[axis], o);
  if (rank == 1) return b.reshape(b.matmul(b.reshape(x, {1, shape[0]}), t), shape);
  if (axis == rank - 1) return b.matmul(x, t);
  const MLOperand y = b.matmul(b.transpose(x, {.permutation = perm}), t);
  return b.transpose(y, {.permutation = inverse});
}

// The float running sum: the finite elements through matmul_scan (one rounding), the zeros, the
// infinities and NaN through log_step_scan (exact), then combined: the log-step sum where the
// finite sum is 0 (its sign of zero, or a non-finite value), their sum elsewhere.
MLOperand float_scan(MLGraphBuilder& b, const MLOperand& x, uint32_t axis,
                     const MLCumulativeSumOptions& o) {
  const MLOperand zero = scalar_like(b, x, 0);
  const MLOperand finite = b.equal(b.sub(x, x), zero);
  const MLOperand sums = matmul_scan(b, b.where(finite, x, zero), axis, o);
  const MLOperand specials = b.where(b.equal(x, zero), x, b.where(finite, zero, x));
  const MLOperand rest = log_step_scan(b, specials, axis, o);
  return b.where(b.equal(sums, zero), rest, b.add(sums, rest));
}

// cumulativeSum (axis, exclusive, reversed): log-step prefix sums for integers (exact, wrapping),
// float_scan for floats; a long float axis uses log-step sums in float32.
std::vector<MLOperand> decompose_cumulative_sum(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& attrs = c.attrs<OpType::kCumulativeSum>();
  const uint32_t axis = attrs.params.axis;
  const MLOperand x = c.input(0);
  if (!is_float(x.dataType())) return {log_step_scan(b, x, axis, attrs.options)};
  if (x.shape()[axis] <= kMaxScanMatrix) return {float_scan(b, x, axis, attrs.options)};
  return {narrow(b, log_step_scan(b, widen(b, x), axis, attrs.options), x.dataType())};
}

}  // namespace

void register_reduction(DecompositionTable& t) {
  using enum OpType;
  using namespace dt;
  const DataTypeMask index_types = kI32 | kI64;
  t.add(kReduceL1, decompose_reduce_l1,
        {{kLesserOrEqual}, {kSub}, {kWhere, kU8}, {kReduceSum}, {kReshape}});
  t.add(kReduceSumSquare, decompose_reduce_sum_square,
        {{kMul}, {kReduceSum}, {kTranspose}, {kReshape}, {kMatmul, kFloat}});
  t.add(kReduceL2, decompose_reduce_l2,
        {{kCast},
         {kTranspose},
         {kReshape},
         {kMatmul},
         {kSqrt},
         {kLesserOrEqual},
         {kSub},
         {kWhere, kU8}});
  t.add(kReduceMean, decompose_reduce_mean, {{kCast}, {kReduceSum}, {kDiv}, {kReshape}});
  t.add(kReduceLogSum, decompose_reduce_log_sum, {{kCast}, {kReduceSum}, {kLog}, {kReshape}});
  t.add(kReduceLogSumExp, decompose_reduce_log_sum_exp,
        {{kCast},
         {kReduceMax},
         {kSub},
         {kEqual},
         {kWhere, kU8},
         {kExp},
         {kReduceSum},
         {kLog},
         {kAdd},
         {kReshape}});
  t.add(kReduceMin, decompose_reduce_min, {{kMul}, {kSub}, {kReduceMax}, {kReshape}});
  t.add(kReduceProduct, decompose_reduce_product,
        {{kCast}, {kSlice}, {kMul}, {kConcat}, {kReshape}});
  const std::vector<DecompositionUse> arg_uses{{kMul},
                                               {kSub},
                                               {kReduceMax},
                                               {kEqual},
                                               {kLogicalNot, kU8},
                                               {kMax, kU8},
                                               {kWhere, kU8},
                                               {kReduceMax, index_types},
                                               {kSub, index_types},
                                               {kReshape, index_types}};
  t.add(kArgMax, decompose_arg_max, arg_uses);
  t.add(kArgMin, decompose_arg_min, arg_uses);
  t.add(kCumulativeSum, decompose_cumulative_sum,
        {{kAdd},
         {kSlice},
         {kConcat},
         {kSub},
         {kEqual},
         {kWhere, kU8},
         {kTranspose},
         {kReshape},
         {kMatmul, kFloat},
         {kCast}});
}

}  // namespace cppnn::passes
