// Data movement operations (webnn-spec.md §2 rows 6, 47, 64, 81, 82, 86, 90, 92-95; errata §6
// items 2, 6 and 18): concat, split, reshape, expand, pad, slice, tile, transpose, triangular,
// reverse and where. Sizes derived from options are computed in 64 bits and must be valid
// dimensions (§3.2) before they are narrowed.
#include <optional>
#include <string_view>
#include <variant>

#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// The single-input, single-output limits of most ops here: input and output of the given types,
// any rank from `min_rank`.
OpLimits single_input(DataTypeMask required, uint8_t min_rank = 0) {
  return {{{"input", kAny, required, min_rank}}, {{"output", kAny, required, min_rank}}};
}

// A dimension computed in 64 bits by a size rule, narrowed once it is known to be valid.
Result<uint32_t> to_dimension(uint64_t v, std::string_view what) {
  if (v == 0 || v > kMaxDimension)
    return type_error(what, " ", v, " is not a valid dimension (1 to ", kMaxDimension, ")");
  return static_cast<uint32_t>(v);
}

// Every entry of a shape-like list is a valid dimension.
Status check_valid_dimensions(const Dims& dims, std::string_view what) {
  for (uint32_t d : dims)
    if (!is_valid_dimension(d))
      return type_error(what, " ", dims_str(dims), " has an invalid dimension ", d);
  return Ok{};
}

// The element count of `dims`, or nullopt once it exceeds kMaxDimension (no overflow: every
// dim is at most kMaxDimension when called).
std::optional<uint64_t> bounded_element_count(const Dims& dims) {
  uint64_t count = 1;
  for (uint32_t d : dims) {
    count *= d;
    if (count > kMaxDimension) return std::nullopt;
  }
  return count;
}

// [rank-1, ..., 1, 0]: transpose's default permutation.
Dims reversed_axes(size_t rank) {
  Dims axes(rank);
  for (size_t i = 0; i < rank; ++i) axes[i] = static_cast<uint32_t>(rank - 1 - i);
  return axes;
}

// The `axis` option or parameter is < rank.
Status check_axis(uint32_t axis, size_t rank) {
  if (axis >= rank) return type_error("axis ", axis, " is out of range for rank ", rank);
  return Ok{};
}

}  // namespace

// concat (row 6): inputs of one type and rank, equal except at `axis`, which is summed.
const OpLimits limits_concat{{{"inputs", kAny, kFloat | kI32, 1}},
                             {{"output", kAny, kFloat | kI32, 1}}};
Result<OutputDescs> infer_concat(const InferInput& in, const AttrsOf<OpType::kConcat>& attrs) {
  const uint32_t axis = attrs.params.axis;
  const Dims& first = in[0].shape;
  CPPNN_RETURN_IF_ERROR(check_axis(axis, first.size()));
  uint64_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Dims& s = in[i].shape;
    if (s.size() != first.size())
      return type_error("inputs[", i, "] rank ", s.size(), " must match inputs[0] rank ",
                        first.size());
    for (size_t d = 0; d < s.size(); ++d)
      if (d != axis && s[d] != first[d])
        return type_error("inputs[", i, "] shape ", dims_str(s), " must match inputs[0] shape ",
                          dims_str(first), " except at axis ", axis);
    sum += s[axis];
  }
  auto dim = to_dimension(sum, "the concatenated axis size");
  if (!dim) return dim.error();
  MLOperandDescriptor out = in[0];
  out.shape[axis] = *dim;
  return OutputDescs{std::move(out)};
}

// split (row 90): `splits` equal parts, or parts of the listed sizes, along options.axis.
const OpLimits limits_split{{{"input", kAny, kFloat | kI32, 1}},
                            {{"outputs", kAny, kFloat | kI32, 1}}};
