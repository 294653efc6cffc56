// Gather and scatter operations (webnn-spec.md §2 rows 48-50, 83-84; §6 errata 3, 4, 11):
// gather, gatherElements, gatherND, scatterElements and scatterND. Indices are i32, u32 or i64;
// index values are not validated at build time.
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

constexpr DataTypeMask kIndices = kI32 | kU32 | kI64;
// "any [f32,f16,i32,i8,u8]" and "any [f32,f16,i32]" inputs.
constexpr DataTypeMask kWideRequired = kFloat | kI32 | kI8 | kU8;
constexpr DataTypeMask kNarrowRequired = kFloat | kI32;

Status check_axis(uint32_t axis, size_t rank) {
  if (axis >= rank) return type_error("axis ", axis, " must be less than the input rank ", rank);
  return Ok{};
}

// indices has the input's rank and the input's dims except at `axis` (gatherElements and
// scatterElements).
Status check_element_indices(const Dims& input, const Dims& indices, uint32_t axis) {
  if (indices.size() != input.size())
    return type_error("indices rank ", indices.size(), " must equal the input rank ", input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (i != axis && indices[i] != input[i])
      return type_error("indices shape ", dims_str(indices), " must equal input shape ",
                        dims_str(input), " except at axis ", axis);
  }
  return Ok{};
}

// The last indices dim k (the coordinate length) is at most the input rank; returns
// indices.shape[:-1] ++ input.shape[k:] (gatherND output, scatterND updates).
Result<Dims> nd_slice_shape(const Dims& input, const Dims& indices) {
  const uint32_t k = indices.back();
  if (k > input.size())
    return type_error("indices shape ", dims_str(indices), " has a last dimension ", k,
                      " greater than the input rank ", input.size());
  Dims out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), input.begin() + k, input.end());
  return out;
}

}  // namespace

// gather (row 48, erratum 11): output input[:axis] ++ indices.shape ++ input[axis+1:], which is
// rank 0 for a rank-1 input and a scalar index.
const OpLimits limits_gather{{{"input", kAny, kWideRequired, 1}, {"indices", kIndices, kI32}},
                             {{"output", 0, kWideRequired, 0, kRankN, 0}}};
Result<OutputDescs> infer_gather(const InferInput& in, const AttrsOf<OpType::kGather>& attrs) {
  const Dims& input = in[0].shape;
  const uint32_t axis = attrs.options.axis;
  CPPNN_RETURN_IF_ERROR(check_axis(axis, input.size()));
  Dims out(input.begin(), input.begin() + axis);
  out.insert(out.end(), in[1].shape.begin(), in[1].shape.end());
  out.insert(out.end(), input.begin() + axis + 1, input.end());
  return OutputDescs{{in[0].dataType, std::move(out)}};
}

// gatherElements (row 49, erratum 3): indices of the input's rank matching the input except at
// axis; the output has indices.shape.
const OpLimits limits_gatherElements{
    {{"input", kAny, kNarrowRequired, 1}, {"indices", kIndices, kI32, 1}},
    {{"output", 0, kNarrowRequired, 1, kRankN, 0}}};
Result<OutputDescs> infer_gatherElements(const InferInput& in,
                                         const AttrsOf<OpType::kGatherElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  CPPNN_RETURN_IF_ERROR(check_axis(axis, in[0].shape.size()));
  CPPNN_RETURN_IF_ERROR(check_element_indices(in[0].shape, in[1].shape, axis));
  return OutputDescs{{in[0].dataType, in[1].shape}};
}

// gatherND (row 50): output indices.shape[:-1] ++ input.shape[indices.shape[-1]:].
const OpLimits limits_gatherND{{{"input", kAny, kWideRequired, 1}, {"indices", kIndices, kI32, 1}},
                               {{"output", 0, kWideRequired, 0, kRankN, 0}}};
Result<OutputDescs> infer_gatherND(const InferInput& in, const AttrsOf<OpType::kGatherND>&) {
  auto shape = nd_slice_shape(in[0].shape, in[1].shape);
  if (!shape) return shape.error();
  return OutputDescs{{in[0].dataType, std::move(*shape)}};
}

// scatterElements (row 83): indices like gatherElements, updates.shape == indices.shape; the
// output is a copy of the input descriptor.
const OpLimits limits_scatterElements{{{"input", kAny, kNarrowRequired, 1},
                                       {"indices", kIndices, kI32, 1},
                                       {"updates", 0, kNarrowRequired, 1, kRankN, 0}},
                                      {{"output", 0, kNarrowRequired, 1, kRankN, 0}}};
Result<OutputDescs> infer_scatterElements(const InferInput& in,
                                          const AttrsOf<OpType::kScatterElements>& attrs) {
  const uint32_t axis = attrs.options.axis;
  CPPNN_RETURN_IF_ERROR(check_axis(axis, in[0].shape.size()));
  CPPNN_RETURN_IF_ERROR(check_element_indices(in[0].shape, in[1].shape, axis));
  if (in[2].shape != in[1].shape)
    return type_error("updates shape ", dims_str(in[2].shape), " must equal indices shape ",
                      dims_str(in[1].shape));
  return OutputDescs{in[0]};
}

// scatterND (row 84, erratum 4): updates.shape == indices.shape[:-1] ++ input.shape[k:] with
// k = indices.shape[-1] ≤ input rank; the output is a copy of the input descriptor.
const OpLimits limits_scatterND{{{"input", kAny, kNarrowRequired, 1},
                                 {"indices", kIndices, kI32, 1},
                                 {"updates", 0, kNarrowRequired, 0, kRankN, 0}},
                                {{"output", 0, kNarrowRequired, 1, kRankN, 0}}};
Result<OutputDescs> infer_scatterND(const InferInput& in, const AttrsOf<OpType::kScatterND>&) {
  auto expected = nd_slice_shape(in[0].shape, in[1].shape);
  if (!expected) return expected.error();
  if (in[2].shape != *expected)
    return type_error("updates shape ", dims_str(in[2].shape), " must be ", dims_str(*expected));
  return OutputDescs{in[0]};
}

}  // namespace cppnn
