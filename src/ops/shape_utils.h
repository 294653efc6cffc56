// Shared shape rules of webnn-spec.md §3.2-§3.5 used by the op inference functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/enums.h"
#include "src/core/result.h"

namespace cppnn {

using Dims = std::vector<uint32_t>;

// §3.2 valid dimension: an integer in 1..2^31-1.
bool is_valid_dimension(int64_t v);
// §3.2 check dimensions on a descriptor: rank <= kMaxRank, every dim valid, the element count a
// valid dimension and the byte length within kMaxTensorByteLength. `what` names the operand.
Status check_dimensions(const MLOperandDescriptor& d, std::string_view what);

// §3.4 bidirectional broadcast of two shapes (binary ops, where, prelu, matmul batch dims).
Result<Dims> broadcast_bidirectional(const Dims& a, const Dims& b);
// §3.4 unidirectional broadcast: can `from` broadcast to `to` (expand, gemm c)?
bool is_unidirectionally_broadcastable(const Dims& from, const Dims& to);

// Every axis < rank and no axis twice; `what` names the option ("axes").
Status validate_axes(const std::vector<uint32_t>& axes, size_t rank, std::string_view what);
// A list option has exactly `n` entries.
Status check_length(size_t actual, size_t n, std::string_view what);
// A double option is finite (WebIDL `double`, not `unrestricted double`).
Status check_finite(double v, std::string_view what);
// Every entry of a list option is > 0.
Status check_all_positive(const std::vector<uint32_t>& v, std::string_view what);

// Reduced shape for reductions and argMin/argMax: drops the axes, or sets them to 1 with
// keep_dims (§2 row 69).
Dims reduce_shape(const Dims& shape, const std::vector<uint32_t>& axes, bool keep_dims);

// §3.5 conv/pool output size (in - ((k-1)*d+1) + pb + pe)/s + 1 computed exactly in wide signed
// arithmetic, rounded down (or up with `ceil`). Error when the result is not a valid dimension.
Result<uint32_t> conv_output_size(uint32_t in, uint32_t k, uint32_t pad_begin, uint32_t pad_end,
                                  uint32_t stride, uint32_t dilation, bool ceil,
                                  std::string_view what);
// §3.5 convTranspose output size (in-1)*s + ((k-1)*d+1) - pb - pe + output_padding, as int64
// (may be <= 0 or too large; callers check validity).
int64_t conv_transpose_output_size(uint32_t in, uint32_t k, uint32_t pad_begin, uint32_t pad_end,
                                   uint32_t stride, uint32_t dilation, uint32_t output_padding);

// Rank/shape agreement helpers for messages.
std::string dims_str(const Dims& d);

}  // namespace cppnn
