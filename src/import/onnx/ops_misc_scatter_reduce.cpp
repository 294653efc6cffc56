// Accumulating ScatterND / ScatterElements (see ops_misc_scatter_reduce.h). ONNX applies the
// updates one after the other, out[idx] = f(out[idx], update), so an element addressed several
// times combines all its updates. WebNN's scatters replace, so the updates are routed by a one-hot
// comparison instead: for every target position t and update n, hit[t, n] = (index(n) == t);
// where(hit, update, neutral) reduced over n with f's reduction (reduceSum, reduceProduct,
// reduceMax, reduceMin) gives the combined updates per target, neutral (0, 1, lowest, highest)
// where nothing lands, and f(data, combined) is the result: exact for add on integers and for
// max / min; for floats the updates are summed (multiplied) before they meet the data, a
// reassociation within rounding. The masked tensor has targets x updates x slice elements and is
// bounded by kMaxDecompositionElements.
#include "src/import/onnx/ops_misc_scatter_reduce.h"

#include <limits>

#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

enum class Reduction { kAdd, kMul, kMax, kMin };

// ONNX's reduction attribute (add and mul since opset 16, max and min since 18).
Reduction parse_reduction(const NodeContext& c, const std::string& s) {
  if (s == "add") return Reduction::kAdd;
  if (s == "mul") return Reduction::kMul;
  if (s == "max" || s == "min") {
    if (c.opset() < 18) c.invalid("reduction '" + s + "' needs opset 18");
    return s == "max" ? Reduction::kMax : Reduction::kMin;
  }
  c.invalid("unknown reduction '" + s + "'");
}

// The lowest (or highest) value of `t`: ±infinity for floats.
MLNumber extreme(const NodeContext& c, DT t, bool highest) {
  switch (t) {
    case DT::kFloat32:
    case DT::kFloat16:
      return highest ? std::numeric_limits<double>::infinity()
                     : -std::numeric_limits<double>::infinity();
    case DT::kInt8:
      return highest ? int64_t{INT8_MAX} : int64_t{INT8_MIN};
    case DT::kUint8:
      return highest ? uint64_t{UINT8_MAX} : uint64_t{0};
    case DT::kInt32:
      return highest ? int64_t{INT32_MAX} : int64_t{INT32_MIN};
    case DT::kUint32:
      return highest ? uint64_t{UINT32_MAX} : uint64_t{0};
    case DT::kInt64:
      return highest ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    case DT::kUint64:
      return highest ? std::numeric_limits<uint64_t>::max() : uint64_t{0};
    default:
      c.unsupported("a max / min scatter of this data type");
  }
}

// The value that leaves f unchanged: 0 (add), 1 (mul), lowest (max), highest (min).
MLNumber neutral(const NodeContext& c, DT t, Reduction r) {
  switch (r) {
    case Reduction::kAdd:
      return int64_t{0};
    case Reduction::kMul:
      return int64_t{1};
    case Reduction::kMax:
      return extreme(c, t, false);
    case Reduction::kMin:
      return extreme(c, t, true);
  }
  return int64_t{0};
}

// `x` reduced over `axis` with r's reduction.
MLOperand reduce(NodeContext& c, Reduction r, const MLOperand& x, uint32_t axis) {
  MLGraphBuilder& b = c.builder();
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.axes = std::vector<uint32_t>{axis};
  switch (r) {
    case Reduction::kAdd:
      return b.reduceSum(x, o);
    case Reduction::kMul:
      return b.reduceProduct(x, o);
    case Reduction::kMax:
      return b.reduceMax(x, o);
    case Reduction::kMin:
      return b.reduceMin(x, o);
  }
  return x;
}

// f(data, combined).
MLOperand combine(NodeContext& c, Reduction r, const MLOperand& data, const MLOperand& combined) {
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  switch (r) {
    case Reduction::kAdd:
      return b.add(data, combined, o);
    case Reduction::kMul:
      return b.mul(data, combined, o);
    case Reduction::kMax:
      return b.max(data, combined, o);
    case Reduction::kMin:
      return b.min(data, combined, o);
  }
  return data;
}

// where(hit, updates, neutral) reduced over `axis`: the combined updates per target.
MLOperand combined_updates(NodeContext& c, Reduction r, const MLOperand& hit,
                           const MLOperand& updates, uint32_t axis) {
  MLGraphBuilder& b = c.builder();
  const DT t = updates.dataType();
  const MLOperand fill = b.constant(t, neutral(c, t, r));
  return reduce(c, r, b.where(hit, updates, fill, c.opts<MLOperatorOptions>()), axis);
}

// Input `i` (int32 / int64 indices) as int32 with negative values wrapped: element e uses
// dims[e % dims.size()]. Known indices are checked against [-d, d) (DataError).
MLOperand wrapped_int32(NodeContext& c, size_t i, const std::vector<int64_t>& dims) {
  for (const int64_t d : dims)
    if (d > INT32_MAX) c.unsupported("an accumulating scatter along a dimension over 2^31-1");
  return wrapped_indices(c, i, dims, DT::kInt32);
}

// [0, 1, .., n - 1] as int32 with `shape` (n elements along one axis, 1 elsewhere).
MLOperand iota(NodeContext& c, uint32_t n, std::vector<uint32_t> shape) {
  std::vector<int64_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
  return c.constant_operand(HostTensor::of_int64(v, std::move(shape), DT::kInt32));
}

}  // namespace

