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
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// Bytes of one element of `type` (the data movement ops never take 4-bit types).
size_t element_size(MLOperandDataType type) {
  const unsigned bits = data_type_bits(type);
  if (bits % 8 != 0)
    throw OperationError("reference backend: 4-bit data is only accepted by dequantizeLinear");
  return bits / 8;
}

// Copies n elements of E bytes from `in` to `out`, stepping by the given byte strides.
template <size_t E>
void copy_elements(const std::byte* in, std::byte* out, uint32_t n, int64_t in_step,
                   int64_t out_step) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * out_step, in + i * in_step, E);
}

// Copies n elements of `esize` bytes with byte strides; one memcpy when both runs are dense.
void copy_run(const std::byte* in, std::byte* out, size_t esize, uint32_t n, int64_t in_step,
              int64_t out_step) {
  const auto e = static_cast<int64_t>(esize);
  if (in_step == e && out_step == e) {
    std::memcpy(out, in, esize * n);
    return;
  }
  switch (esize) {
    case 1:
      return copy_elements<1>(in, out, n, in_step, out_step);
    case 2:
      return copy_elements<2>(in, out, n, in_step, out_step);
    case 4:
      return copy_elements<4>(in, out, n, in_step, out_step);
    case 8:
      return copy_elements<8>(in, out, n, in_step, out_step);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * out_step, in + i * in_step, esize);
  }
}

// Writes `count` copies of the `esize`-byte element at `value` to `out`, doubling the filled
// prefix with memcpy.
void fill_elements(std::byte* out, const std::byte* value, size_t esize, size_t count) {
  if (count == 0) return;
  std::memcpy(out, value, esize);
  const size_t total = esize * count;
  for (size_t done = esize; done < total;) {
    const size_t n = std::min(done, total - done);
    std::memcpy(out + done, out, n);
    done += n;
  }
}

// A strided copy: for every index i of a shape, out[out_base + i·out_strides] =
// in[in_base + i·in_strides] (element offsets; strides may be 0 to broadcast or negative to
// reverse). Built once: dimensions of size 1 are dropped and adjacent dimensions that are
// contiguous in both operands are merged, so the innermost run is as long as possible.
class StridedCopy {
 public:
  StridedCopy(size_t esize, const Dims& shape, const Strides& in_strides,
              const Strides& out_strides, int64_t in_base, int64_t out_base)
      : esize_(esize),
        in_base_(in_base * static_cast<int64_t>(esize)),
        out_base_(out_base * static_cast<int64_t>(esize)) {
    const auto e = static_cast<int64_t>(esize);
    // Coalesce from the innermost dimension outwards (listed innermost first; a merged run stays
    // within 32 bits).
    Dims dims;
    Strides ins, outs;
    for (size_t d = shape.size(); d-- > 0;) {
      if (shape[d] == 1) continue;
      if (!dims.empty() && in_strides[d] == ins.back() * dims.back() &&
          out_strides[d] == outs.back() * dims.back() &&
          uint64_t{dims.back()} * shape[d] <= std::numeric_limits<uint32_t>::max()) {
        dims.back() *= shape[d];
        continue;
      }
      dims.push_back(shape[d]);
      ins.push_back(in_strides[d]);
      outs.push_back(out_strides[d]);
    }
    if (dims.empty()) {  // a single element
      dims.push_back(1);
      ins.push_back(1);
      outs.push_back(1);
    }
    inner_count_ = dims.front();
    inner_in_ = ins.front() * e;
    inner_out_ = outs.front() * e;
    for (size_t k = dims.size(); k-- > 1;) {
      outer_shape_.push_back(dims[k]);
      outer_strides_[0].push_back(ins[k] * e);
      outer_strides_[1].push_back(outs[k] * e);
    }
  }

  void run(const std::byte* in, std::byte* out) const {
    in += in_base_;
    out += out_base_;
    for_each_offset(outer_shape_, outer_strides_, [&](const std::array<int64_t, 2>& o) {
      copy_run(in + o[0], out + o[1], esize_, inner_count_, inner_in_, inner_out_);
    });
  }

 private:
  size_t esize_;
  int64_t in_base_, out_base_;  // bytes
  Dims outer_shape_;
  std::array<Strides, 2> outer_strides_;  // bytes
  uint32_t inner_count_ = 1;
  int64_t inner_in_ = 0, inner_out_ = 0;  // bytes
};

