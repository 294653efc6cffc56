// CoreML lowering of the gather and scatter ops (see lower.h; webnn-spec.md §2 rows 48-50, 83-84,
// §6 errata 3, 4, 11, 12): MIL gather, gather_along_axis, gather_nd, scatter_along_axis and
// scatter_nd (iOS17), with int32 indices (the target's only index type).
//
// Indices: WebNN clamps an index into −d..d−1 and then wraps a negative one (WPT, erratum 12);
// iOS17's gathers and scatters leave negative and out-of-range indices undefined. Constant
// indices are resolved at conversion time (an int32 constant of in-range indices); other indices
// are resolved in the program: minimum/maximum with the bounds, then select(i < 0, i + d, i).
//
// Scatters: WebNN applies the updates in row-major order, so with duplicate indices the last one
// wins; MIL's "update" mode leaves the order of duplicates unspecified. Where duplicates can
// occur, every update is first replaced by the update of the last position writing the same
// element (for constant indices found at conversion time; for others by a scatter in mode "max"
// of the positions, which is order-free, gathered back), so that all writers of one element
// carry the same value and the order no longer matters.
//
// Data types: the gathers take float32, float16, int32, int8 and uint8 data (iOS17); the
// scatters' type domain is fp16/fp32/int32, so 8-bit data is scattered in int32 (exact).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_data_movement_util.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

// An index value resolved against a dimension of size d: clamped into −d..d−1, then wrapped (as
// the reference backend's resolve_index).
int32_t resolve_index(int32_t value, int64_t d) {
  const int64_t v = std::clamp<int64_t>(value, -d, d - 1);
  return static_cast<int32_t>(v < 0 ? v + d : v);
}

// The indices as MIL takes them: a variable of in-range int32 indices, and for constant indices
// their resolved values.
struct Indices {
  std::string var;
  std::optional<std::vector<int32_t>> values;
};

// The int32 indices operand `id` resolved into 0..d−1, element i against dims[i % dims.size()]:
// one dimension (the axis) for gather, gatherElements and scatterElements, the first k dimensions
// of the data for the ND ops (`tuples`; k = indices.shape[-1], each index tuple a row of k).
Indices resolved_indices(Emitter& e, OperandId id, const std::vector<int64_t>& dims, bool tuples) {
  if (e.type(id) != MLOperandDataType::kInt32)
    throw NotSupportedError("coreml: indices must be int32 (MIL's index type)");
  for (int64_t d : dims)
    if (d > std::numeric_limits<int32_t>::max())
      throw NotSupportedError("coreml: an indexed dimension exceeds int32");
  const MilType t = e.mil_type(id);
  const size_t k = dims.size();
  if (const ConstantData* data = constant_data(e, id)) {
    std::vector<int32_t> values(static_cast<size_t>(element_count(t.shape)));
    for (size_t i = 0; i < values.size(); ++i) {
      int32_t v;
      std::memcpy(&v, data->data() + 4 * i, 4);
      values[i] = resolve_index(v, dims[i % k]);
    }
    std::string var =
        e.const_tensor(mil::INT32, t.shape, std::as_bytes(std::span<const int32_t>(values)));
    return {std::move(var), std::move(values)};
  }
  std::vector<int64_t> lo, hi;
  for (int64_t d : dims) {
    lo.push_back(-d);
    hi.push_back(d - 1);
  }
  // One scalar bound for an axis; a row of k bounds (broadcast over the tuples) for the ND ops.
  auto bound = [&](const std::vector<int64_t>& v) {
    return tuples ? e.const_i32_of(v) : e.const_int(static_cast<int32_t>(v[0]));
  };
  const std::string& idx = e.value(id);
  const std::string upper = e.op("minimum", {{"x", idx}, {"y", bound(hi)}}, t);
  const std::string clamped = e.op("maximum", {{"x", upper}, {"y", bound(lo)}}, t);
  const std::string negative =
      e.op("less", {{"x", clamped}, {"y", e.const_int(0)}}, MilType{mil::BOOL, t.shape});
  const std::string shifted = e.op("add", {{"x", clamped}, {"y", bound(dims)}}, t);
  return {e.op("select", {{"cond", negative}, {"a", shifted}, {"b", clamped}}, t), std::nullopt};
}

