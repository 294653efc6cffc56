// Reference kernels for the data movement ops (webnn-spec.md §2 rows 6, 47, 64, 81, 82, 86, 90,
// 92-95): concat, split, reshape, expand, pad, slice, tile, transpose, triangular, reverse and
// where. They only move elements, so they are bit-exact and type-agnostic: elements are copied as
// bytes of the element size (float16 NaN payloads and -0 keep their bit patterns). Most of them
// compile to a strided copy whose dimensions are coalesced at build() so that contiguous inner
// runs are single memcpy calls.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

#include "cppnn/errors.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strided_copy.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// A kernel running the strided copies of `op` (strided_copy.h) one after the other.
Kernel parts_kernel(const KernelContext& kc, const Operation& op) {
  std::vector<CopyPart> parts = *copy_parts(kc.graph, op);
  return [parts = std::move(parts)](std::span<std::byte* const> slots) {
    for (const CopyPart& p : parts) p.copy.run(slots[p.from.value], slots[p.to.value]);
  };
}

// where's selection over the broadcast shape: out[o3] = cond[o0] != 0 ? t[o1] : f[o2].
template <size_t E>
void select_elements(const Dims& shape, const std::array<Strides, 4>& strides, const uint8_t* cond,
                     const std::byte* t, const std::byte* f, std::byte* out) {
  for_each_offset(shape, strides, [&](const std::array<int64_t, 4>& o) {
    const std::byte* src = cond[o[0]] != 0 ? t + o[1] * E : f + o[2] * E;
    std::memcpy(out + o[3] * E, src, E);
  });
}

}  // namespace

// concat (row 6): each input is copied into its slab of the output along `axis`.
Kernel compile_concat(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kConcat>&) {
  return parts_kernel(kc, op);
}

// split (row 90): each output is copied from its slab of the input along options.axis (the output
// sizes are the inferred descriptors, so a count and a list of sizes are handled alike).
Kernel compile_split(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kSplit>&) {
  return parts_kernel(kc, op);
}

// reshape (row 81): the same bytes in row-major order under the new shape.
Kernel compile_reshape(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kReshape>&) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const size_t bytes = byte_length(kc.desc(out));
  return [in, out, bytes](std::span<std::byte* const> slots) {
    std::memmove(slots[out.value], slots[in.value], bytes);
  };
}

// expand (row 47): unidirectional broadcast; broadcast dimensions read with stride 0.
Kernel compile_expand(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kExpand>&) {
  return parts_kernel(kc, op);
}

// pad (row 64): the input is copied into the interior of the output. "constant" fills the border
// with options.value cast to the input type (§3.6); "edge" repeats the nearest interior element;
// "reflection" mirrors about the edge element without repeating it (b[d], e[d] < in[d]).
// Edge and reflection fill one dimension at a time, innermost first, copying whole slabs.
Kernel compile_pad(const KernelContext& kc, const Operation& op,
                   const AttrsOf<OpType::kPad>& attrs) {
  if (attrs.options.mode == MLPaddingMode::kConstant) {
    return [p = *constant_pad(kc.graph, op)](std::span<std::byte* const> slots) {
      if (p.padded) fill_elements(slots[p.to.value], p.value.data(), p.esize, p.out_count);
      p.interior.run(slots[p.from.value], slots[p.to.value]);
    };
  }
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(in);
  const Dims& in_shape = in_desc.shape;
  const Dims& out_shape = kc.desc(out).shape;
  const Dims& begin = attrs.params.first;
  const size_t esize = element_size(in_desc.dataType);
  const size_t rank = in_shape.size();
  const Strides out_strides = contiguous_strides(out_shape);
  int64_t interior = 0;
  for (size_t d = 0; d < rank; ++d) interior += int64_t{begin[d]} * out_strides[d];
  StridedCopy copy(esize, in_shape, contiguous_strides(in_shape), out_strides, 0, interior);
  const MLPaddingMode mode = attrs.options.mode;

  // Edge and reflection: after the interior copy, dimension d (innermost first) is completed for
  // every interior index of the dimensions before it; the dimensions after it are already full,
  // so each padded position of d is one contiguous slab copied from an interior slab.
  struct SlabFill {
    Dims prefix_shape;                               // interior extent of the dimensions < d
    std::array<Strides, 1> prefix_strides;           // bytes
    int64_t base;                                    // bytes: the interior origin of dims < d
    std::vector<std::pair<int64_t, int64_t>> moves;  // (to, from) byte offsets along d
    size_t slab_bytes;
  };
  const auto e = static_cast<int64_t>(esize);
  std::vector<SlabFill> fills;
  for (size_t d = rank; d-- > 0;) {
    if (out_shape[d] == in_shape[d]) continue;
    const int64_t n = in_shape[d], b = begin[d];
    SlabFill fill;
    fill.slab_bytes = static_cast<size_t>(out_strides[d] * e);
    for (int64_t p = 0; p < int64_t{out_shape[d]}; ++p) {
      int64_t i = p - b;
      if (i >= 0 && i < n) continue;
      if (mode == MLPaddingMode::kEdge)
        i = std::clamp<int64_t>(i, 0, n - 1);
      else
        i = i < 0 ? -i : 2 * (n - 1) - i;
      fill.moves.emplace_back(p * out_strides[d] * e, (b + i) * out_strides[d] * e);
    }
    fill.base = 0;
    for (size_t k = 0; k < d; ++k) {
      fill.prefix_shape.push_back(in_shape[k]);
      fill.prefix_strides[0].push_back(out_strides[k] * e);
      fill.base += int64_t{begin[k]} * out_strides[k] * e;
    }
    fills.push_back(std::move(fill));
  }
  return [in, out, copy = std::move(copy),
          fills = std::move(fills)](std::span<std::byte* const> slots) {
    std::byte* po = slots[out.value];
    copy.run(slots[in.value], po);
    for (const SlabFill& f : fills) {
      for_each_offset(f.prefix_shape, f.prefix_strides, [&](const std::array<int64_t, 1>& o) {
        std::byte* origin = po + f.base + o[0];
        for (const auto& [to, from] : f.moves)
          std::memcpy(origin + to, origin + from, f.slab_bytes);
      });
    }
  };
}

