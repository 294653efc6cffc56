// ONNX lowering of the data movement ops (see lower.h; webnn-spec.md §2 rows 6, 47, 64, 81, 82,
// 86, 90, 92-94). Each is one ONNX node for every data type, except triangular and where on types
// that ONNX Runtime's Trilu / Where lack (computed in a wider integer type, exact) and ops that
// move nothing (Identity).
#include <algorithm>
#include <limits>
#include <numeric>
#include <variant>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_data_movement_util.h"
#include "src/export/onnx/lower_elementwise_util.h"
#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {

// concat (row 6): Concat along `axis`.
void lower_concat(Emitter& e, const Operation& op, const AttrsOf<OpType::kConcat>& attrs) {
  std::vector<std::string> inputs;
  for (OperandId id : op.inputs) inputs.push_back(e.value(id));
  e.node_to("Concat", std::move(inputs), {out(e, op)}, {{"axis", int64_t{attrs.params.axis}}});
}

// expand (row 47): Expand to newShape (unidirectional broadcast, as in ONNX).
void lower_expand(Emitter& e, const Operation& op, const AttrsOf<OpType::kExpand>& attrs) {
  if (e.dims(op.inputs[0]) == to_i64(attrs.params.shape))
    return identity_to(e, in(e, op, 0), out(e, op));
  e.node_to("Expand", {in(e, op, 0), e.const_i64(to_i64(attrs.params.shape))}, {out(e, op)});
}

// pad (row 64): Pad with pads = beginnings ++ endings; modes constant, edge and reflection map to
// ONNX's constant, edge and reflect (reflect excludes the edge element, as WebNN's reflection).
// The value is cast to the input type by the MLNumber cast algorithm.
void lower_pad(Emitter& e, const Operation& op, const AttrsOf<OpType::kPad>& attrs) {
  std::vector<int64_t> pads = to_i64(attrs.params.first);
  const std::vector<int64_t> ends = to_i64(attrs.params.second);
  pads.insert(pads.end(), ends.begin(), ends.end());
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return identity_to(e, in(e, op, 0), out(e, op));
  const std::string pads_name = e.const_i64(pads);
  switch (attrs.options.mode) {
    case MLPaddingMode::kConstant:
      e.node_to(
          "Pad",
          {in(e, op, 0), pads_name, e.const_scalar(e.type(op.inputs[0]), attrs.options.value)},
          {out(e, op)}, {{"mode", std::string("constant")}});
      return;
    case MLPaddingMode::kEdge:
      e.node_to("Pad", {in(e, op, 0), pads_name}, {out(e, op)}, {{"mode", std::string("edge")}});
      return;
    case MLPaddingMode::kReflection:
      e.node_to("Pad", {in(e, op, 0), pads_name}, {out(e, op)}, {{"mode", std::string("reflect")}});
      return;
  }
  throw NotSupportedError("unknown padding mode");
}

// reshape (row 81): Reshape to newShape (WebNN has no 0 or -1 entries, so ONNX's special values
// never occur).
void lower_reshape(Emitter& e, const Operation& op, const AttrsOf<OpType::kReshape>& attrs) {
  e.node_to("Reshape", {in(e, op, 0), e.const_i64(to_i64(attrs.params.shape))}, {out(e, op)});
}

// slice (row 86): Slice over the axes that change, ends = starts + sizes (exclusive), steps =
// strides; Identity when nothing is cut.
void lower_slice(Emitter& e, const Operation& op, const AttrsOf<OpType::kSlice>& attrs) {
  const std::vector<int64_t> dims = e.dims(op.inputs[0]);
  const std::vector<uint32_t> strides =
      attrs.options.strides.value_or(std::vector<uint32_t>(dims.size(), 1));
  std::vector<int64_t> starts, ends, axes, steps;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t start = attrs.params.first[d], size = attrs.params.second[d];
    if (start == 0 && size == dims[d] && (strides[d] == 1 || size == 1)) continue;
    starts.push_back(start);
    ends.push_back(start + size);
    axes.push_back(static_cast<int64_t>(d));
    steps.push_back(strides[d]);
  }
  if (axes.empty()) return identity_to(e, in(e, op, 0), out(e, op));
  const bool unit = std::all_of(steps.begin(), steps.end(), [](int64_t s) { return s == 1; });
  e.node_to("Slice",
            {in(e, op, 0), e.const_i64(starts), e.const_i64(ends), e.const_i64(axes),
             unit ? std::string() : e.const_i64(steps)},
            {out(e, op)});
}

