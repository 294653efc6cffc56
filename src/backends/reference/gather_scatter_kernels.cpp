// Reference kernels for the gather and scatter ops (webnn-spec.md §2 rows 48-50, 83-84; §6 errata
// 3, 4, 11, 12). These ops only move elements, so they copy raw element bits (by element width)
// whatever the data type. Index values (int32, uint32 or int64) are clamped into −d..d−1 and then
// a negative index counts from the end (§6.12, WPT), so no index reads or writes out of bounds.
// Scatters copy the input to the output first and then apply the updates in row-major order of
// the indices: with duplicate indices the last update wins.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cppnn/data_type.h"
#include "cppnn/descriptor.h"
#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/index_resolution.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// Calls f(Tag<I>{}) with the C++ type of an index operand (int32, uint32 or int64).
template <class F>
decltype(auto) visit_index_type(MLOperandDataType t, F&& f) {
  switch (t) {
    case MLOperandDataType::kInt32:
      return f(Tag<int32_t>{});
    case MLOperandDataType::kUint32:
      return f(Tag<uint32_t>{});
    case MLOperandDataType::kInt64:
      return f(Tag<int64_t>{});
    default:
      break;
  }
  throw OperationError("reference backend: indices must be int32, uint32 or int64");
}

// Calls f(Tag<W>{}) with an unsigned integer type as wide as one element of `t`.
template <class F>
decltype(auto) visit_element_width(MLOperandDataType t, F&& f) {
  switch (data_type_bits(t)) {
    case 8:
      return f(Tag<uint8_t>{});
    case 16:
      return f(Tag<uint16_t>{});
    case 32:
      return f(Tag<uint32_t>{});
    case 64:
      return f(Tag<uint64_t>{});
    default:
      break;
  }
  throw OperationError("reference backend: gather and scatter do not accept 4-bit data");
}

size_t element_bytes(MLOperandDataType t) {
  return data_type_bits(t) / 8;
}

// Copies the input to the output (the scatters' starting point).
void copy_input(const std::byte* in, std::byte* out, size_t bytes) {
  if (in != out && bytes != 0) std::memmove(out, in, bytes);
}

// Product of shape[begin:end].
int64_t product(const Dims& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// The shared setup of gatherElements and scatterElements: a loop over the indices shape where
// operand 0 walks the data tensor with the axis coordinate held at 0 and operand 1 walks the
// (dense) indices, updates and gatherElements output.
struct ElementsPlan {
  Dims shape;  // indices.shape
  std::array<Strides, 2> strides;
  int64_t axis_dim = 0;     // data.shape[axis]
  int64_t axis_stride = 0;  // data stride along axis
};

ElementsPlan elements_plan(const Dims& data, const Dims& indices, uint32_t axis) {
  ElementsPlan p;
  p.shape = indices;
  Strides data_strides = contiguous_strides(data);
  p.axis_dim = data[axis];
  p.axis_stride = data_strides[axis];
  data_strides[axis] = 0;
  p.strides = {data_strides, contiguous_strides(indices)};
  return p;
}

// The shared setup of gatherND and scatterND: `count` index tuples of length k, each selecting a
// slice of `slice` contiguous elements of the data tensor.
struct NdPlan {
  int64_t count = 0, k = 0, slice = 0;
  Dims dims;        // data.shape[:k]
  Strides strides;  // data strides of the first k dims
};

NdPlan nd_plan(const Dims& data, const Dims& indices) {
  NdPlan p;
  p.k = indices.back();
  p.count = product(indices, 0, indices.size() - 1);
  p.slice = product(data, static_cast<size_t>(p.k), data.size());
  p.dims.assign(data.begin(), data.begin() + p.k);
  const Strides s = contiguous_strides(data);
  p.strides.assign(s.begin(), s.begin() + p.k);
  return p;
}

// The element offset in the data tensor of index tuple `t`.
template <class I>
int64_t nd_offset(const NdPlan& p, const I* indices, int64_t t) {
  int64_t off = 0;
  for (int64_t j = 0; j < p.k; ++j)
    off += resolve_index(indices[t * p.k + j], p.dims[j]) * p.strides[j];
  return off;
}

}  // namespace

// gather (row 48): out[a, j..., b] = input[a, index(indices[j...]), b] along `axis`.
Kernel compile_gather(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kGather>& attrs) {
  const OperandId input = op.inputs[0], indices = op.inputs[1], out = op.outputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(input);
  const uint32_t axis = attrs.options.axis;
  const int64_t outer = product(in_desc.shape, 0, axis), axis_dim = in_desc.shape[axis];
  const int64_t inner = product(in_desc.shape, axis + 1, in_desc.shape.size());
  const int64_t count = static_cast<int64_t>(element_count_of(kc.desc(indices).shape));
  const size_t block = static_cast<size_t>(inner) * element_bytes(in_desc.dataType);
  return visit_index_type(kc.desc(indices).dataType, [&](auto tag) -> Kernel {
    using I = typename decltype(tag)::type;
    return [=](std::span<std::byte* const> slots) {
      const std::byte* pin = slots[input.value];
      const I* pidx = data_of<const I>(slots, indices);
      std::byte* po = slots[out.value];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < count; ++j) {
          const int64_t src = (o * axis_dim + resolve_index(pidx[j], axis_dim)) * block;
          std::memcpy(po + (o * count + j) * block, pin + src, block);
        }
      }
    };
  });
}