// A kernel copying input `in` to output `out` through one strided copy.
Kernel copy_kernel(OperandId in, OperandId out, StridedCopy copy) {
  return [in, out, copy = std::move(copy)](std::span<std::byte* const> slots) {
    copy.run(slots[in.value], slots[out.value]);
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
                      const AttrsOf<OpType::kConcat>& attrs) {
  const uint32_t axis = attrs.params.axis;
  const MLOperandDescriptor& out_desc = kc.desc(op.outputs[0]);
  const size_t esize = element_size(out_desc.dataType);
  const Strides out_strides = contiguous_strides(out_desc.shape);
  std::vector<std::pair<OperandId, StridedCopy>> parts;
  int64_t offset = 0;
  for (OperandId id : op.inputs) {
    const Dims& shape = kc.desc(id).shape;
    parts.emplace_back(id, StridedCopy(esize, shape, contiguous_strides(shape), out_strides, 0,
                                       offset * out_strides[axis]));
    offset += shape[axis];
  }
  const OperandId out = op.outputs[0];
  return [parts = std::move(parts), out](std::span<std::byte* const> slots) {
    for (const auto& [id, copy] : parts) copy.run(slots[id.value], slots[out.value]);
  };
}

// split (row 90): each output is copied from its slab of the input along options.axis (the output
// sizes are the inferred descriptors, so a count and a list of sizes are handled alike).
Kernel compile_split(const KernelContext& kc, const Operation& op,
                     const AttrsOf<OpType::kSplit>& attrs) {
  const uint32_t axis = attrs.options.axis;
  const OperandId in = op.inputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(in);
  const size_t esize = element_size(in_desc.dataType);
  const Strides in_strides = contiguous_strides(in_desc.shape);
  std::vector<std::pair<OperandId, StridedCopy>> parts;
  int64_t offset = 0;
  for (OperandId id : op.outputs) {
    const Dims& shape = kc.desc(id).shape;
    parts.emplace_back(id, StridedCopy(esize, shape, in_strides, contiguous_strides(shape),
                                       offset * in_strides[axis], 0));
    offset += shape[axis];
  }
  return [parts = std::move(parts), in](std::span<std::byte* const> slots) {
    for (const auto& [id, copy] : parts) copy.run(slots[in.value], slots[id.value]);
  };
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
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& out_desc = kc.desc(out);
  return copy_kernel(in, out,
                     StridedCopy(element_size(out_desc.dataType), out_desc.shape,
                                 broadcast_strides(kc.desc(in).shape, out_desc.shape),
                                 contiguous_strides(out_desc.shape), 0, 0));
}

// pad (row 64): the input is copied into the interior of the output. "constant" fills the border
// with options.value cast to the input type (§3.6); "edge" repeats the nearest interior element;
// "reflection" mirrors about the edge element without repeating it (b[d], e[d] < in[d]).
// Edge and reflection fill one dimension at a time, innermost first, copying whole slabs.
Kernel compile_pad(const KernelContext& kc, const Operation& op,
                   const AttrsOf<OpType::kPad>& attrs) {
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
  const size_t out_count = element_count_of(out_shape);
  const MLPaddingMode mode = attrs.options.mode;

  if (mode == MLPaddingMode::kConstant) {
    std::array<std::byte, 8> value{};
    attrs.options.value.cast_to_bytes(in_desc.dataType, value.data());
    const bool padded = out_count != element_count_of(in_shape);
    return [in, out, copy = std::move(copy), value, esize, out_count,
            padded](std::span<std::byte* const> slots) {
      if (padded) fill_elements(slots[out.value], value.data(), esize, out_count);
      copy.run(slots[in.value], slots[out.value]);
    };
  }

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
Kernel compile_slice(const KernelContext& kc, const Operation& op,
                     const AttrsOf<OpType::kSlice>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(in);
  const Dims& out_shape = kc.desc(out).shape;
  const size_t rank = in_desc.shape.size();
  const Dims& starts = attrs.params.first;
  const Dims steps = attrs.options.strides.value_or(Dims(rank, 1));
  const Strides in_strides = contiguous_strides(in_desc.shape);
  Strides read(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    base += int64_t{starts[d]} * in_strides[d];
    read[d] = int64_t{steps[d]} * in_strides[d];
  }
  return copy_kernel(in, out,
                     StridedCopy(element_size(in_desc.dataType), out_shape, read,
                                 contiguous_strides(out_shape), base, 0));
}

// tile (row 92): out[r·in[d] + j] = in[j] per dimension. Each output dimension is read as the
// pair (repetition, index) of sizes (rep[d], in[d]) with input strides (0, stride[d]).
Kernel compile_tile(const KernelContext& kc, const Operation& op,
                    const AttrsOf<OpType::kTile>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(in);
  const Dims& reps = attrs.params.shape;
  const Strides in_strides = contiguous_strides(in_desc.shape);
  Dims shape;
  Strides read;
  for (size_t d = 0; d < in_desc.shape.size(); ++d) {
    shape.insert(shape.end(), {reps[d], in_desc.shape[d]});
    read.insert(read.end(), {0, in_strides[d]});
  }
  return copy_kernel(
      in, out,
      StridedCopy(element_size(in_desc.dataType), shape, read, contiguous_strides(shape), 0, 0));
}

// transpose (row 93): out[i] = in[permutation[i]] per dimension (default: reversed dimensions).
Kernel compile_transpose(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kTranspose>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& in_desc = kc.desc(in);
  const size_t rank = in_desc.shape.size();
  Dims perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<uint32_t>(rank - 1 - i);
  if (attrs.options.permutation) perm = *attrs.options.permutation;
  const Strides in_strides = contiguous_strides(in_desc.shape);
  const Dims& out_shape = kc.desc(out).shape;
  Strides read(rank);
  for (size_t i = 0; i < rank; ++i) read[i] = in_strides[perm[i]];
  return copy_kernel(in, out,
                     StridedCopy(element_size(in_desc.dataType), out_shape, read,
                                 contiguous_strides(out_shape), 0, 0));
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
                       const AttrsOf<OpType::kReverse>& attrs) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const MLOperandDescriptor& desc = kc.desc(in);
  const size_t rank = desc.shape.size();
  Dims axes(rank);
  std::iota(axes.begin(), axes.end(), 0u);
  if (attrs.options.axes) axes = *attrs.options.axes;
  const Strides strides = contiguous_strides(desc.shape);
  Strides read = strides;
  int64_t base = 0;
  for (uint32_t a : axes) {
    base += (int64_t{desc.shape[a]} - 1) * strides[a];
    read[a] = -strides[a];
  }
  return copy_kernel(in, out,
                     StridedCopy(element_size(desc.dataType), desc.shape, read, strides, base, 0));
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
