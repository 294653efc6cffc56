#include "src/api/tensor_copy.h"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/api/states.h"

namespace cppnn::detail {
namespace {

const TensorState& usable(const ContextState& ctx, const MLTensor& t, const char* role) {
  if (t.is_null()) throw TypeError(std::string("copy_tensor_region: the ") + role + " is null");
  const TensorState& s = *t.state();
  if (s.context != &ctx)
    throw TypeError(std::string("copy_tensor_region: the ") + role + " belongs to another context");
  if (s.destroyed.load())
    throw TypeError(std::string("copy_tensor_region: the ") + role + " is destroyed");
  return s;
}

void check_box(const TensorState& t, std::span<const uint32_t> starts,
               std::span<const uint32_t> sizes, const char* role) {
  const std::vector<uint32_t>& shape = t.descriptor.shape;
  if (starts.size() != shape.size() || sizes.size() != shape.size())
    throw TypeError(std::string("copy_tensor_region: the box has rank ") +
                    std::to_string(sizes.size()) + ", the " + role + " " + to_string(t.descriptor));
  for (size_t d = 0; d < shape.size(); ++d)
    if (uint64_t{starts[d]} + sizes[d] > shape[d])
      throw TypeError(std::string("copy_tensor_region: dimension ") + std::to_string(d) +
                      " of the box [" + std::to_string(starts[d]) + ", " +
                      std::to_string(uint64_t{starts[d]} + sizes[d]) + ") is outside the " + role +
                      " " + to_string(t.descriptor));
}

// Row-major element strides of `shape`.
std::vector<uint64_t> strides_of(const std::vector<uint32_t>& shape) {
  std::vector<uint64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

}  // namespace

void copy_tensor_region(const MLContext& context, const MLTensor& source,
                        std::span<const uint32_t> source_starts, const MLTensor& destination,
                        std::span<const uint32_t> destination_starts,
                        std::span<const uint32_t> sizes) {
  ContextState& ctx = *context.state();
  const TensorState& src = usable(ctx, source, "source");
  const TensorState& dst = usable(ctx, destination, "destination");
  const MLOperandDataType type = src.descriptor.dataType;
  if (type != dst.descriptor.dataType)
    throw TypeError("copy_tensor_region: the source is " + to_string(src.descriptor) +
                    ", the destination " + to_string(dst.descriptor));
  if (type == MLOperandDataType::kInt4 || type == MLOperandDataType::kUint4)
    throw TypeError("copy_tensor_region: 4-bit tensors are not supported");
  check_box(src, source_starts, sizes, "source");
  check_box(dst, destination_starts, sizes, "destination");
  const size_t rank = sizes.size();
  for (uint32_t s : sizes)
    if (s == 0) return;
  const uint64_t element = data_type_bits(type) / 8;
  const std::vector<uint64_t> ss = strides_of(src.descriptor.shape);
  const std::vector<uint64_t> ds = strides_of(dst.descriptor.shape);
  // The innermost run that is contiguous in both: trailing dimensions copied whole.
  size_t inner = rank;  // dimensions [inner, rank) form one contiguous run
  uint64_t run = 1;
  while (inner > 0) {
    const size_t d = inner - 1;
    run *= sizes[d];
    --inner;
    if (sizes[d] != src.descriptor.shape[d] || sizes[d] != dst.descriptor.shape[d]) break;
  }
  std::lock_guard<std::mutex> timeline(ctx.timeline);
  if (ctx.is_lost()) throw InvalidStateError("copy_tensor_region: the context is lost");
  if (src.destroyed.load() || dst.destroyed.load())
    throw InvalidStateError("copy_tensor_region: a tensor was destroyed");
  std::vector<uint32_t> index(inner, 0);  // position in the outer dimensions
  const std::byte* from = src.data.get();
  std::byte* to = dst.data.get();
  while (true) {
    uint64_t so = 0, doff = 0;
    for (size_t d = 0; d < rank; ++d) {
      const uint64_t i = d < inner ? index[d] : 0;
      so += (source_starts[d] + i) * ss[d];
      doff += (destination_starts[d] + i) * ds[d];
    }
    std::memmove(to + doff * element, from + so * element, run * element);
    size_t d = inner;
    while (d > 0 && ++index[d - 1] == sizes[d - 1]) index[--d] = 0;
    if (d == 0) break;
  }
}

}  // namespace cppnn::detail
