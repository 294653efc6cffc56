// CoreML lowering of the data movement ops (see lower.h; webnn-spec.md §2 rows 6, 47, 64, 81, 82,
// 86, 90, 92-95). Each is the MIL op of the same meaning where iOS17 has one: concat, reshape,
// reverse, slice_by_index, split, tile, transpose; expand is a reshape to the output's rank and a
// tile; triangular and where are selects (triangular's mask from the row and column numbers);
// pad is MIL pad where MIL's pad expresses the case and otherwise slices, reverses, tiles and
// concats per padded dimension (exact for every type and mode). Ops that move nothing (a slice
// of everything, an identity permutation, a 0-D operand) are copies.
//
// Data types: float32, float16 and int32 everywhere; int8 and uint8 (target.cpp kEightBitOps)
// stay 8-bit through reshape, transpose, slice_by_index and reverse (iOS17 added them there) and
// are computed in int32 and cast back (exact) through concat, split, tile and select, whose iOS17
// type domain is fp16/fp32/int32.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_data_movement_util.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

bool is_float(mil::DataType t) {
  return t == mil::FLOAT32 || t == mil::FLOAT16;
}

// The numpy broadcast of two shapes (WebNN's bidirectional broadcast, §3.4).
std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// The unidirectional broadcast of a tensor of `from` to `to`: `from` with leading 1s up to
// rank(to), and the tile repetitions to[d] / aligned[d].
struct Broadcast {
  std::vector<int64_t> aligned;
  std::vector<int64_t> reps;
  bool tiles = false;
};

Broadcast broadcast_of(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  Broadcast b;
  b.aligned.assign(to.size() - from.size(), 1);
  b.aligned.insert(b.aligned.end(), from.begin(), from.end());
  for (size_t d = 0; d < to.size(); ++d) {
    b.reps.push_back(to[d] / b.aligned[d]);
    b.tiles = b.tiles || b.reps.back() != 1;
  }
  return b;
}

// `x` (fp16/fp32/int32: tile's types) broadcast unidirectionally to `shape`, as a variable.
std::string broadcast_to(Emitter& e, const std::string& x, const std::vector<int64_t>& shape) {
  const MilType t = e.type_of(x);
  const Broadcast b = broadcast_of(t.shape, shape);
  const std::string aligned = reshaped(e, x, b.aligned);
  if (!b.tiles) return aligned;
  return e.op("tile", {{"x", aligned}, {"reps", e.const_i32_of(b.reps)}}, MilType{t.type, shape});
}

// The `count` elements pad puts before (`before`) or after `x` along dimension `axis` in `mode`:
// the constant `value`; the edge element tiled; or the elements next to the edge, reversed
// (reflection excludes the edge element itself, count < x.shape[axis]).
std::string pad_border(Emitter& e, const std::string& x, size_t axis, int64_t count,
                       MLPaddingMode mode, const MLNumber& value, bool before) {
  const MilType t = e.type_of(x);
  const int64_t n = t.shape[axis];
  std::vector<int64_t> shape = t.shape;
  shape[axis] = count;
  switch (mode) {
    case MLPaddingMode::kConstant:
      return filled(e, t.type, shape, value);
    case MLPaddingMode::kEdge: {
      const std::string edge =
          before ? slice_along(e, x, axis, 0, 1) : slice_along(e, x, axis, n - 1, n);
      if (count == 1) return edge;
      std::vector<int64_t> reps(shape.size(), 1);
      reps[axis] = count;
      return e.op("tile", {{"x", edge}, {"reps", e.const_i32_of(reps)}}, MilType{t.type, shape});
    }
    case MLPaddingMode::kReflection: {
      const std::string near = before ? slice_along(e, x, axis, 1, count + 1)
                                      : slice_along(e, x, axis, n - 1 - count, n - 1);
      if (count == 1) return near;
      const int32_t axes[] = {static_cast<int32_t>(axis)};
      return e.op("reverse", {{"x", near}, {"axes", e.const_i32(axes)}}, MilType{t.type, shape});
    }
  }
  throw NotSupportedError("coreml: unknown padding mode");
}

