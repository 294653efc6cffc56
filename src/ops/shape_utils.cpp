#include "src/ops/shape_utils.h"

#include <algorithm>

#include "src/core/checked_math.h"
#include "src/ops/op_limits.h"

namespace cppnn {

// Wide signed integer for the spec's mathematical size formulas (terms reach 2^64).
__extension__ typedef __int128 Wide;

bool is_valid_dimension(int64_t v) {
  return v > 0 && static_cast<uint64_t>(v) <= kMaxDimension;
}

std::string dims_str(const Dims& d) {
  return shape_to_string(d);
}

Status check_dimensions(const MLOperandDescriptor& d, std::string_view what) {
  if (d.shape.size() > kMaxRank)
    return type_error(what, " rank ", d.shape.size(), " exceeds the maximum rank ", kMaxRank);
  uint64_t count = 1;
  for (uint32_t dim : d.shape) {
    if (!is_valid_dimension(dim))
      return type_error(what, " shape ", dims_str(d.shape), " has an invalid dimension ", dim);
    auto c = checked_mul(count, dim);
    if (!c || *c > kMaxDimension)
      return type_error(what, " shape ", dims_str(d.shape),
                        " has too many elements (the element count must be at most ", kMaxDimension,
                        ")");
    count = *c;
  }
  uint64_t bits = data_type_bits(d.dataType);
  uint64_t bytes = bits < 8 ? (count + 1) / 2 : count * (bits / 8);  // count < 2^31: no overflow
  if (bytes > kMaxTensorByteLength)
    return type_error(what, " byte length exceeds maxTensorByteLength ", kMaxTensorByteLength);
  return Ok{};
}

Result<Dims> broadcast_bidirectional(const Dims& a, const Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    uint32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    uint32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return type_error("shapes ", dims_str(a), " and ", dims_str(b), " are not broadcastable");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool is_unidirectionally_broadcastable(const Dims& from, const Dims& to) {
  if (from.size() > to.size()) return false;
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[i + off] && from[i] != 1) return false;
  return true;
}

Status validate_axes(const std::vector<uint32_t>& axes, size_t rank, std::string_view what) {
  std::vector<bool> seen(rank, false);
  for (uint32_t a : axes) {
    if (a >= rank) return type_error(what, " value ", a, " is out of range for rank ", rank);
    if (seen[a]) return type_error(what, " has the duplicate value ", a);
    seen[a] = true;
  }
  return Ok{};
}

Status check_length(size_t actual, size_t n, std::string_view what) {
  if (actual != n) return type_error(what, " must have ", n, " entries, got ", actual);
  return Ok{};
}

Status check_finite(double v, std::string_view what) {
  if (!(v - v == 0)) return type_error(what, " must be a finite number, got ", v);
  return Ok{};
}

Status check_all_positive(const std::vector<uint32_t>& v, std::string_view what) {
  for (uint32_t x : v)
    if (x == 0) return type_error(what, " entries must be greater than 0, got ", dims_str(v));
  return Ok{};
}

Dims reduce_shape(const Dims& shape, const std::vector<uint32_t>& axes, bool keep_dims) {
  std::vector<bool> reduce(shape.size(), false);
  for (uint32_t a : axes) reduce[a] = true;
  Dims out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduce[i])
      out.push_back(shape[i]);
    else if (keep_dims)
      out.push_back(1);
  }
  return out;
}

Result<uint32_t> conv_output_size(uint32_t in, uint32_t k, uint32_t pad_begin, uint32_t pad_end,
                                  uint32_t stride, uint32_t dilation, bool ceil,
                                  std::string_view what) {
  // All terms fit easily in Wide; the spec treats them as mathematical integers.
  Wide effective = (Wide(k) - 1) * dilation + 1;
  Wide num = Wide(in) - effective + pad_begin + pad_end;
  if (num < 0)
    return type_error(what, ": the window (", int64_t(effective),
                      ") is larger than the padded input (",
                      int64_t(Wide(in) + pad_begin + pad_end), ")");
  Wide q = num / stride;
  if (ceil && num % stride != 0) q += 1;
  Wide out = q + 1;
  if (out <= 0 || out > Wide(kMaxDimension))
    return type_error(what, ": the output size ", int64_t(out), " is not a valid dimension");
  return static_cast<uint32_t>(out);
}

int64_t conv_transpose_output_size(uint32_t in, uint32_t k, uint32_t pad_begin, uint32_t pad_end,
                                   uint32_t stride, uint32_t dilation, uint32_t output_padding) {
  Wide effective = (Wide(k) - 1) * dilation + 1;
  Wide out = (Wide(in) - 1) * stride + effective - pad_begin - pad_end + output_padding;
  if (out > INT64_MAX) return INT64_MAX;
  if (out < INT64_MIN) return INT64_MIN;
  return static_cast<int64_t>(out);
}

}  // namespace cppnn