Result<OutputDescs> infer_split(const InferInput& in, const AttrsOf<OpType::kSplit>& attrs) {
  const uint32_t axis = attrs.options.axis;
  CPPNN_RETURN_IF_ERROR(check_axis(axis, in[0].shape.size()));
  const uint32_t dim = in[0].shape[axis];
  Dims sizes;
  if (const auto* count = std::get_if<uint32_t>(&attrs.params.splits)) {
    if (*count == 0 || *count > kMaxTensorCount)
      return type_error("splits count ", *count, " must be 1 to ", kMaxTensorCount);
    if (dim % *count != 0)
      return type_error("splits count ", *count, " does not divide the axis size ", dim);
    sizes.assign(*count, dim / *count);
  } else {
    sizes = std::get<std::vector<uint32_t>>(attrs.params.splits);
    if (sizes.empty() || sizes.size() > kMaxTensorCount)
      return type_error("splits must have 1 to ", kMaxTensorCount, " entries, got ", sizes.size());
    CPPNN_RETURN_IF_ERROR(check_all_positive(sizes, "splits"));
    uint64_t sum = 0;
    for (uint32_t s : sizes) sum += s;
    if (sum != dim)
      return type_error("splits ", dims_str(sizes), " sum to ", sum, ", not the axis size ", dim);
  }
  OutputDescs outs(sizes.size(), in[0]);
  for (size_t i = 0; i < sizes.size(); ++i) outs[i].shape[axis] = sizes[i];
  return outs;
}

// reshape (row 81): newShape of valid dimensions holding the same element count.
const OpLimits limits_reshape = single_input(kFloat | kI32 | kI8 | kU8);
Result<OutputDescs> infer_reshape(const InferInput& in, const AttrsOf<OpType::kReshape>& attrs) {
  const Dims& shape = attrs.params.shape;
  CPPNN_RETURN_IF_ERROR(check_valid_dimensions(shape, "newShape"));
  auto count = bounded_element_count(shape);
  auto in_count = bounded_element_count(in[0].shape);
  if (!count || count != in_count)
    return type_error("newShape ", dims_str(shape), " must hold as many elements as input shape ",
                      dims_str(in[0].shape));
  return OutputDescs{{in[0].dataType, shape}};
}

// expand (row 47, erratum 18): unidirectional broadcast of input to newShape of valid dims.
const OpLimits limits_expand = single_input(kFloat | kI32);
Result<OutputDescs> infer_expand(const InferInput& in, const AttrsOf<OpType::kExpand>& attrs) {
  const Dims& shape = attrs.params.shape;
  CPPNN_RETURN_IF_ERROR(check_valid_dimensions(shape, "newShape"));
  if (!is_unidirectionally_broadcastable(in[0].shape, shape))
    return type_error("input shape ", dims_str(in[0].shape),
                      " is not unidirectionally broadcastable to newShape ", dims_str(shape));
  return OutputDescs{{in[0].dataType, shape}};
}

// pad (row 64): out[d] = beginningPadding[d] + in[d] + endingPadding[d]; scalars allowed (#894).
const OpLimits limits_pad = single_input(kFloat);
Result<OutputDescs> infer_pad(const InferInput& in, const AttrsOf<OpType::kPad>& attrs) {
  const Dims& shape = in[0].shape;
  const Dims& begin = attrs.params.first;
  const Dims& end = attrs.params.second;
  CPPNN_RETURN_IF_ERROR(check_length(begin.size(), shape.size(), "beginningPadding"));
  CPPNN_RETURN_IF_ERROR(check_length(end.size(), shape.size(), "endingPadding"));
  MLOperandDescriptor out = in[0];
  for (size_t d = 0; d < shape.size(); ++d) {
    if (attrs.options.mode == MLPaddingMode::kReflection &&
        (begin[d] >= shape[d] || end[d] >= shape[d]))
      return type_error("reflection padding (", begin[d], ", ", end[d], ") of dimension ", d,
                        " must be less than its size ", shape[d]);
    auto dim = to_dimension(uint64_t{begin[d]} + shape[d] + end[d], "padded size");
    if (!dim) return dim.error();
    out.shape[d] = *dim;
  }
  return OutputDescs{std::move(out)};
}