// ScatterND: data [D0 .. D(r-1)], indices [L.., k], updates [L.., Dk .. D(r-1)]. Viewed as
// data [T, S] (T = D0 * .. * D(k-1) targets of S elements) and updates [N, S]; each index row
// addresses target sum_j index[j] * stride_j.
void scatter_nd_reduce(NodeContext& c, const std::string& reduction) {
  const Reduction r = parse_reduction(c, reduction);
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const std::vector<uint32_t>& ishape = c.input_shape(1);
  if (ishape.empty()) c.invalid("indices need rank >= 1");
  const size_t k = ishape.back();
  if (k < 1 || k > shape.size()) c.invalid("the index length must be in [1, data rank]");
  std::vector<uint32_t> expected(ishape.begin(), ishape.end() - 1);
  expected.insert(expected.end(), shape.begin() + static_cast<std::ptrdiff_t>(k), shape.end());
  if (c.input_shape(2) != expected) c.invalid("updates must have shape indices[:-1] ++ data[k:]");
  const uint64_t n = element_count(std::vector<uint32_t>(ishape.begin(), ishape.end() - 1));
  const uint64_t t = element_count(
      std::vector<uint32_t>(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(k)));
  const uint64_t s = element_count(
      std::vector<uint32_t>(shape.begin() + static_cast<std::ptrdiff_t>(k), shape.end()));
  if (t > INT32_MAX) c.unsupported("an accumulating scatterND over more than 2^31-1 targets");
  bounded_product(c, {t, n, s}, "the accumulating scatterND");
  const auto t32 = static_cast<uint32_t>(t), n32 = static_cast<uint32_t>(n),
             s32 = static_cast<uint32_t>(s);

  std::vector<int64_t> dims(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(k));
  std::vector<int64_t> strides(k, 1);
  for (size_t j = k - 1; j-- > 0;) strides[j] = strides[j + 1] * dims[j + 1];
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  // The target of every index row, [1, N].
  MLOperand rows;
  if (c.input_type(1) != DT::kInt32 && c.input_type(1) != DT::kInt64)
    c.invalid("indices must be int32 or int64");
  if (c.is_constant(1)) {
    std::vector<int64_t> v = c.ints(1, "indices"), flat(n, 0);
    for (uint64_t row = 0; row < n; ++row) {
      for (size_t j = 0; j < k; ++j) {
        int64_t x = v[row * k + j];
        if (x < -dims[j] || x >= dims[j])
          c.invalid("index " + std::to_string(x) + " is out of range");
        flat[row] += (x < 0 ? x + dims[j] : x) * strides[j];
      }
    }
    rows = c.constant_operand(HostTensor::of_int64(flat, {1, n32}, DT::kInt32));
  } else {
    MLOperand idx = b.reshape(wrapped_int32(c, 1, dims), {n32, static_cast<uint32_t>(k)}, o);
    if (k > 1) {
      MLReduceOptions ro = c.opts<MLReduceOptions>();
      ro.axes = std::vector<uint32_t>{1};
      idx = b.reduceSum(b.mul(idx, c.constant_ints(strides, DT::kInt32), o), ro);
    }
    rows = b.reshape(idx, {1, n32}, o);
  }
  MLOperand hit = b.reshape(b.equal(iota(c, t32, {t32, 1}), rows, o), {t32, n32, 1}, o);
  MLOperand updates = b.reshape(c.input(2), {1, n32, s32}, o);
  MLOperand combined = combined_updates(c, r, hit, updates, 1);  // [T, S]
  MLOperand data = b.reshape(c.input(0), {t32, s32}, o);
  c.set_output(0, b.reshape(combine(c, r, data, combined), shape, o));
}

// ScatterElements: out[i0 .. index[p] .. i(r-1)] = f(., updates[p]) along `axis`. The comparison
// gets its own axis for the target coordinate, inserted before the indices' `axis`:
// hit[.., t, p_axis, ..] = (index[.., p_axis, ..] == t), reduced over p_axis, then padded to the
// data's shape (indices may be smaller than the data along the other axes) with the neutral value.
void scatter_elements_reduce(NodeContext& c, const std::string& reduction) {
  const Reduction r = parse_reduction(c, reduction);
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const std::vector<uint32_t>& ishape = c.input_shape(1);
  const size_t rank = shape.size();
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), rank);
  if (ishape.size() != rank) c.invalid("indices must have the data's rank");
  for (size_t j = 0; j < rank; ++j)
    if (j != axis && ishape[j] > shape[j]) c.invalid("indices exceed the data's shape");
  if (c.input_shape(2) != ishape) c.invalid("updates must have the indices' shape");
  const uint32_t d = shape[axis];
  bounded_product(c, {element_count(ishape), d}, "the accumulating scatterElements");

  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  std::vector<uint32_t> expanded = ishape;
  expanded.insert(expanded.begin() + axis, 1u);
  MLOperand idx = b.reshape(wrapped_int32(c, 1, {d}), expanded, o);
  std::vector<uint32_t> ishape1(rank + 1, 1);
  ishape1[axis] = d;
  MLOperand hit = b.equal(iota(c, d, ishape1), idx, o);
  MLOperand updates = b.reshape(c.input(2), expanded, o);
  MLOperand combined = combined_updates(c, r, hit, updates, axis + 1);  // indices' shape, d at axis
  std::vector<uint32_t> begin(rank, 0), end(rank, 0);
  bool pad = false;
  for (size_t j = 0; j < rank; ++j) {
    if (j == axis) continue;
    end[j] = shape[j] - ishape[j];
    pad = pad || end[j] != 0;
  }
  if (pad) {
    MLPadOptions po = c.opts<MLPadOptions>();
    po.value = neutral(c, combined.dataType(), r);
    combined = b.pad(combined, begin, end, po);
  }
  c.set_output(0, combine(c, r, c.input(0), combined));
}

}  // namespace cppnn::onnx_import
