// Decompositions of the gather_scatter ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). Index values are
// resolved by native gather itself: gathering a constant int32 table [0, s, 2s, ...] of a
// dimension's size at the op's indices clamps each index into -d..d-1 and wraps negatives exactly
// as the reference kernels do (§6.12), for int32, uint32 and int64 indices alike, and yields the
// resolved index times the stride s. The data is then read by one native gather at flat int32
// positions, so every data type is copied bit for bit. Scatters find, for every output position,
// the last update written to it (a one-hot comparison of the resolved targets against the
// positions, then reduceMax of the writer number), and gather from concat(input, updates).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using Dims = std::vector<uint32_t>;
constexpr MLOperandDataType kInt32 = MLOperandDataType::kInt32;
constexpr size_t kNoAxis = SIZE_MAX;

// Row-major element strides of `shape`.
std::vector<int64_t> strides_of(const Dims& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// [first, first + step, ..., first + (n - 1) step].
std::vector<int64_t> arithmetic(uint32_t n, int64_t first, int64_t step) {
  std::vector<int64_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = first + i * step;
  return v;
}

// An int32 constant of `shape` holding `values` (all below 2^31: positions in a valid tensor).
MLOperand int32_constant(MLGraphBuilder& b, Dims shape, const std::vector<int64_t>& values) {
  return constant_of(b, kInt32, std::move(shape), {values.begin(), values.end()});
}

// The 1-D int32 `table` read at `indices` (any index type) by native gather: table[resolved
// index], with indices' shape.
MLOperand read_table(MLGraphBuilder& b, const MLOperand& indices,
                     const std::vector<int64_t>& table) {
  return b.gather(int32_constant(b, {static_cast<uint32_t>(table.size())}, table), indices);
}

// x reshaped to `shape`, or x itself when it has that shape already.
MLOperand reshape_to(MLGraphBuilder& b, const MLOperand& x, const Dims& shape) {
  return x.shape() == shape ? x : b.reshape(x, shape);
}

// x as a 1-D tensor of its elements.
MLOperand flatten(MLGraphBuilder& b, const MLOperand& x) {
  return reshape_to(b, x, {static_cast<uint32_t>(element_count(x.shape()))});
}

// An int32 operand broadcastable to `shape` whose value at position q is the sum over the
// dimensions d != skip of q[d] * strides[d] (a per-dimension constant for each term).
MLOperand coordinate_sum(MLGraphBuilder& b, const Dims& shape, const std::vector<int64_t>& strides,
                         size_t skip) {
  MLOperand acc;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d == skip || shape[d] == 1) continue;
    Dims unit(shape.size(), 1);
    unit[d] = shape[d];
    const MLOperand term = int32_constant(b, unit, arithmetic(shape[d], 0, strides[d]));
    acc = acc.is_null() ? term : b.add(acc, term);
  }
  return acc.is_null() ? int32_constant(b, Dims(shape.size(), 1), {0}) : acc;
}

// The row of data.shape[:k] (k = indices.shape[-1]) each index tuple of gatherND and scatterND
// selects, row-major, each coordinate resolved against its own dimension; reshaped to `shape`.
MLOperand tuple_rows(MLGraphBuilder& b, const MLOperand& indices, const Dims& data,
                     const Dims& shape) {
  const Dims& ishape = indices.shape();
  const uint32_t k = ishape.back();
  MLOperand acc;
  int64_t stride = 1;
  for (uint32_t j = k; j-- > 0;) {
    Dims starts(ishape.size(), 0), sizes = ishape;
    starts.back() = j;
    sizes.back() = 1;
    const MLOperand column = k == 1 ? indices : b.slice(indices, starts, sizes);
    const MLOperand term = read_table(b, column, arithmetic(data[j], 0, stride));
    acc = acc.is_null() ? term : b.add(acc, term);
    stride *= data[j];
  }
  return b.reshape(acc, shape);
}

// data.shape[:k] flattened into one dimension of rows: [prod(data[:k])] ++ data[k:].
Dims rows_shape(const Dims& data, uint32_t k) {
  Dims shape{static_cast<uint32_t>(element_count(Dims(data.begin(), data.begin() + k)))};
  shape.insert(shape.end(), data.begin() + k, data.end());
  return shape;
}

// For each slot 0..slots-1 and each line of `targets` (int32, shape t) along `axis`: 1 + the last
// writer along the axis whose target is that slot, else 0 (the writers in row-major order, so
// the last update wins as in the reference kernels). The result has t's shape with t[axis]
// replaced by `slots`.
MLOperand last_writers(MLGraphBuilder& b, const MLOperand& targets, uint32_t axis, uint32_t slots) {
  const Dims& t = targets.shape();
  Dims expanded = t, slot_shape(t.size() + 1, 1), writer_shape(t.size() + 1, 1);
  expanded.insert(expanded.begin() + axis + 1, 1);
  slot_shape[axis + 1] = slots;
  writer_shape[axis] = t[axis];
  const MLOperand hit =
      b.equal(b.reshape(targets, expanded), int32_constant(b, slot_shape, arithmetic(slots, 0, 1)));
  const MLOperand writer = int32_constant(b, writer_shape, arithmetic(t[axis], 1, 1));
  return b.reduceMax(b.where(hit, writer, scalar(b, kInt32, 0)), {.axes = {axis}});
}

