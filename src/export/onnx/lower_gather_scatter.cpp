// ONNX lowering of the gather and scatter ops (see lower.h; webnn-spec.md §2 rows 48-50, 83-84,
// §6 errata 3, 4, 11, 12). Each maps to its ONNX namesake (Gather, GatherElements, GatherND,
// ScatterElements, ScatterND), which take every data type. The difference is the indices: WebNN
// clamps an index into −d..d−1 and then wraps a negative one (WPT, erratum 12), where ONNX
// Runtime rejects an out-of-range index. Constant indices are resolved at conversion time (an
// int64 initializer of in-range indices, so the common case costs nothing); other indices are
// clamped in the graph (Clip, or Min/Max per column for the ND ops), after a Cast to int64 where
// ONNX does not take their type (uint32 everywhere; int32 for the ND ops).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_data_movement_util.h"
#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {
namespace {

// An index value resolved against a dimension of size d: clamped into −d..d−1, then wrapped
// (as the reference backend's resolve_index).
template <class I>
int64_t resolve_index(I value, int64_t d) {
  int64_t v = 0;
  if constexpr (std::is_unsigned_v<I>) {
    v = static_cast<int64_t>(std::min<uint64_t>(value, static_cast<uint64_t>(d - 1)));
  } else {
    v = std::clamp<int64_t>(value, -d, d - 1);
  }
  return v < 0 ? v + d : v;
}

// Element i of a constant index operand of `type` (int32, uint32 or int64) resolved against d.
int64_t resolved_element(MLOperandDataType type, const std::byte* data, int64_t i, int64_t d) {
  switch (type) {
    case MLOperandDataType::kInt32: {
      int32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return resolve_index(v, d);
    }
    case MLOperandDataType::kUint32: {
      uint32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return resolve_index(v, d);
    }
    case MLOperandDataType::kInt64: {
      int64_t v;
      std::memcpy(&v, data + i * 8, 8);
      return resolve_index(v, d);
    }
    default:
      break;
  }
  throw NotSupportedError("indices must be int32, uint32 or int64");
}

// The indices operand as ONNX indices with WebNN's out-of-range behaviour. Element i is resolved
// against dims[i % dims.size()]: one dim for gather, gatherElements and scatterElements (the
// axis dim), the first k dims of the data for the ND ops (k = indices.shape[-1]). `need_int64`:
// the ONNX op takes only int64 indices (GatherND, ScatterND).
std::string onnx_indices(Emitter& e, OperandId indices, const std::vector<int64_t>& dims,
                         bool need_int64) {
  const MLOperandDataType type = e.type(indices);
  const std::vector<int64_t> shape = e.dims(indices);
  if (const ConstantData* data = constant_data(e, indices)) {
    const int64_t count = element_count(shape);
    const auto k = static_cast<int64_t>(dims.size());
    std::vector<int64_t> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      values[i] = resolved_element(type, data->data(), i, dims[i % k]);
    return e.const_tensor(MLOperandDataType::kInt64, shape,
                          std::as_bytes(std::span<const int64_t>(values)));
  }
  // In the graph: int32 stays int32 where ONNX takes it (Gather, GatherElements,
  // ScatterElements), everything else becomes int64; negatives are left to ONNX, which wraps
  // them the same way.
  const MLOperandDataType work = (type == MLOperandDataType::kInt32 && !need_int64)
                                     ? MLOperandDataType::kInt32
                                     : MLOperandDataType::kInt64;
  const std::string idx = e.cast(e.value(indices), type, work);
  if (dims.size() == 1) {
    // For an unsigned index only the upper bound matters, but after the cast -d is harmless.
    return e.node("Clip", {idx, e.const_scalar(work, MLNumber(-dims[0])),
                           e.const_scalar(work, MLNumber(dims[0] - 1))});
  }
  std::vector<int64_t> lo, hi;
  for (int64_t d : dims) {
    lo.push_back(-d);
    hi.push_back(d - 1);
  }
  return e.node("Max", {e.node("Min", {idx, e.const_i64(hi)}), e.const_i64(lo)});
}

// The first k dims of operand `data`, k = the last dim of `indices` (the ND ops).
std::vector<int64_t> nd_dims(const Emitter& e, OperandId data, OperandId indices) {
  const std::vector<int64_t> dims = e.dims(data);
  const int64_t k = e.dims(indices).back();
  return std::vector<int64_t>(dims.begin(), dims.begin() + k);
}

}  // namespace

// gather (row 48): Gather along `axis`.
void lower_gather(Emitter& e, const Operation& op, const AttrsOf<OpType::kGather>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const std::string idx = onnx_indices(e, op.inputs[1], {e.dims(op.inputs[0])[axis]}, false);
  e.node_to("Gather", {in(e, op, 0), idx}, {out(e, op)}, {{"axis", int64_t{axis}}});
}

// gatherElements (row 49): GatherElements along `axis` (output shape = indices shape, erratum 3).
void lower_gatherElements(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kGatherElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const std::string idx = onnx_indices(e, op.inputs[1], {e.dims(op.inputs[0])[axis]}, false);
  e.node_to("GatherElements", {in(e, op, 0), idx}, {out(e, op)}, {{"axis", int64_t{axis}}});
}

// gatherND (row 50): GatherND with batch_dims 0 and int64 indices.
void lower_gatherND(Emitter& e, const Operation& op, const AttrsOf<OpType::kGatherND>&) {
  const std::string idx =
      onnx_indices(e, op.inputs[1], nd_dims(e, op.inputs[0], op.inputs[1]), true);
  e.node_to("GatherND", {in(e, op, 0), idx}, {out(e, op)});
}

// scatterElements (row 83): ScatterElements along `axis` (reduction none; ONNX Runtime applies
// the updates in order, so with duplicate indices the last one wins, as in the reference).
void lower_scatterElements(Emitter& e, const Operation& op,
                           const AttrsOf<OpType::kScatterElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const std::string idx = onnx_indices(e, op.inputs[1], {e.dims(op.inputs[0])[axis]}, false);
  e.node_to("ScatterElements", {in(e, op, 0), idx, in(e, op, 2)}, {out(e, op)},
            {{"axis", int64_t{axis}}});
}

// scatterND (row 84): ScatterND with int64 indices (updates applied in order).
void lower_scatterND(Emitter& e, const Operation& op, const AttrsOf<OpType::kScatterND>&) {
  const std::string idx =
      onnx_indices(e, op.inputs[1], nd_dims(e, op.inputs[0], op.inputs[1]), true);
  e.node_to("ScatterND", {in(e, op, 0), idx, in(e, op, 2)}, {out(e, op)});
}

}  // namespace cppnn::onnx_export