// slice (row 86): out[i] = in[starts + i·strides] per dimension (strides default to all 1).
Kernel compile_slice(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kSlice>&) {
  return parts_kernel(kc, op);
}

// tile (row 92): out[r·in[d] + j] = in[j] per dimension. Each output dimension is read as the
// pair (repetition, index) of sizes (rep[d], in[d]) with input strides (0, stride[d]).
Kernel compile_tile(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kTile>&) {
  return parts_kernel(kc, op);
}

// transpose (row 93): out[i] = in[permutation[i]] per dimension (default: reversed dimensions).
Kernel compile_transpose(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kTranspose>&) {
  return parts_kernel(kc, op);
}

// triangular (row 94): over the last two dimensions, element (i, j) is kept when
// upper ? j - i >= diagonal : j - i <= diagonal, and is +0 (all-zero bytes) otherwise.
Kernel compile_triangular(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kTriangular>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const size_t rank = desc.shape.size();
  const size_t esize = element_size(desc.dataType);
  const int64_t rows = desc.shape[rank - 2], cols = desc.shape[rank - 1];
  const size_t matrices = element_count_of(desc.shape) / static_cast<size_t>(rows * cols);
  const bool upper = attrs.options.upper;
  const int64_t diagonal = attrs.options.diagonal;
  // Per row: the kept columns [keep_begin, keep_end).
  std::vector<std::pair<size_t, size_t>> keep(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t edge = i + diagonal;  // the column where j - i == diagonal
    keep[static_cast<size_t>(i)] =
        upper ? std::pair<size_t, size_t>(std::clamp<int64_t>(edge, 0, cols), cols)
              : std::pair<size_t, size_t>(0, std::clamp<int64_t>(edge + 1, 0, cols));
  }
  return
      [in, out, esize, matrices, cols, keep = std::move(keep)](std::span<std::byte* const> slots) {
        const std::byte* pi = slots[in.value];
        std::byte* po = slots[out.value];
        const size_t row_bytes = static_cast<size_t>(cols) * esize;
        for (size_t m = 0; m < matrices; ++m) {
          for (const auto& [b, e] : keep) {
            std::memset(po, 0, b * esize);
            if (e > b) std::memcpy(po + b * esize, pi + b * esize, (e - b) * esize);
            std::memset(po + e * esize, 0, row_bytes - e * esize);
            pi += row_bytes;
            po += row_bytes;
          }
        }
      };
}

// reverse (row 82): the listed axes (absent: all; []: none) are read backwards.
Kernel compile_reverse(const KernelContext& kc, const Operation& op,
                       const AttrsOf<OpType::kReverse>&) {
  return parts_kernel(kc, op);
}

// where (row 95): out = condition != 0 ? trueValue : falseValue, all three broadcast to the
// output shape (trueValue and falseValue share the output type).
Kernel compile_where(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kWhere>&) {
  const OperandId cond = op.inputs[0], t = op.inputs[1], f = op.inputs[2], out = op.outputs[0];
  const MLOperandDescriptor& out_desc = kc.desc(out);
  const Dims shape = out_desc.shape;
  const std::array<Strides, 4> strides{
      broadcast_strides(kc.desc(cond).shape, shape), broadcast_strides(kc.desc(t).shape, shape),
      broadcast_strides(kc.desc(f).shape, shape), contiguous_strides(shape)};
  auto make = [&](auto size) -> Kernel {
    constexpr size_t E = decltype(size)::value;
    return [=](std::span<std::byte* const> slots) {
      select_elements<E>(shape, strides, data_of<uint8_t>(slots, cond), slots[t.value],
                         slots[f.value], slots[out.value]);
    };
  };
  switch (element_size(out_desc.dataType)) {
    case 1:
      return make(std::integral_constant<size_t, 1>{});
    case 2:
      return make(std::integral_constant<size_t, 2>{});
    case 4:
      return make(std::integral_constant<size_t, 4>{});
    case 8:
      return make(std::integral_constant<size_t, 8>{});
  }
  throw OperationError("reference backend: where: unsupported element size");
}

}  // namespace cppnn::ref