// split (row 90): Split along `axis` with the output sizes as the `split` input.
void lower_split(Emitter& e, const Operation& op, const AttrsOf<OpType::kSplit>& attrs) {
  const uint32_t axis = attrs.options.axis;
  std::vector<int64_t> sizes;
  for (OperandId id : op.outputs) sizes.push_back(e.dims(id).at(axis));
  std::vector<std::string> outputs;
  for (OperandId id : op.outputs) outputs.push_back(e.value(id));
  if (outputs.size() == 1) return identity_to(e, in(e, op, 0), outputs[0]);
  e.node_to("Split", {in(e, op, 0), e.const_i64(sizes)}, std::move(outputs),
            {{"axis", int64_t{axis}}});
}

// transpose (row 93): Transpose with the permutation (default: the reversed dimensions).
void lower_transpose(Emitter& e, const Operation& op, const AttrsOf<OpType::kTranspose>& attrs) {
  std::vector<int64_t> perm(e.rank(op.inputs[0]));
  if (attrs.options.permutation) {
    perm = to_i64(*attrs.options.permutation);
  } else {
    std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
  if (identity) return identity_to(e, in(e, op, 0), out(e, op));
  e.node_to("Transpose", {in(e, op, 0)}, {out(e, op)}, {{"perm", perm}});
}

// triangular (row 94): Trilu over the last two dims; WebNN keeps j - i >= diagonal (upper) or
// j - i <= diagonal (lower), exactly ONNX's k. ONNX Runtime's Trilu has float, double, int64 and
// bool kernels (float16 through its own casts): other integer types go through int64 and back,
// which is exact (uint64 wraps there and back).
void lower_triangular(Emitter& e, const Operation& op, const AttrsOf<OpType::kTriangular>& attrs) {
  const MLOperandDataType type = e.type(op.inputs[0]);
  const bool direct = type == MLOperandDataType::kFloat32 || type == MLOperandDataType::kFloat16 ||
                      type == MLOperandDataType::kInt64;
  const std::vector<Attr> upper = {{"upper", int64_t{attrs.options.upper ? 1 : 0}}};
  const std::string k_scalar =
      e.const_scalar(MLOperandDataType::kInt64, MLNumber(int64_t{attrs.options.diagonal}));
  if (direct) {
    e.node_to("Trilu", {in(e, op, 0), k_scalar}, {out(e, op)}, upper);
    return;
  }
  const std::string wide = e.cast(in(e, op, 0), type, MLOperandDataType::kInt64);
  const std::string result = e.node("Trilu", {wide, k_scalar}, upper);
  e.node_to("Cast", {result}, {out(e, op)}, {{"to", int64_t{onnx_type_of(type)}}});
}

// tile (row 92): Tile with the repetitions.
void lower_tile(Emitter& e, const Operation& op, const AttrsOf<OpType::kTile>& attrs) {
  const std::vector<int64_t> reps = to_i64(attrs.params.shape);
  if (std::all_of(reps.begin(), reps.end(), [](int64_t r) { return r == 1; }))
    return identity_to(e, in(e, op, 0), out(e, op));
  e.node_to("Tile", {in(e, op, 0), e.const_i64(reps)}, {out(e, op)});
}

// reverse (row 82): a Slice with step -1 from the last element past the first (end INT64_MIN)
// over the listed axes (absent: all; empty: none); axes of size 1 are skipped.
void lower_reverse(Emitter& e, const Operation& op, const AttrsOf<OpType::kReverse>& attrs) {
  const std::vector<int64_t> dims = e.dims(op.inputs[0]);
  std::vector<uint32_t> all(dims.size());
  std::iota(all.begin(), all.end(), 0u);
  std::vector<int64_t> axes;
  for (uint32_t a : attrs.options.axes.value_or(all))
    if (dims[a] > 1) axes.push_back(a);
  if (axes.empty()) return identity_to(e, in(e, op, 0), out(e, op));
  const std::vector<int64_t> starts(axes.size(), -1);
  const std::vector<int64_t> ends(axes.size(), std::numeric_limits<int64_t>::min());
  const std::vector<int64_t> steps(axes.size(), -1);
  e.node_to(
      "Slice",
      {in(e, op, 0), e.const_i64(starts), e.const_i64(ends), e.const_i64(axes), e.const_i64(steps)},
      {out(e, op)});
}

// where (row 94): the uint8 condition as bool; ONNX Runtime's missing Where types select
// through a wider integer type.
void lower_where(Emitter& e, const Operation& op, const AttrsOf<OpType::kWhere>&) {
  std::string cond = u8_to_bool(e, in(e, op, 0));
  where_any(e, cond, in(e, op, 1), in(e, op, 2), e.type(op.outputs[0]), out(e, op));
}

}  // namespace cppnn::onnx_export
