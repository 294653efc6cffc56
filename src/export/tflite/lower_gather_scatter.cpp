// TFLite lowerings of the gather and scatter ops (lower.h; webnn-spec.md §2 rows 48-50, 83-84,
// §6 errata 3, 4, 11, 12): GATHER, GATHER_ND, and for the ops TFLite lacks or whose semantics
// differ, GATHER at computed flat positions with SELECT_V2.
//
// Indices (int32, uint32 or int64): WebNN clamps an index into −d..d−1 and then wraps a negative
// one (WPT, erratum 12); TFLite's GATHER and GATHER_ND fail on an out-of-range index. Constant
// indices are resolved at conversion time (an INT32 constant); other indices in the model:
// MINIMUM/MAXIMUM with the bounds, then FLOOR_MOD d (int32, int64 then CAST to INT32; uint32 is
// CAST to INT64 and only clamped above).
//
// Scatters: WebNN writes the updates into a copy of the input in row-major order, so with
// duplicate indices the last one wins; TFLite's SCATTER_ND zero-fills and sums duplicates. So
// every output element reads its value by GATHER from the updates at the position of the last
// update written to it, and SELECT_V2 keeps the input where none is. For constant indices the
// positions and the mask are constants computed here; for others the last writer is found in the
// model: EQUAL of each update's target against every output position, SELECT_V2 of the writer
// numbers, REDUCE_MAX.
//
// Data types: every WebNN type; GATHER and GATHER_ND lack uint32/uint64, which move as int32/int64
// (BITCAST, bit for bit). Flat positions are int32: inputs of 2^31 elements or more are refused.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_data_movement_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export {
namespace {

using namespace dm;  // NOLINT(google-build-using-namespace): the data movement helpers

// An index value resolved against a dimension of size d: clamped into −d..d−1, then wrapped (as
// the reference backend's resolve_index).
int32_t resolve_index(int64_t value, int64_t d) {
  const int64_t v = std::clamp<int64_t>(value, -d, d - 1);
  return static_cast<int32_t>(v < 0 ? v + d : v);
}

// The raw values of constant index tensor `t` (INT32, UINT32 or INT64) as int64.
std::vector<int64_t> index_values(Emitter& e, TensorIndex t) {
  const auto bytes = e.constant_bytes(t);
  const size_t size = element_size(e.type_of(t));
  std::vector<int64_t> v(bytes.size() / size);
  for (size_t i = 0; i < v.size(); ++i) {
    const std::byte* p = bytes.data() + i * size;
    if (e.type_of(t) == TT::INT32) {
      int32_t x;
      std::memcpy(&x, p, 4);
      v[i] = x;
    } else if (e.type_of(t) == TT::UINT32) {
      uint32_t x;
      std::memcpy(&x, p, 4);
      v[i] = x;
    } else {
      std::memcpy(&v[i], p, 8);
    }
  }
  return v;
}

// The index tensor `t` resolved into 0..d−1 as INT32, element i against dims[i % k] (k =
// dims.size(): one dimension, the axis, for gather, gatherElements and scatterElements; the first
// k dimensions of the data for the ND ops, each index tuple a row of k). `values` receives the
// resolved values of constant indices (and stays empty otherwise).
TensorIndex resolve(Emitter& e, TensorIndex t, const std::vector<int32_t>& dims, bool tuples,
                    std::vector<int32_t>& values) {
  const size_t k = dims.size();
  if (e.is_constant(t)) {
    const std::vector<int64_t> raw = index_values(e, t);
    values.resize(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) values[i] = resolve_index(raw[i], dims[i % k]);
    return i32_constant(e, e.shape_of(t), values);
  }
  const TT wide = e.type_of(t) == TT::INT32 ? TT::INT32 : TT::INT64;
  // One scalar bound for an axis; a row of k bounds (broadcast over the tuples) for the ND ops.
  auto bound = [&](int64_t offset, int64_t scale) {
    std::vector<int64_t> v;
    for (int32_t d : dims) v.push_back(int64_t{d} * scale + offset);
    if (!tuples) return e.scalar(wide, static_cast<double>(v[0]));
    if (wide == TT::INT64) return e.const_i64(v);
    return e.const_i32(std::vector<int32_t>(v.begin(), v.end()));
  };
  TensorIndex v = e.cast(t, wide);
  v = binary(e, Op::MINIMUM, v, bound(-1, 1));
  if (e.type_of(t) != TT::UINT32) {
    v = binary(e, Op::MAXIMUM, v, bound(0, -1));
    v = binary(e, Op::FLOOR_MOD, v, bound(0, 1));
  }
  return e.cast(v, TT::INT32);
}

// Refuses data of 2^31 elements or more (flat positions are int32).
void check_flat(const Shape& shape) {
  if (count_of(shape) > std::numeric_limits<int32_t>::max())
    throw NotSupportedError("tflite: more than 2^31 - 1 elements to index");
}

// The product of shape[begin, end).
int32_t product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= shape[d];
  return static_cast<int32_t>(p);
}

}  // namespace

