// Small helpers shared by the ONNX operator handlers.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// float32 or float16 (shared by every family).
bool is_float_type(MLOperandDataType t);
// ONNX axis (negative counts from the end) -> WebNN axis in [0, rank); DataError when out of range.
uint32_t normalize_axis(const NodeContext& c, int64_t axis, size_t rank);
// The same for a list (duplicates rejected).
std::vector<uint32_t> normalize_axes(const NodeContext& c, const std::vector<int64_t>& axes,
                                     size_t rank);
// int64 dimensions -> WebNN dimensions; DataError for negative or too large values.
std::vector<uint32_t> to_dims(const NodeContext& c, const std::vector<int64_t>& values);
// The bidirectional (numpy) broadcast of two shapes; DataError when incompatible.
std::vector<uint32_t> broadcast_shapes(const NodeContext& c, const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b);
// `t` with a new shape of the same element count (no copy).
HostTensor host_reshape(const HostTensor& t, std::vector<uint32_t> shape);
// `x` cast to `type` unless it already has it.
MLOperand cast_to(NodeContext& c, const MLOperand& x, MLOperandDataType type);
// The axes of an ONNX node given as attribute `name` before `input_opset`, as input `index` from
// then on; nullopt when absent.
std::optional<std::vector<int64_t>> axes_attr_or_input(const NodeContext& c, const char* name,
                                                       int64_t input_opset, size_t index);
// Index input `i` (int32 or int64, else DataError) as `type` (its own type when absent) with
// negative values wrapped: element e uses dims[e % dims.size()] (one entry for element-wise
// indices, the last-axis sizes for ND indices). Known values are wrapped on the host (DataError
// outside [-d, d)), others with where(i < 0, i + d, i).
MLOperand wrapped_indices(NodeContext& c, size_t i, const std::vector<int64_t>& dims,
                          std::optional<MLOperandDataType> type = std::nullopt);

}  // namespace cppnn::onnx_import