// For constant scatterElements indices (resolved, of `shape`) with duplicates along `axis`: per
// position, the axis coordinate of the last position (row-major) writing the same element;
// nothing when every position writes its own element.
std::optional<std::vector<int32_t>> last_writers_along(const std::vector<int32_t>& values,
                                                       const std::vector<int64_t>& shape,
                                                       size_t axis) {
  const int64_t outer = element_count(std::span(shape).first(axis));
  const int64_t length = shape[axis];
  const int64_t inner = element_count(std::span(shape).subspan(axis + 1));
  std::vector<int32_t> writers(values.size());
  bool duplicates = false;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::map<int32_t, int32_t> last;  // element -> last axis coordinate writing it
      for (int64_t a = 0; a < length; ++a)
        last[values[(o * length + a) * inner + i]] = static_cast<int32_t>(a);
      for (int64_t a = 0; a < length; ++a) {
        const size_t p = static_cast<size_t>((o * length + a) * inner + i);
        writers[p] = last[values[p]];
        duplicates = duplicates || writers[p] != a;
      }
    }
  }
  if (!duplicates) return std::nullopt;
  return writers;
}

// For constant scatterND indices (resolved rows of k = dims.size()) with duplicate rows: per row,
// the number of the last row naming the same element; nothing when all rows differ.
std::optional<std::vector<int32_t>> last_writers_nd(const std::vector<int32_t>& values,
                                                    const std::vector<int64_t>& dims) {
  const size_t k = dims.size(), count = values.size() / k;
  std::vector<int64_t> offsets(count, 0);
  std::map<int64_t, int32_t> last;  // element offset -> last row writing it
  for (size_t t = 0; t < count; ++t) {
    for (size_t j = 0; j < k; ++j) offsets[t] = offsets[t] * dims[j] + values[t * k + j];
    last[offsets[t]] = static_cast<int32_t>(t);
  }
  if (last.size() == count) return std::nullopt;
  std::vector<int32_t> writers(count);
  for (size_t t = 0; t < count; ++t) writers[t] = last[offsets[t]];
  return writers;
}

// The scatterND updates (of shape lead ++ slice) with row t replaced by row writers[t]
// (writers: an int32 variable of shape lead): a gather of the updates viewed as [count] ++ slice.
std::string rows_of(Emitter& e, const std::string& updates, const std::string& writers,
                    size_t lead_rank) {
  const MilType t = e.type_of(updates);
  const std::span<const int64_t> lead = std::span(t.shape).first(lead_rank);
  std::vector<int64_t> flat{element_count(lead)};
  flat.insert(flat.end(), t.shape.begin() + static_cast<ptrdiff_t>(lead_rank), t.shape.end());
  return e.op("gather",
              {{"x", reshaped(e, updates, flat)}, {"indices", writers}, {"axis", e.const_int(0)}},
              t);
}

}  // namespace

bool lowers_gather_scatter(const Graph&, const Operation&) {
  return true;
}

// gather (row 48): MIL gather along axis; out = input.shape[:axis] ++ indices.shape ++
// input.shape[axis+1:] (0-D for a 1-D input and 0-D indices, erratum 11).
void lower_gather(Emitter& e, const Operation& op, const AttrsOf<OpType::kGather>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const Indices idx =
      resolved_indices(e, op.inputs[1], {e.mil_type(op.inputs[0]).shape[axis]}, false);
  e.op_to("gather",
          {{"x", in(e, op, 0)},
           {"indices", idx.var},
           {"axis", e.const_int(static_cast<int32_t>(axis))}},
          op.outputs[0]);
}

// gatherElements (row 49): MIL gather_along_axis; the output has indices.shape (erratum 3).
void lower_gatherElements(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGatherElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const Indices idx =
      resolved_indices(e, op.inputs[1], {e.mil_type(op.inputs[0]).shape[axis]}, false);
  e.op_to("gather_along_axis",
          {{"x", in(e, op, 0)},
           {"indices", idx.var},
           {"axis", e.const_int(static_cast<int32_t>(axis))}},
          op.outputs[0]);
}

// gatherND (row 50): MIL gather_nd (batch_dims 0); out = indices.shape[:-1] ++ input.shape[k:].
void lower_gatherND(Emitter& e, const Operation& op, const AttrsOf<OpType::kGatherND>&) {
  const std::vector<int64_t>& shape = e.mil_type(op.inputs[0]).shape;
  const int64_t k = e.mil_type(op.inputs[1]).shape.back();
  const Indices idx = resolved_indices(
      e, op.inputs[1], std::vector<int64_t>(shape.begin(), shape.begin() + k), true);
  e.op_to("gather_nd", {{"x", in(e, op, 0)}, {"indices", idx.var}}, op.outputs[0]);
}