bool lowers_gather_scatter(const Graph&, const Operation&) {
  return true;
}

// gather (row 48): GATHER along axis at the resolved indices; out = input.shape[:axis] ++
// indices.shape ++ input.shape[axis+1:] (0-D for a 1-D input and 0-D indices, erratum 11).
void lower_gather(Emitter& e, const Operation& op, const AttrsOf<OpType::kGather>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const size_t axis = attrs.options.axis;
  std::vector<int32_t> values;
  const TensorIndex at = resolve(e, e.value(op.inputs[1]), {e.shape_of(x)[axis]}, false, values);
  bind_result(e, op.outputs[0], gather(e, as_signed(e, x), at, axis));
}

// gatherElements (row 49): out[p] = input[p with p[axis] = index(indices[p])], of indices.shape
// (erratum 3): GATHER from the flattened input at flat positions Σ p[d]·stride[d] (constant, or
// the resolved indices times the axis stride plus a constant of the other terms).
void lower_gatherElements(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGatherElements>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  check_flat(shape);
  const size_t axis = attrs.options.axis;
  const TensorIndex idx = e.value(op.inputs[1]);
  const Shape ishape = e.shape_of(idx);
  const std::vector<int64_t> stride = strides_of(shape);
  // base[q] = Σ_{d != axis} q[d]·stride[d] over ishape with a 1 at axis.
  Shape bshape = ishape;
  bshape[axis] = 1;
  std::vector<int32_t> base(static_cast<size_t>(count_of(bshape)));
  const std::vector<int64_t> bstride = strides_of(bshape);
  for (size_t i = 0; i < base.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < bshape.size(); ++d)
      off += (static_cast<int64_t>(i) / bstride[d] % bshape[d]) * stride[d];
    base[i] = static_cast<int32_t>(off);
  }
  std::vector<int32_t> values;
  const TensorIndex at = resolve(e, idx, {shape[axis]}, false, values);
  TensorIndex positions;
  if (!values.empty()) {
    const std::vector<int64_t> istride = strides_of(ishape);
    std::vector<int32_t> flat(values.size());
    for (size_t i = 0; i < flat.size(); ++i) {
      size_t b = 0;  // i's position in bshape
      for (size_t d = 0; d < ishape.size(); ++d)
        if (d != axis)
          b += static_cast<size_t>(static_cast<int64_t>(i) / istride[d] % ishape[d]) *
               static_cast<size_t>(bstride[d]);
      flat[i] = base[b] + values[i] * static_cast<int32_t>(stride[axis]);
    }
    positions = i32_constant(e, ishape, flat);
  } else {
    TensorIndex scaled = at;
    if (stride[axis] != 1)
      scaled = binary(e, Op::MUL, at, e.scalar(TT::INT32, static_cast<double>(stride[axis])));
    positions = binary(e, Op::ADD, scaled, i32_constant(e, bshape, base));
  }
  const TensorIndex flat = reshaped(e, as_signed(e, x), {static_cast<int32_t>(count_of(shape))});
  bind_result(e, op.outputs[0], gather(e, flat, positions, 0));
}