// pad written out one padded dimension at a time (the separable form of every mode, as numpy and
// the reference kernel pad): concat(before, x, after) along each dimension in turn.
void pad_by_concat(Emitter& e, const Operation& op, const AttrsOf<OpType::kPad>& attrs,
                   const std::vector<size_t>& padded) {
  const std::vector<uint32_t>& begin = attrs.params.first;
  const std::vector<uint32_t>& end = attrs.params.second;
  std::string x = in(e, op, 0);
  for (size_t i = 0; i < padded.size(); ++i) {
    const size_t d = padded[i];
    std::vector<std::string> parts;
    if (begin[d] != 0)
      parts.push_back(pad_border(e, x, d, begin[d], attrs.options.mode, attrs.options.value, true));
    parts.push_back(x);
    if (end[d] != 0)
      parts.push_back(pad_border(e, x, d, end[d], attrs.options.mode, attrs.options.value, false));
    std::vector<Param> params{{"values", parts}, {"axis", e.const_int(static_cast<int32_t>(d))}};
    if (i + 1 == padded.size()) {
      e.op_to("concat", std::move(params), op.outputs[0]);
    } else {
      MilType next = e.type_of(x);
      next.shape[d] += int64_t{begin[d]} + end[d];
      x = e.op("concat", std::move(params), next);
    }
  }
}

// Whether MIL pad's "reflect"/"replicate" modes express this pad: the Core ML runtime rejects
// those modes with padding outside the last two dimensions ("Padding for more than two
// dimensions only supports `constant` mode"; coremltools issues #2576, #2701), and replicate
// pads at most the dimension's size per side (WebNN's edge has no limit). Reflect's limit
// (size - 1) is WebNN's own.
bool native_border_pad(const MilType& t, const AttrsOf<OpType::kPad>& attrs,
                       const std::vector<size_t>& padded) {
  const size_t rank = t.shape.size();
  for (size_t d : padded) {
    if (d + 2 < rank) return false;
    if (attrs.options.mode == MLPaddingMode::kEdge &&
        (attrs.params.first[d] > t.shape[d] || attrs.params.second[d] > t.shape[d]))
      return false;
  }
  return true;
}

// MIL pad in mode "reflect" or "replicate" of the last two dimensions (a rank-1 input is padded
// as [1, n]).
void pad_border_native(Emitter& e, const Operation& op, const AttrsOf<OpType::kPad>& attrs) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  const MilType out = out_type(e, op);
  const size_t rank = t.shape.size();
  std::vector<int64_t> pads;
  if (rank == 1) pads = {0, 0};
  for (size_t d = rank < 2 ? 0 : rank - 2; d < rank; ++d) {
    pads.push_back(attrs.params.first[d]);
    pads.push_back(attrs.params.second[d]);
  }
  const std::string mode = attrs.options.mode == MLPaddingMode::kEdge ? "replicate" : "reflect";
  if (rank >= 2) {
    e.op_to("pad", {{"x", x}, {"pad", e.const_i32_of(pads)}, {"mode", e.const_string(mode)}},
            op.outputs[0]);
    return;
  }
  const std::vector<int64_t> row{1, t.shape[0]};
  const std::string padded = e.op(
      "pad",
      {{"x", reshaped(e, x, row)}, {"pad", e.const_i32_of(pads)}, {"mode", e.const_string(mode)}},
      MilType{t.type, {1, out.shape[0]}});
  e.op_to("reshape", {{"x", padded}, {"shape", e.const_i32_of(out.shape)}}, op.outputs[0]);
}

}  // namespace

bool lowers_data_movement(const Graph&, const Operation&) {
  return true;
}

