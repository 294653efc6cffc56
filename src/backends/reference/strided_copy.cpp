#include "src/backends/reference/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "cppnn/errors.h"

namespace cppnn::ref {
namespace {

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

// concat (row 6): each input is copied into its slab of the output along `axis`.
std::vector<CopyPart> concat_parts(const Graph& g, const Operation& op, uint32_t axis) {
  const MLOperandDescriptor& out_desc = g.descriptor(op.outputs[0]);
  const size_t esize = element_size(out_desc.dataType);
  const Strides out_strides = contiguous_strides(out_desc.shape);
  std::vector<CopyPart> parts;
  int64_t offset = 0;
  for (OperandId id : op.inputs) {
    const Dims& shape = g.descriptor(id).shape;
    parts.push_back({id, op.outputs[0],
                     StridedCopy(esize, shape, contiguous_strides(shape), out_strides, 0,
                                 offset * out_strides[axis])});
    offset += shape[axis];
  }
  return parts;
}

// split (row 90): each output is copied from its slab of the input along `axis` (the output sizes
// are the inferred descriptors, so a count and a list of sizes are handled alike).
std::vector<CopyPart> split_parts(const Graph& g, const Operation& op, uint32_t axis) {
  const MLOperandDescriptor& in_desc = g.descriptor(op.inputs[0]);
  const size_t esize = element_size(in_desc.dataType);
  const Strides in_strides = contiguous_strides(in_desc.shape);
  std::vector<CopyPart> parts;
  int64_t offset = 0;
  for (OperandId id : op.outputs) {
    const Dims& shape = g.descriptor(id).shape;
    parts.push_back({op.inputs[0], id,
                     StridedCopy(esize, shape, in_strides, contiguous_strides(shape),
                                 offset * in_strides[axis], 0)});
    offset += shape[axis];
  }
  return parts;
}

// One part reading input 0 along `read` strides (element offsets from `base`) into output 0,
// written densely.
std::vector<CopyPart> read_part(const Graph& g, const Operation& op, const Dims& out_shape,
                                const Strides& read, int64_t base) {
  const size_t esize = element_size(g.descriptor(op.inputs[0]).dataType);
  return {{op.inputs[0], op.outputs[0],
           StridedCopy(esize, out_shape, read, contiguous_strides(out_shape), base, 0)}};
}

// slice (row 86): out[i] = in[starts + i·strides] per dimension (strides default to all 1).
std::vector<CopyPart> slice_parts(const Graph& g, const Operation& op,
                                  const AttrsOf<OpType::kSlice>& attrs) {
  const Dims& in_shape = g.descriptor(op.inputs[0]).shape;
  const size_t rank = in_shape.size();
  const Dims& starts = attrs.params.first;
  const Dims steps = attrs.options.strides.value_or(Dims(rank, 1));
  const Strides in_strides = contiguous_strides(in_shape);
  Strides read(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    base += int64_t{starts[d]} * in_strides[d];
    read[d] = int64_t{steps[d]} * in_strides[d];
  }
  return read_part(g, op, g.descriptor(op.outputs[0]).shape, read, base);
}

// tile (row 92): out[r·in[d] + j] = in[j] per dimension. Each output dimension is read as the
// pair (repetition, index) of sizes (rep[d], in[d]) with input strides (0, stride[d]).
std::vector<CopyPart> tile_parts(const Graph& g, const Operation& op, const Dims& reps) {
  const Dims& in_shape = g.descriptor(op.inputs[0]).shape;
  const Strides in_strides = contiguous_strides(in_shape);
  Dims shape;
  Strides read;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    shape.insert(shape.end(), {reps[d], in_shape[d]});
    read.insert(read.end(), {0, in_strides[d]});
  }
  return read_part(g, op, shape, read, 0);
}

// transpose (row 93): out[i] = in[permutation[i]] per dimension (default: reversed dimensions).
std::vector<CopyPart> transpose_parts(const Graph& g, const Operation& op,
                                      const AttrsOf<OpType::kTranspose>& attrs) {
  const Dims& in_shape = g.descriptor(op.inputs[0]).shape;
  const size_t rank = in_shape.size();
  Dims perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<uint32_t>(rank - 1 - i);
  if (attrs.options.permutation) perm = *attrs.options.permutation;
  const Strides in_strides = contiguous_strides(in_shape);
  Strides read(rank);
  for (size_t i = 0; i < rank; ++i) read[i] = in_strides[perm[i]];
  return read_part(g, op, g.descriptor(op.outputs[0]).shape, read, 0);
}

// reverse (row 82): the listed axes (absent: all; []: none) are read backwards.
std::vector<CopyPart> reverse_parts(const Graph& g, const Operation& op,
                                    const AttrsOf<OpType::kReverse>& attrs) {
  const Dims& shape = g.descriptor(op.inputs[0]).shape;
  Dims axes(shape.size());
  std::iota(axes.begin(), axes.end(), 0u);
  if (attrs.options.axes) axes = *attrs.options.axes;
  const Strides strides = contiguous_strides(shape);
  Strides read = strides;
  int64_t base = 0;
  for (uint32_t a : axes) {
    base += (int64_t{shape[a]} - 1) * strides[a];
    read[a] = -strides[a];
  }
  return read_part(g, op, shape, read, base);
}

}  // namespace