// gatherND (row 50): GATHER_ND at the resolved index tuples; out = indices.shape[:-1] ++
// input.shape[k:].
void lower_gatherND(Emitter& e, const Operation& op, const AttrsOf<OpType::kGatherND>&) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const TensorIndex idx = e.value(op.inputs[1]);
  const Shape ishape = e.shape_of(idx);
  const size_t k = static_cast<size_t>(ishape.back());
  std::vector<int32_t> values;
  const TensorIndex at = resolve(e, idx, Shape(shape.begin(), shape.begin() + k), true, values);
  Shape out(ishape.begin(), ishape.end() - 1);
  out.insert(out.end(), shape.begin() + static_cast<ptrdiff_t>(k), shape.end());
  const TensorIndex v = as_signed(e, x);
  bind_result(e, op.outputs[0],
              e.op1(Op::GATHER_ND, {v, at}, e.type_of(v), out, Opt::GatherNdOptions,
                    tfl::CreateGatherNdOptions(e.fbb()).Union()));
}

// scatterElements (row 83): out = input, then out[p with p[axis] = index(indices[p])] =
// updates[p] in row-major order (the last update of an element wins). On [O, J, I] views of the
// input (J = input.shape[axis]) and [O, A, I] of indices/updates: per output element the number
// a + 1 of the last update writing it (0: none), then GATHER from the flat updates and SELECT_V2
// with the input (see the top of the file).
void lower_scatterElements(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kScatterElements>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const size_t axis = attrs.options.axis;
  const TensorIndex idx = e.value(op.inputs[1]);
  const Shape ishape = e.shape_of(idx);
  check_flat(shape);
  check_flat(ishape);
  const int32_t o_n = product(shape, 0, axis), j_n = shape[axis], a_n = ishape[axis],
                i_n = product(shape, axis + 1, shape.size());
  const TensorIndex x3 = reshaped(e, as_signed(e, x), {o_n, j_n, i_n});
  const TensorIndex u = reshaped(e, as_signed(e, e.value(op.inputs[2])), {o_n * a_n * i_n});
  std::vector<int32_t> values;
  const TensorIndex at = resolve(e, idx, {j_n}, false, values);
  TensorIndex r;
  if (!values.empty()) {
    std::vector<int32_t> last(static_cast<size_t>(o_n) * j_n * i_n, 0);
    for (int32_t o = 0; o < o_n; ++o)
      for (int32_t a = 0; a < a_n; ++a)
        for (int32_t i = 0; i < i_n; ++i)
          last[(static_cast<size_t>(o) * j_n +
                values[(static_cast<size_t>(o) * a_n + a) * i_n + i]) *
                   i_n +
               i] = a + 1;
    std::vector<int32_t> src(last.size());
    std::vector<uint8_t> mask(last.size());
    bool all = true;
    for (size_t p = 0; p < last.size(); ++p) {
      const int32_t o = static_cast<int32_t>(p / (static_cast<size_t>(j_n) * i_n));
      const int32_t i = static_cast<int32_t>(p % static_cast<size_t>(i_n));
      src[p] = (o * a_n + std::max(last[p] - 1, 0)) * i_n + i;
      mask[p] = last[p] > 0;
      all = all && mask[p];
    }
    r = gather(e, u, i32_constant(e, {o_n, j_n, i_n}, src), 0);
    if (!all) r = select(e, bool_constant(e, {o_n, j_n, i_n}, mask), r, x3);
  } else {
    const TensorIndex at4 = reshaped(e, at, {o_n, a_n, 1, i_n});
    std::vector<int32_t> js(static_cast<size_t>(j_n)), writers(static_cast<size_t>(a_n));
    for (int32_t j = 0; j < j_n; ++j) js[j] = j;
    for (int32_t a = 0; a < a_n; ++a) writers[a] = a + 1;
    const TensorIndex hit = binary(e, Op::EQUAL, at4, i32_constant(e, {1, 1, j_n, 1}, js));
    const TensorIndex who =
        select(e, hit, i32_constant(e, {1, a_n, 1, 1}, writers), e.scalar(TT::INT32, 0));
    const TensorIndex last = reduce(e, Op::REDUCE_MAX, who, {1}, false);
    TensorIndex row = binary(e, Op::MAXIMUM, binary(e, Op::SUB, last, e.scalar(TT::INT32, 1)),
                             e.scalar(TT::INT32, 0));
    if (i_n != 1) row = binary(e, Op::MUL, row, e.scalar(TT::INT32, i_n));
    std::vector<int32_t> base(static_cast<size_t>(o_n) * i_n);
    for (int32_t o = 0; o < o_n; ++o)
      for (int32_t i = 0; i < i_n; ++i) base[static_cast<size_t>(o) * i_n + i] = o * a_n * i_n + i;
    const TensorIndex src = binary(e, Op::ADD, row, i32_constant(e, {o_n, 1, i_n}, base));
    const TensorIndex has = binary(e, Op::GREATER, last, e.scalar(TT::INT32, 0));
    r = select(e, has, gather(e, u, src, 0), x3);
  }
  bind_result(e, op.outputs[0], r);
}