// concat (row 6): MIL concat along axis (8-bit inputs in int32); one input is a copy.
void lower_concat(Emitter& e, const Operation& op, const AttrsOf<OpType::kConcat>& attrs) {
  if (op.inputs.size() == 1) {
    copy_to(e, in(e, op, 0), op.outputs[0]);
    return;
  }
  std::vector<std::string> values;
  std::map<std::string, std::string> widened_of;  // an input listed twice is cast once
  for (OperandId id : op.inputs) {
    auto [it, added] = widened_of.try_emplace(e.value(id));
    if (added) it->second = widened(e, e.value(id));
    values.push_back(it->second);
  }
  const mil::DataType compute = e.type_of(values[0]).type;
  emit_in(e, op.outputs[0], "concat",
          {{"values", values}, {"axis", e.const_int(static_cast<int32_t>(attrs.params.axis))}},
          compute);
}

// expand (row 47): the unidirectional broadcast to newShape: a reshape to its rank (leading 1s,
// also for a 0-D input) and a tile of the dimensions that grow (8-bit data tiled in int32).
void lower_expand(Emitter& e, const Operation& op, const AttrsOf<OpType::kExpand>&) {
  const std::string& x = in(e, op, 0);
  const MilType out = out_type(e, op);
  const Broadcast b = broadcast_of(e.type_of(x).shape, out.shape);
  if (!b.tiles) {
    if (e.type_of(x).shape == out.shape) {
      copy_to(e, x, op.outputs[0]);
    } else {
      e.op_to("reshape", {{"x", x}, {"shape", e.const_i32_of(out.shape)}}, op.outputs[0]);
    }
    return;
  }
  const std::string aligned = reshaped(e, widened(e, x), b.aligned);
  emit_in(e, op.outputs[0], "tile", {{"x", aligned}, {"reps", e.const_i32_of(b.reps)}},
          e.type_of(aligned).type);
}

// pad (row 64): beginningPadding/endingPadding per dimension in mode constant (the value cast to
// the input type, §3.6), edge (the edge element repeated) or reflection (mirrored about the edge
// element, which is not repeated). Float constant pads are MIL pad; float edge/reflection pads of
// the last two dimensions within MIL's limits are MIL pad "replicate"/"reflect"; everything else
// (int32, which MIL pad lacks; other dimensions) is written out with slices and concats.
void lower_pad(Emitter& e, const Operation& op, const AttrsOf<OpType::kPad>& attrs) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  std::vector<size_t> padded;
  for (size_t d = 0; d < t.shape.size(); ++d)
    if (attrs.params.first[d] != 0 || attrs.params.second[d] != 0) padded.push_back(d);
  if (padded.empty()) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  if (!is_float(t.type)) {
    pad_by_concat(e, op, attrs, padded);
  } else if (attrs.options.mode == MLPaddingMode::kConstant) {
    std::vector<int64_t> pads;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      pads.push_back(attrs.params.first[d]);
      pads.push_back(attrs.params.second[d]);
    }
    e.op_to("pad",
            {{"x", x},
             {"pad", e.const_i32_of(pads)},
             {"mode", e.const_string("constant")},
             {"constant_val", e.const_scalar(t.type, attrs.options.value)}},
            op.outputs[0]);
  } else if (native_border_pad(t, attrs, padded)) {
    pad_border_native(e, op, attrs);
  } else {
    pad_by_concat(e, op, attrs, padded);
  }
}

// reshape (row 81): MIL reshape to newShape (an empty shape for a 0-D output).
void lower_reshape(Emitter& e, const Operation& op, const AttrsOf<OpType::kReshape>&) {
  e.op_to("reshape", {{"x", in(e, op, 0)}, {"shape", e.const_i32_of(out_type(e, op).shape)}},
          op.outputs[0]);
}