// Where in concat(input, updates) (flat along axis 0) each output position reads: for a writer
// w > 0 the update at input_size + (w - 1) * writer_stride + base, else its own position `own`
// (the max picks, as every update position is past the input's; base < update_size keeps the
// w = 0 candidate negative). `base` may be null (0).
MLOperand scatter_sources(MLGraphBuilder& b, const MLOperand& writers, int64_t input_size,
                          int64_t update_size, uint32_t writer_count, int64_t writer_stride,
                          const MLOperand& base, const MLOperand& own) {
  std::vector<int64_t> table{-update_size};
  const std::vector<int64_t> rest = arithmetic(writer_count, input_size, writer_stride);
  table.insert(table.end(), rest.begin(), rest.end());
  MLOperand candidate = read_table(b, writers, table);
  if (!base.is_null()) candidate = b.add(candidate, base);
  return b.max(candidate, own);
}

// gatherElements (row 49, erratum 3): out[p] = input[p with p[axis] = index(indices[p])], as one
// gather of the flattened input at the flat positions.
std::vector<MLOperand> decompose_gather_elements(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const uint32_t axis = c.attrs<OpType::kGatherElements>().options.axis;
  const Dims data = c.input_desc(0).shape;
  const std::vector<int64_t> s = strides_of(data);
  const MLOperand along = read_table(b, c.input(1), arithmetic(data[axis], 0, s[axis]));
  const Dims ishape = c.input_desc(1).shape;
  const MLOperand flat = b.add(along, coordinate_sum(b, ishape, s, axis));
  return {b.gather(flatten(b, c.input(0)), flat)};
}

// gatherND (row 50): the input as rows of data.shape[:k], gathered at each tuple's row.
std::vector<MLOperand> decompose_gather_nd(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Dims data = c.input_desc(0).shape;
  const Dims ishape = c.input_desc(1).shape;
  const MLOperand rows = tuple_rows(b, c.input(1), data, Dims(ishape.begin(), ishape.end() - 1));
  return {b.gather(reshape_to(b, c.input(0), rows_shape(data, ishape.back())), rows)};
}

// scatterElements (row 83): per line along axis, the last update aimed at each position (a
// one-hot of indices.shape x data.shape[axis]) replaces the input element.
std::vector<MLOperand> decompose_scatter_elements(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const uint32_t axis = c.attrs<OpType::kScatterElements>().options.axis;
  const Dims data = c.input_desc(0).shape;
  const Dims ishape = c.input_desc(1).shape;
  const std::vector<int64_t> si = strides_of(ishape);
  const MLOperand targets = read_table(b, c.input(1), arithmetic(data[axis], 0, 1));
  const MLOperand writers = last_writers(b, targets, axis, data[axis]);
  const MLOperand sources = scatter_sources(
      b, writers, static_cast<int64_t>(element_count(data)),
      static_cast<int64_t>(element_count(ishape)), ishape[axis], si[axis],
      coordinate_sum(b, data, si, axis), coordinate_sum(b, data, strides_of(data), kNoAxis));
  return {b.gather(b.concat({flatten(b, c.input(0)), flatten(b, c.input(2))}, 0), sources)};
}

// scatterND (row 84, erratum 4): the last update tuple aimed at each row of data.shape[:k] (a
// one-hot of tuples x rows) replaces that row of the input.
std::vector<MLOperand> decompose_scatter_nd(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Dims data = c.input_desc(0).shape;
  const Dims ishape = c.input_desc(1).shape;
  const uint32_t k = ishape.back();
  const Dims rows = rows_shape(data, k);
  const uint32_t count =
      static_cast<uint32_t>(element_count(Dims(ishape.begin(), ishape.end() - 1)));
  Dims update_rows = rows;
  update_rows[0] = count;
  const MLOperand targets = tuple_rows(b, c.input(1), data, {count});
  const MLOperand writers = last_writers(b, targets, 0, rows[0]);
  const MLOperand sources =
      scatter_sources(b, writers, rows[0], count, count, 1, MLOperand(),
                      int32_constant(b, {rows[0]}, arithmetic(rows[0], 0, 1)));
  const MLOperand table =
      b.concat({reshape_to(b, c.input(0), rows), reshape_to(b, c.input(2), update_rows)}, 0);
  return {reshape_to(b, b.gather(table, sources), data)};
}

}  // namespace

void register_gather_scatter(DecompositionTable& t) {
  using enum OpType;
  const DataTypeMask i32 = dt::kI32;
  const std::vector<DecompositionUse> elements{
      {kGather}, {kGather, i32}, {kAdd, i32}, {kReshape}, {kReshape, i32}};
  std::vector<DecompositionUse> nd = elements;
  nd.push_back({kSlice, i32});
  const std::vector<DecompositionUse> scatter{
      {kConcat}, {kEqual, i32}, {kWhere, dt::kU8}, {kReduceMax, i32}, {kMax, i32}};
  std::vector<DecompositionUse> scatter_elements = elements, scatter_nd = nd;
  scatter_elements.insert(scatter_elements.end(), scatter.begin(), scatter.end());
  scatter_nd.insert(scatter_nd.end(), scatter.begin(), scatter.end());
  t.add(kGatherElements, decompose_gather_elements, elements);
  t.add(kGatherND, decompose_gather_nd, nd);
  t.add(kScatterElements, decompose_scatter_elements, scatter_elements);
  t.add(kScatterND, decompose_scatter_nd, scatter_nd);
}

}  // namespace cppnn::passes