// scatterND (row 84): out = input, then the slice at each index row indices[t, :] is replaced by
// updates[t, ...] in row order (the last row naming a slice wins). On the [P, S] view of the
// input (P = Π input.shape[:k] slices of S elements) and [C, S] of the updates: per slice the
// number t + 1 of the last row writing it (0: none), then GATHER from the updates and SELECT_V2
// with the input (see the top of the file).
void lower_scatterND(Emitter& e, const Operation& op, const AttrsOf<OpType::kScatterND>&) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const TensorIndex idx = e.value(op.inputs[1]);
  const Shape ishape = e.shape_of(idx);
  check_flat(shape);
  const size_t k = static_cast<size_t>(ishape.back());
  const Shape dims(shape.begin(), shape.begin() + static_cast<ptrdiff_t>(k));
  const int32_t p_n = product(shape, 0, k), s_n = product(shape, k, shape.size()),
                c_n = product(ishape, 0, ishape.size() - 1);
  const TensorIndex x2 = reshaped(e, as_signed(e, x), {p_n, s_n});
  const TensorIndex u = reshaped(e, as_signed(e, e.value(op.inputs[2])), {c_n, s_n});
  const std::vector<int64_t> stride = strides_of(dims);
  std::vector<int32_t> values;
  const TensorIndex at = resolve(e, idx, dims, true, values);
  TensorIndex r;
  if (!values.empty()) {
    std::vector<int32_t> last(static_cast<size_t>(p_n), 0);
    for (int32_t t = 0; t < c_n; ++t) {
      int64_t off = 0;
      for (size_t j = 0; j < k; ++j) off += values[static_cast<size_t>(t) * k + j] * stride[j];
      last[static_cast<size_t>(off)] = t + 1;
    }
    std::vector<int32_t> src(last.size());
    std::vector<uint8_t> mask(last.size());
    bool all = true;
    for (size_t p = 0; p < last.size(); ++p) {
      src[p] = std::max(last[p] - 1, 0);
      mask[p] = last[p] > 0;
      all = all && mask[p];
    }
    r = gather(e, u, i32_constant(e, {p_n}, src), 0);
    if (!all) r = select(e, bool_constant(e, {p_n, 1}, mask), r, x2);
  } else {
    TensorIndex off = reshaped(e, at, {c_n, static_cast<int32_t>(k)});
    if (k > 1) {
      off =
          binary(e, Op::MUL, off, e.const_i32(std::vector<int32_t>(stride.begin(), stride.end())));
      off = reduce(e, Op::SUM, off, {1}, true);
    }
    std::vector<int32_t> slots(static_cast<size_t>(p_n)), writers(static_cast<size_t>(c_n));
    for (int32_t p = 0; p < p_n; ++p) slots[p] = p;
    for (int32_t t = 0; t < c_n; ++t) writers[t] = t + 1;
    const TensorIndex hit = binary(e, Op::EQUAL, off, i32_constant(e, {1, p_n}, slots));
    const TensorIndex who =
        select(e, hit, i32_constant(e, {c_n, 1}, writers), e.scalar(TT::INT32, 0));
    const TensorIndex last = reduce(e, Op::REDUCE_MAX, who, {0}, false);
    const TensorIndex src = binary(e, Op::MAXIMUM, binary(e, Op::SUB, last, e.scalar(TT::INT32, 1)),
                                   e.scalar(TT::INT32, 0));
    const TensorIndex has =
        reshaped(e, binary(e, Op::GREATER, last, e.scalar(TT::INT32, 0)), {p_n, 1});
    r = select(e, has, gather(e, u, src, 0), x2);
  }
  bind_result(e, op.outputs[0], r);
}

}  // namespace cppnn::tflite_export