// reverse (row 82): MIL reverse of the listed axes (absent: all; []: none) that have more than one
// element; a copy when none does.
void lower_reverse(Emitter& e, const Operation& op, const AttrsOf<OpType::kReverse>& attrs) {
  const std::string& x = in(e, op, 0);
  const std::vector<int64_t>& shape = e.type_of(x).shape;
  std::vector<uint32_t> all(shape.size());
  std::iota(all.begin(), all.end(), 0u);
  std::vector<int32_t> axes;
  for (uint32_t a : attrs.options.axes.value_or(all))
    if (shape[a] > 1) axes.push_back(static_cast<int32_t>(a));
  if (axes.empty()) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  std::sort(axes.begin(), axes.end());
  e.op_to("reverse", {{"x", x}, {"axes", e.const_i32(axes)}}, op.outputs[0]);
}

// slice (row 86): MIL slice_by_index from starts to starts + sizes (exclusive) by strides
// (default 1), giving ceil(size / stride) elements per dimension; a copy when nothing is cut.
void lower_slice(Emitter& e, const Operation& op, const AttrsOf<OpType::kSlice>& attrs) {
  const std::string& x = in(e, op, 0);
  const std::vector<int64_t>& shape = e.type_of(x).shape;
  const std::vector<uint32_t> strides =
      attrs.options.strides.value_or(std::vector<uint32_t>(shape.size(), 1));
  std::vector<int64_t> begin, end, step;
  bool cuts = false, steps = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t start = attrs.params.first[d], size = attrs.params.second[d];
    begin.push_back(start);
    end.push_back(start + size);
    step.push_back(strides[d]);
    cuts = cuts || start != 0 || size != shape[d] || (strides[d] != 1 && size > 1);
    steps = steps || strides[d] != 1;
  }
  if (!cuts) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  std::vector<Param> params{
      {"x", x}, {"begin", e.const_i32_of(begin)}, {"end", e.const_i32_of(end)}};
  if (steps) params.emplace_back("stride", e.const_i32_of(step));
  e.op_to("slice_by_index", std::move(params), op.outputs[0]);
}

// split (row 90): MIL split into the outputs' sizes along axis (a count of equal parts and a list
// of sizes alike); 8-bit data is sliced output by output (split's types lack int8/uint8; the
// slices keep them); one output is a copy.
void lower_split(Emitter& e, const Operation& op, const AttrsOf<OpType::kSplit>& attrs) {
  const std::string& x = in(e, op, 0);
  const uint32_t axis = attrs.options.axis;
  if (op.outputs.size() == 1) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  std::vector<int64_t> sizes;
  for (OperandId id : op.outputs) sizes.push_back(e.mil_type(id).shape.at(axis));
  if (is_eight_bit(e.type_of(x).type)) {
    const std::vector<int64_t>& shape = e.type_of(x).shape;
    int64_t start = 0;
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      std::vector<int64_t> begin(shape.size(), 0), end = shape;
      begin[axis] = start;
      end[axis] = start + sizes[i];
      e.op_to("slice_by_index",
              {{"x", x}, {"begin", e.const_i32_of(begin)}, {"end", e.const_i32_of(end)}},
              op.outputs[i]);
      start += sizes[i];
    }
    return;
  }
  std::vector<std::pair<std::string, MilType>> outputs;
  for (OperandId id : op.outputs) outputs.emplace_back(e.value(id), e.mil_type(id));
  e.op_to("split",
          {{"x", x},
           {"split_sizes", e.const_i32_of(sizes)},
           {"axis", e.const_int(static_cast<int32_t>(axis))}},
          std::move(outputs));
}

// tile (row 92): MIL tile by the repetitions (8-bit data in int32); a copy when every repetition
// is 1 (also a 0-D input).
void lower_tile(Emitter& e, const Operation& op, const AttrsOf<OpType::kTile>& attrs) {
  const std::string& x = in(e, op, 0);
  const std::vector<int64_t> reps = to_i64(attrs.params.shape);
  if (std::all_of(reps.begin(), reps.end(), [](int64_t r) { return r == 1; })) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  const std::string v = widened(e, x);
  emit_in(e, op.outputs[0], "tile", {{"x", v}, {"reps", e.const_i32_of(reps)}}, e.type_of(v).type);
}

