// gather on the cpu backend (webnn-spec.md §2 row 48) with constant indices (resolved once at
// build, as the reference resolves them: index_resolution.h), for any element type: blocks of the
// inner dimensions copied, single 4-byte elements (gathers along the last axis, such as a
// nearest-neighbour resize's column gather) copied by a typed loop; split over the pool by rows
// of the output.
#include <cstring>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/reference/index_resolution.h"

namespace cppnn::cpu {
namespace {

// The resolved indices of constant `id` along a dimension of `d`, or empty.
template <class I>
std::vector<int64_t> resolved(const std::byte* data, size_t count, int64_t d) {
  std::vector<int64_t> out(count);
  for (size_t j = 0; j < count; ++j) {
    I v;
    std::memcpy(&v, data + j * sizeof(I), sizeof(I));
    out[j] = ref::resolve_index(v, d);
  }
  return out;
}

struct GatherKernel {
  OperandId input, output;
  size_t outer, axis_dim, inner, element_bytes;
  std::shared_ptr<const std::vector<int64_t>> indices;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const std::byte* in = slots[input.value];
    std::byte* out = slots[output.value];
    const size_t count = indices->size(), block = inner * element_bytes;
    const int64_t* idx = indices->data();
    const size_t tasks = std::min<size_t>(outer, pool->size() * 4);
    pool->parallel_for(tasks, [&](size_t t) {
      for (size_t o = outer * t / tasks; o < outer * (t + 1) / tasks; ++o) {
        const std::byte* src = in + o * axis_dim * block;
        std::byte* dst = out + o * count * block;
        if (block == 4) {
          const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
          uint32_t* d = reinterpret_cast<uint32_t*>(dst);
          for (size_t j = 0; j < count; ++j) d[j] = s[idx[j]];
        } else {
          for (size_t j = 0; j < count; ++j)
            std::memcpy(dst + j * block, src + size_t(idx[j]) * block, block);
        }
      }
    });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_gather(const CompileContext& cc, const Operation& op) {
  const OperandId input = op.inputs[0], indices = op.inputs[1];
  const std::byte* data = cc.constant(indices);
  if (!data) return std::nullopt;
  const MLOperandDescriptor& in = cc.desc(input);
  const size_t bits = data_type_bits(in.dataType);
  if (bits < 8) return std::nullopt;  // 4-bit elements are not byte addressable
  const uint32_t axis = attrs_of<OpType::kGather>(op.attrs).options.axis;
  GatherKernel k;
  k.input = input;
  k.output = op.outputs[0];
  k.outer = 1;
  for (uint32_t i = 0; i < axis; ++i) k.outer *= in.shape[i];
  k.axis_dim = in.shape[axis];
  k.inner = 1;
  for (size_t i = axis + 1; i < in.shape.size(); ++i) k.inner *= in.shape[i];
  k.element_bytes = bits / 8;
  const size_t count = element_count(cc.desc(indices).shape);
  const int64_t d = int64_t(k.axis_dim);
  switch (cc.desc(indices).dataType) {
    case MLOperandDataType::kInt32:
      k.indices = std::make_shared<const std::vector<int64_t>>(resolved<int32_t>(data, count, d));
      break;
    case MLOperandDataType::kUint32:
      k.indices = std::make_shared<const std::vector<int64_t>>(resolved<uint32_t>(data, count, d));
      break;
    case MLOperandDataType::kInt64:
      k.indices = std::make_shared<const std::vector<int64_t>>(resolved<int64_t>(data, count, d));
      break;
    default:
      return std::nullopt;
  }
  k.pool = cc.pool;
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