// gatherElements (row 49): out[p] = input[p with p[axis] = index(indices[p])]; out has
// indices.shape.
Kernel compile_gatherElements(const KernelContext& kc, const Operation& op,
                              const AttrsOf<OpType::kGatherElements>& attrs) {
  const OperandId input = op.inputs[0], indices = op.inputs[1], out = op.outputs[0];
  const ElementsPlan plan =
      elements_plan(kc.desc(input).shape, kc.desc(indices).shape, attrs.options.axis);
  return visit_index_type(kc.desc(indices).dataType, [&](auto itag) -> Kernel {
    using I = typename decltype(itag)::type;
    return visit_element_width(kc.desc(input).dataType, [&](auto wtag) -> Kernel {
      using W = typename decltype(wtag)::type;
      return [=](std::span<std::byte* const> slots) {
        const W* pin = data_of<const W>(slots, input);
        const I* pidx = data_of<const I>(slots, indices);
        W* po = data_of<W>(slots, out);
        for_each_offset(plan.shape, plan.strides, [&](const std::array<int64_t, 2>& o) {
          po[o[1]] = pin[o[0] + resolve_index(pidx[o[1]], plan.axis_dim) * plan.axis_stride];
        });
      };
    });
  });
}

// gatherND (row 50): out[t, s...] = input[index tuple indices[t, :], s...].
Kernel compile_gatherND(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kGatherND>&) {
  const OperandId input = op.inputs[0], indices = op.inputs[1], out = op.outputs[0];
  const NdPlan plan = nd_plan(kc.desc(input).shape, kc.desc(indices).shape);
  const size_t esize = element_bytes(kc.desc(input).dataType);
  return visit_index_type(kc.desc(indices).dataType, [&](auto tag) -> Kernel {
    using I = typename decltype(tag)::type;
    return [=](std::span<std::byte* const> slots) {
      const std::byte* pin = slots[input.value];
      const I* pidx = data_of<const I>(slots, indices);
      std::byte* po = slots[out.value];
      const size_t block = static_cast<size_t>(plan.slice) * esize;
      for (int64_t t = 0; t < plan.count; ++t)
        std::memcpy(po + t * block, pin + nd_offset(plan, pidx, t) * esize, block);
    };
  });
}

// scatterElements (row 83): out = input, then out[p with p[axis] = index(indices[p])] =
// updates[p] for every p of indices.shape in row-major order.
Kernel compile_scatterElements(const KernelContext& kc, const Operation& op,
                               const AttrsOf<OpType::kScatterElements>& attrs) {
  const OperandId input = op.inputs[0], indices = op.inputs[1], updates = op.inputs[2],
                  out = op.outputs[0];
  const ElementsPlan plan =
      elements_plan(kc.desc(input).shape, kc.desc(indices).shape, attrs.options.axis);
  const size_t bytes = byte_length(kc.desc(input));
  return visit_index_type(kc.desc(indices).dataType, [&](auto itag) -> Kernel {
    using I = typename decltype(itag)::type;
    return visit_element_width(kc.desc(input).dataType, [&](auto wtag) -> Kernel {
      using W = typename decltype(wtag)::type;
      return [=](std::span<std::byte* const> slots) {
        copy_input(slots[input.value], slots[out.value], bytes);
        const I* pidx = data_of<const I>(slots, indices);
        const W* pup = data_of<const W>(slots, updates);
        W* po = data_of<W>(slots, out);
        for_each_offset(plan.shape, plan.strides, [&](const std::array<int64_t, 2>& o) {
          po[o[0] + resolve_index(pidx[o[1]], plan.axis_dim) * plan.axis_stride] = pup[o[1]];
        });
      };
    });
  });
}

// scatterND (row 84): out = input, then the slice of out at each index tuple indices[t, :] is
// replaced by updates[t, ...], tuples in order.
Kernel compile_scatterND(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kScatterND>&) {
  const OperandId input = op.inputs[0], indices = op.inputs[1], updates = op.inputs[2],
                  out = op.outputs[0];
  const NdPlan plan = nd_plan(kc.desc(input).shape, kc.desc(indices).shape);
  const size_t esize = element_bytes(kc.desc(input).dataType);
  const size_t bytes = byte_length(kc.desc(input));
  return visit_index_type(kc.desc(indices).dataType, [&](auto tag) -> Kernel {
    using I = typename decltype(tag)::type;
    return [=](std::span<std::byte* const> slots) {
      copy_input(slots[input.value], slots[out.value], bytes);
      const I* pidx = data_of<const I>(slots, indices);
      const std::byte* pup = slots[updates.value];
      std::byte* po = slots[out.value];
      const size_t block = static_cast<size_t>(plan.slice) * esize;
      for (int64_t t = 0; t < plan.count; ++t)
        std::memcpy(po + nd_offset(plan, pidx, t) * esize, pup + t * block, block);
    };
  });
}

}  // namespace cppnn::ref
