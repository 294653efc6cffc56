// gather on the cpu backend (webnn-spec.md §2 row 48), for any element type of whole bytes, the
// indices resolved as the reference resolves them (index_resolution.h): constant indices once at
// build, runtime ones (an embedding's token ids) at each dispatch. Blocks of the inner dimensions
// are copied, single 4-byte elements (gathers along the last axis, such as a nearest-neighbour
// resize's column gather) by a typed loop; split over the pool by rows of the output, or by
// indices when there is one row (an embedding).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/reference/index_resolution.h"

namespace cppnn::cpu {
namespace {

// Resolves `count` indices of type I (possibly unaligned) against dimension size d into out.
template <class I>
void resolve_all(const std::byte* data, size_t count, int64_t d, int64_t* out) {
  for (size_t j = 0; j < count; ++j) {
    I v;
    std::memcpy(&v, data + j * sizeof(I), sizeof(I));
    out[j] = ref::resolve_index(v, d);
  }
}

struct GatherKernel {
  OperandId input, output;
  size_t outer, axis_dim, inner, element_bytes;
  std::shared_ptr<const std::vector<int64_t>> indices;  // constant indices, resolved
  // Runtime indices: their operand, type and count (indices is null then).
  OperandId index_operand;
  MLOperandDataType index_type = MLOperandDataType::kInt32;
  size_t index_count = 0;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const std::byte* in = slots[input.value];
    std::byte* out = slots[output.value];
    thread_local std::vector<int64_t> runtime;
    const int64_t* idx = nullptr;
    size_t count = 0;
    if (indices) {
      idx = indices->data();
      count = indices->size();
    } else {
      count = index_count;
      runtime.resize(count);
      const std::byte* data = slots[index_operand.value];
      const auto d = static_cast<int64_t>(axis_dim);
      if (index_type == MLOperandDataType::kInt32)
        resolve_all<int32_t>(data, count, d, runtime.data());
      else if (index_type == MLOperandDataType::kUint32)
        resolve_all<uint32_t>(data, count, d, runtime.data());
      else
        resolve_all<int64_t>(data, count, d, runtime.data());
      idx = runtime.data();
    }
    const size_t block = inner * element_bytes;
    auto copy = [&](size_t o, size_t j0, size_t j1) {
      const std::byte* src = in + o * axis_dim * block;
      std::byte* dst = out + o * count * block;
      if (block == 4) {
        const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
        uint32_t* d = reinterpret_cast<uint32_t*>(dst);
        for (size_t j = j0; j < j1; ++j) d[j] = s[idx[j]];
      } else {
        for (size_t j = j0; j < j1; ++j)
          std::memcpy(dst + j * block, src + size_t(idx[j]) * block, block);
      }
    };
    if (outer == 1) {  // one row: split the indices
      pool->parallel_ranges(count, std::max<size_t>(16384 / std::max<size_t>(block, 1), 1),
                            [&](size_t j0, size_t j1) { copy(0, j0, j1); });
      return;
    }
    const size_t row_bytes = std::max<size_t>(count * block, 1);
    pool->parallel_ranges(outer, std::max<size_t>(16384 / row_bytes, 1), [&](size_t o0, size_t o1) {
      for (size_t o = o0; o < o1; ++o) copy(o, 0, count);
    });
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_gather(const CompileContext& cc, const Operation& op) {
  const OperandId input = op.inputs[0], indices = op.inputs[1];
  const std::byte* data = cc.constant(indices);
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
  k.pool = cc.pool;
  if (!data) {
    k.index_operand = indices;
    k.index_type = cc.desc(indices).dataType;
    k.index_count = count;
    if (k.index_type != MLOperandDataType::kInt32 && k.index_type != MLOperandDataType::kUint32 &&
        k.index_type != MLOperandDataType::kInt64)
      return std::nullopt;
    return FastKernel{std::move(k), false};
  }
  std::vector<int64_t> resolved(count);
  switch (cc.desc(indices).dataType) {
    case MLOperandDataType::kInt32:
      resolve_all<int32_t>(data, count, d, resolved.data());
      break;
    case MLOperandDataType::kUint32:
      resolve_all<uint32_t>(data, count, d, resolved.data());
      break;
    case MLOperandDataType::kInt64:
      resolve_all<int64_t>(data, count, d, resolved.data());
      break;
    default:
      return std::nullopt;
  }
  k.indices = std::make_shared<const std::vector<int64_t>>(std::move(resolved));
  return FastKernel{std::move(k), false};
}

}  // namespace cppnn::cpu