// slice (row 86): out[d] = ceil(sizes[d] / strides[d]) with starts[d] + sizes[d] <= in[d].
const OpLimits limits_slice = single_input(kFloat | kI32 | kI8 | kU8);
Result<OutputDescs> infer_slice(const InferInput& in, const AttrsOf<OpType::kSlice>& attrs) {
  const Dims& shape = in[0].shape;
  const Dims& starts = attrs.params.first;
  const Dims& sizes = attrs.params.second;
  const Dims strides = attrs.options.strides.value_or(Dims(shape.size(), 1));
  CPPNN_RETURN_IF_ERROR(check_length(starts.size(), shape.size(), "starts"));
  CPPNN_RETURN_IF_ERROR(check_length(sizes.size(), shape.size(), "sizes"));
  CPPNN_RETURN_IF_ERROR(check_length(strides.size(), shape.size(), "strides"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(sizes, "sizes"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(strides, "strides"));
  MLOperandDescriptor out = in[0];
  for (size_t d = 0; d < shape.size(); ++d) {
    if (uint64_t{starts[d]} + sizes[d] > shape[d])
      return type_error("slice [", starts[d], ", ", uint64_t{starts[d]} + sizes[d],
                        ") of dimension ", d, " exceeds its size ", shape[d]);
    out.shape[d] = (sizes[d] - 1) / strides[d] + 1;
  }
  return OutputDescs{std::move(out)};
}

// tile (row 92): out[d] = in[d] * repetitions[d], each a valid dimension.
const OpLimits limits_tile = single_input(kFloat | kI32);
Result<OutputDescs> infer_tile(const InferInput& in, const AttrsOf<OpType::kTile>& attrs) {
  const Dims& shape = in[0].shape;
  const Dims& reps = attrs.params.shape;
  CPPNN_RETURN_IF_ERROR(check_length(reps.size(), shape.size(), "repetitions"));
  CPPNN_RETURN_IF_ERROR(check_all_positive(reps, "repetitions"));
  MLOperandDescriptor out = in[0];
  for (size_t d = 0; d < shape.size(); ++d) {
    auto dim = to_dimension(uint64_t{shape[d]} * reps[d], "tiled size");
    if (!dim) return dim.error();
    out.shape[d] = *dim;
  }
  return OutputDescs{std::move(out)};
}

// transpose (row 93, erratum 2): out[i] = in[permutation[i]]; default reverses the dimensions.
const OpLimits limits_transpose = single_input(kFloat | kI32);
Result<OutputDescs> infer_transpose(const InferInput& in,
                                    const AttrsOf<OpType::kTranspose>& attrs) {
  const Dims& shape = in[0].shape;
  const Dims perm = attrs.options.permutation.value_or(reversed_axes(shape.size()));
  CPPNN_RETURN_IF_ERROR(check_length(perm.size(), shape.size(), "permutation"));
  CPPNN_RETURN_IF_ERROR(validate_axes(perm, shape.size(), "permutation"));
  MLOperandDescriptor out = in[0];
  for (size_t i = 0; i < perm.size(); ++i) out.shape[i] = shape[perm[i]];
  return OutputDescs{std::move(out)};
}

// triangular (row 94): a copy of the input, of rank 2 or more.
const OpLimits limits_triangular = single_input(kFloat, 2);
Result<OutputDescs> infer_triangular(const InferInput& in, const AttrsOf<OpType::kTriangular>&) {
  return OutputDescs{in[0]};
}

// reverse (row 82, erratum 6): a copy of the input; axes in range and distinct (absent: all).
const OpLimits limits_reverse = single_input(kFloat | kI32);
Result<OutputDescs> infer_reverse(const InferInput& in, const AttrsOf<OpType::kReverse>& attrs) {
  if (attrs.options.axes)
    CPPNN_RETURN_IF_ERROR(validate_axes(*attrs.options.axes, in[0].shape.size(), "axes"));
  return OutputDescs{in[0]};
}

// where (row 95): broadcast of condition, trueValue and falseValue, with trueValue's type.
const OpLimits limits_where{{{"condition", kU8, kU8},
                             {"trueValue", kAny, kFloat | kI32},
                             {"falseValue", 0, 0, 0, kRankN, 1}},
                            {{"output", kAny, kFloat | kI32}}};
Result<OutputDescs> infer_where(const InferInput& in, const AttrsOf<OpType::kWhere>&) {
  auto values = broadcast_bidirectional(in[1].shape, in[2].shape);
  if (!values)
    return type_error("trueValue shape ", dims_str(in[1].shape), " and falseValue shape ",
                      dims_str(in[2].shape), " are not broadcastable");
  auto shape = broadcast_bidirectional(in[0].shape, *values);
  if (!shape)
    return type_error("condition shape ", dims_str(in[0].shape),
                      " is not broadcastable with the value shape ", dims_str(*values));
  return OutputDescs{{in[1].dataType, std::move(*shape)}};
}

}  // namespace cppnn