// transpose (row 93): MIL transpose by the permutation (default: the dimensions reversed); a copy
// for an identity permutation (also ranks 0 and 1).
void lower_transpose(Emitter& e, const Operation& op, const AttrsOf<OpType::kTranspose>& attrs) {
  const std::string& x = in(e, op, 0);
  std::vector<int64_t> perm(e.type_of(x).shape.size());
  if (attrs.options.permutation) {
    perm = to_i64(*attrs.options.permutation);
  } else {
    std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) {
    copy_to(e, x, op.outputs[0]);
    return;
  }
  e.op_to("transpose", {{"x", x}, {"perm", e.const_i32_of(perm)}}, op.outputs[0]);
}

// triangular (row 94): over the last two dimensions [M, N], element (i, j) is kept when
// upper ? j - i >= diagonal : j - i <= diagonal and is +0 otherwise: select(mask, x, 0) with
// mask = (column numbers [N] - row numbers [M, 1]) compared with the diagonal. MIL's band_part
// is not used: it is documented as a product with the band mask, which would turn ±Inf and NaN
// outside the band into NaN instead of 0 (and cannot keep a band that excludes the diagonal).
// A copy when every element is kept.
void lower_triangular(Emitter& e, const Operation& op, const AttrsOf<OpType::kTriangular>& attrs) {
  const std::string& x = in(e, op, 0);
  const MilType t = e.type_of(x);
  const size_t rank = t.shape.size();
  const int64_t m = t.shape[rank - 2], n = t.shape[rank - 1];
  const int64_t k = attrs.options.diagonal;
  const bool upper = attrs.options.upper;
  if (upper ? k <= 1 - m : k >= n - 1) {  // j - i ranges over [1 - m, n - 1]
    copy_to(e, x, op.outputs[0]);
    return;
  }
  std::vector<int32_t> cols(static_cast<size_t>(n)), rows(static_cast<size_t>(m));
  std::iota(cols.begin(), cols.end(), 0);
  std::iota(rows.begin(), rows.end(), 0);
  const int64_t column_shape[] = {m, 1};
  const std::string row_numbers =
      e.const_tensor(mil::INT32, column_shape, std::as_bytes(std::span<const int32_t>(rows)));
  const std::string diff =
      e.op("sub", {{"x", e.const_i32(cols)}, {"y", row_numbers}}, MilType{mil::INT32, {m, n}});
  const std::string keep =
      e.op(upper ? "greater_equal" : "less_equal",
           {{"x", diff}, {"y", e.const_int(attrs.options.diagonal)}}, MilType{mil::BOOL, {m, n}});
  e.op_to("select", {{"cond", keep}, {"a", x}, {"b", e.const_scalar(t.type, 0)}}, op.outputs[0]);
}

// where (row 95): MIL select(condition != 0, trueValue, falseValue), the uint8 condition cast to
// bool (nonzero is true), all three broadcast (8-bit values selected in int32). MIL's select
// takes its output shape from the two values, so when the condition alone widens the output,
// trueValue is first broadcast to the output shape.
void lower_where(Emitter& e, const Operation& op, const AttrsOf<OpType::kWhere>&) {
  const std::string cond = e.cast(in(e, op, 0), mil::BOOL);
  std::string a = widened(e, in(e, op, 1));
  const std::string b = widened(e, in(e, op, 2));
  const MilType out = out_type(e, op);
  if (broadcast_shape(e.type_of(a).shape, e.type_of(b).shape) != out.shape)
    a = broadcast_to(e, a, out.shape);
  emit_in(e, op.outputs[0], "select", {{"cond", cond}, {"a", a}, {"b", b}}, e.type_of(a).type);
}

}  // namespace cppnn::coreml_export