size_t element_size(MLOperandDataType type) {
  const unsigned bits = data_type_bits(type);
  if (bits % 8 != 0)
    throw OperationError("reference backend: 4-bit data is only accepted by dequantizeLinear");
  return bits / 8;
}

void fill_elements(std::byte* out, const std::byte* value, size_t esize, size_t count) {
  if (count == 0) return;
  std::memcpy(out, value, esize);
  const size_t total = esize * count;
  for (size_t done = esize; done < total;) {  // doubling the filled prefix
    const size_t n = std::min(done, total - done);
    std::memcpy(out + done, out, n);
    done += n;
  }
}

std::optional<ConstantPad> constant_pad(const Graph& g, const Operation& op) {
  if (op.type != OpType::kPad) return std::nullopt;
  const auto& attrs = attrs_of<OpType::kPad>(op.attrs);
  if (attrs.options.mode != MLPaddingMode::kConstant) return std::nullopt;
  const MLOperandDescriptor& in_desc = g.descriptor(op.inputs[0]);
  const Dims& out_shape = g.descriptor(op.outputs[0]).shape;
  const Strides out_strides = contiguous_strides(out_shape);
  int64_t interior = 0;
  for (size_t d = 0; d < in_desc.shape.size(); ++d)
    interior += int64_t{attrs.params.first[d]} * out_strides[d];
  const size_t esize = element_size(in_desc.dataType);
  ConstantPad p{op.inputs[0],
                op.outputs[0],
                {},
                esize,
                element_count_of(out_shape),
                false,
                StridedCopy(esize, in_desc.shape, contiguous_strides(in_desc.shape), out_strides, 0,
                            interior)};
  attrs.options.value.cast_to_bytes(in_desc.dataType, p.value.data());
  p.padded = p.out_count != element_count_of(in_desc.shape);
  return p;
}

StridedCopy::StridedCopy(size_t esize, const Dims& shape, const Strides& in_strides,
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
  if (element_count_of(shape) == 0) outer_count_ = 0;
  inner_count_ = dims.front();
  inner_in_ = ins.front() * e;
  inner_out_ = outs.front() * e;
  for (size_t k = dims.size(); k-- > 1;) {
    outer_shape_.push_back(dims[k]);
    outer_strides_[0].push_back(ins[k] * e);
    outer_strides_[1].push_back(outs[k] * e);
    outer_count_ *= dims[k];
  }
}

void StridedCopy::run(const std::byte* in, std::byte* out, size_t begin, size_t end) const {
  end = std::min(end, outer_count_);
  if (begin >= end) return;
  in += in_base_;
  out += out_base_;
  // The outer index of run `begin` (outermost first), and its byte offsets.
  const size_t rank = outer_shape_.size();
  std::vector<uint32_t> idx(rank);
  int64_t oi = 0, oo = 0;
  size_t rest = begin;
  for (size_t k = rank; k-- > 0;) {
    idx[k] = static_cast<uint32_t>(rest % outer_shape_[k]);
    rest /= outer_shape_[k];
    oi += idx[k] * outer_strides_[0][k];
    oo += idx[k] * outer_strides_[1][k];
  }
  for (size_t r = begin;;) {
    copy_run(in + oi, out + oo, esize_, inner_count_, inner_in_, inner_out_);
    if (++r == end) return;
    for (size_t k = rank; k-- > 0;) {  // advance the outer index
      if (++idx[k] < outer_shape_[k]) {
        oi += outer_strides_[0][k];
        oo += outer_strides_[1][k];
        break;
      }
      oi -= outer_strides_[0][k] * (outer_shape_[k] - 1);
      oo -= outer_strides_[1][k] * (outer_shape_[k] - 1);
      idx[k] = 0;
    }
  }
}

std::optional<std::vector<CopyPart>> copy_parts(const Graph& g, const Operation& op) {
  using enum OpType;
  switch (op.type) {
    case kConcat:
      return concat_parts(g, op, attrs_of<kConcat>(op.attrs).params.axis);
    case kSplit:
      return split_parts(g, op, attrs_of<kSplit>(op.attrs).options.axis);
    case kSlice:
      return slice_parts(g, op, attrs_of<kSlice>(op.attrs));
    case kTile:
      return tile_parts(g, op, attrs_of<kTile>(op.attrs).params.shape);
    case kTranspose:
      return transpose_parts(g, op, attrs_of<kTranspose>(op.attrs));
    case kReverse:
      return reverse_parts(g, op, attrs_of<kReverse>(op.attrs));
    case kExpand: {
      const Dims& out_shape = g.descriptor(op.outputs[0]).shape;
      return read_part(g, op, out_shape,
                       broadcast_strides(g.descriptor(op.inputs[0]).shape, out_shape), 0);
    }
    case kReshape: {
      const MLOperandDescriptor& d = g.descriptor(op.outputs[0]);
      if (data_type_bits(d.dataType) % 8 != 0) return std::nullopt;
      const Strides dense = contiguous_strides(d.shape);
      return std::vector<CopyPart>{
          {op.inputs[0], op.outputs[0],
           StridedCopy(data_type_bits(d.dataType) / 8, d.shape, dense, dense, 0, 0)}};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace cppnn::ref