// scatterElements (row 83): out = input, then out[p with p[axis] = index(indices[p])] =
// updates[p] in row-major order: MIL scatter_along_axis in mode "update", with duplicate targets
// made to carry the last update (see the top of the file).
void lower_scatterElements(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kScatterElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const std::string data = widened(e, in(e, op, 0));
  std::string updates = widened(e, in(e, op, 2));
  const MilType data_t = e.type_of(data);
  const std::vector<int64_t> shape = e.mil_type(op.inputs[1]).shape;
  const Indices idx = resolved_indices(e, op.inputs[1], {data_t.shape[axis]}, false);
  const std::string axis_c = e.const_int(static_cast<int32_t>(axis));
  const MilType writers_t{mil::INT32, shape};
  std::string writers;
  if (idx.values) {
    if (auto w = last_writers_along(*idx.values, shape, axis))
      writers = e.const_tensor(mil::INT32, shape, std::as_bytes(std::span<const int32_t>(*w)));
  } else if (shape[axis] > 1) {
    // The axis coordinate of every position, scattered with "max" into the elements they write.
    std::vector<int64_t> line(shape.size(), 1), reps = shape;
    line[axis] = shape[axis];
    reps[axis] = 1;
    std::vector<int32_t> coords(static_cast<size_t>(shape[axis]));
    for (size_t i = 0; i < coords.size(); ++i) coords[i] = static_cast<int32_t>(i);
    std::string positions =
        e.const_tensor(mil::INT32, line, std::as_bytes(std::span<const int32_t>(coords)));
    if (line != shape)
      positions = e.op("tile", {{"x", positions}, {"reps", e.const_i32_of(reps)}}, writers_t);
    const std::string last = e.op("scatter_along_axis",
                                  {{"data", filled(e, mil::INT32, data_t.shape, 0)},
                                   {"indices", idx.var},
                                   {"updates", positions},
                                   {"axis", axis_c},
                                   {"mode", e.const_string("max")}},
                                  MilType{mil::INT32, data_t.shape});
    writers =
        e.op("gather_along_axis", {{"x", last}, {"indices", idx.var}, {"axis", axis_c}}, writers_t);
  }
  if (!writers.empty())
    updates = e.op("gather_along_axis", {{"x", updates}, {"indices", writers}, {"axis", axis_c}},
                   e.type_of(updates));
  emit_in(e, op.outputs[0], "scatter_along_axis",
          {{"data", data},
           {"indices", idx.var},
           {"updates", updates},
           {"axis", axis_c},
           {"mode", e.const_string("update")}},
          data_t.type);
}

// scatterND (row 84): out = input, then the slice at each index row indices[t, :] is replaced by
// updates[t, ...] in row order: MIL scatter_nd in mode "update", with duplicate rows made to carry
// the last update (see the top of the file).
void lower_scatterND(Emitter& e, const Operation& op, const AttrsOf<OpType::kScatterND>&) {
  const std::string data = widened(e, in(e, op, 0));
  std::string updates = widened(e, in(e, op, 2));
  const MilType data_t = e.type_of(data);
  const std::vector<int64_t>& shape = e.mil_type(op.inputs[1]).shape;
  const std::vector<int64_t> dims(data_t.shape.begin(),
                                  data_t.shape.begin() + static_cast<ptrdiff_t>(shape.back()));
  const std::vector<int64_t> lead(shape.begin(), shape.end() - 1);
  const int64_t count = element_count(lead);
  const Indices idx = resolved_indices(e, op.inputs[1], dims, true);
  std::string writers;
  if (idx.values) {
    if (auto w = last_writers_nd(*idx.values, dims))
      writers = e.const_tensor(mil::INT32, lead, std::as_bytes(std::span<const int32_t>(*w)));
  } else if (count > 1) {
    // The row numbers, scattered with "max" into the elements they write.
    const std::string rows = e.op("range_1d",
                                  {{"end", e.const_int(static_cast<int32_t>(count))},
                                   {"start", e.const_int(0)},
                                   {"step", e.const_int(1)}},
                                  MilType{mil::INT32, {count}});
    const std::string last = e.op("scatter_nd",
                                  {{"data", filled(e, mil::INT32, dims, 0)},
                                   {"indices", idx.var},
                                   {"updates", reshaped(e, rows, lead)},
                                   {"mode", e.const_string("max")}},
                                  MilType{mil::INT32, dims});
    writers = e.op("gather_nd", {{"x", last}, {"indices", idx.var}}, MilType{mil::INT32, lead});
  }
  if (!writers.empty()) updates = rows_of(e, updates, writers, lead.size());
  emit_in(e, op.outputs[0], "scatter_nd",
          {{"data", data},
           {"indices", idx.var},
           {"updates", updates},
           {"mode", e.const_string("update")}},
          data_t.type);
}

}  // namespace cppnn::coreml_export
