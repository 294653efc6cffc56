// Decompositions of the data_movement ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). Every one of them only
// moves elements: expand, pad, reverse and tile are gathers of constant int32 positions along one
// axis at a time (exact bit copies for every data type, NaN payloads and -0 included), split is a
// slice per output, and triangular selects the input or +0 by a constant mask.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using Dims = std::vector<uint32_t>;

// Gathers `x` along `axis` at `positions` (an int32 constant of their length): output element i
// along the axis is input element positions[i].
MLOperand gather_at(MLGraphBuilder& b, const MLOperand& x, uint32_t axis,
                    const std::vector<int64_t>& positions) {
  std::vector<MLNumber> values(positions.begin(), positions.end());
  const MLOperand indices =
      constant_of(b, MLOperandDataType::kInt32, {static_cast<uint32_t>(positions.size())}, values);
  return b.gather(x, indices, {.axis = axis});
}

// expand (row 47, §3.4 unidirectional broadcast): the input reshaped to the output rank (1s in
// front), then each broadcast dimension of size 1 gathered n times at position 0.
std::vector<MLOperand> decompose_expand(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Dims in = c.input_desc(0).shape;
  const Dims& out = c.output_desc(0).shape;
  Dims shape(out.size() - in.size(), 1);
  shape.insert(shape.end(), in.begin(), in.end());
  MLOperand x = shape == in ? c.input(0) : b.reshape(c.input(0), shape);
  for (uint32_t d = 0; d < out.size(); ++d)
    if (shape[d] != out[d]) x = gather_at(b, x, d, std::vector<int64_t>(out[d], 0));
  return {x};
}

// The source position of each element of a padded dimension (b before, n interior, e after):
// "edge" repeats the border element, "reflection" mirrors without repeating it, "constant" reads
// position n, the value slab appended to the dimension (row 64).
std::vector<int64_t> pad_positions(MLPaddingMode mode, int64_t b, int64_t n, int64_t e) {
  std::vector<int64_t> p;
  for (int64_t i = -b; i < n + e; ++i) {
    if (i >= 0 && i < n)
      p.push_back(i);
    else if (mode == MLPaddingMode::kConstant)
      p.push_back(n);
    else if (mode == MLPaddingMode::kEdge)
      p.push_back(std::clamp<int64_t>(i, 0, n - 1));
    else
      p.push_back(i < 0 ? -i : 2 * (n - 1) - i);
  }
  return p;
}

// pad (row 64): one dimension at a time, a gather of pad_positions; in "constant" mode a slab of
// options.value (cast to the input type, §3.6, as the reference kernel casts it) is concatenated
// first.
std::vector<MLOperand> decompose_pad(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& attrs = c.attrs<OpType::kPad>();
  const Dims& begin = attrs.params.first;
  const Dims& end = attrs.params.second;
  const MLPaddingMode mode = attrs.options.mode;
  MLOperandDescriptor desc = c.input_desc(0);
  MLOperand x = c.input(0);
  for (uint32_t d = 0; d < desc.shape.size(); ++d) {
    if (begin[d] == 0 && end[d] == 0) continue;
    const uint32_t n = desc.shape[d];
    if (mode == MLPaddingMode::kConstant) {
      MLOperandDescriptor slab = desc;
      slab.shape[d] = 1;
      x = b.concat({x, filled(b, slab, attrs.options.value)}, d);
    }
    x = gather_at(b, x, d, pad_positions(mode, begin[d], n, end[d]));
    desc.shape[d] = begin[d] + n + end[d];
  }
  return {x};
}

// reverse (row 82, erratum 6): each listed axis (absent: all, []: none) gathered backwards.
std::vector<MLOperand> decompose_reverse(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Dims shape = c.input_desc(0).shape;
  Dims all(shape.size());
  std::iota(all.begin(), all.end(), 0u);
  MLOperand x = c.input(0);
  for (uint32_t axis : c.attrs<OpType::kReverse>().options.axes.value_or(all)) {
    if (shape[axis] == 1) continue;
    std::vector<int64_t> p(shape[axis]);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int64_t>(p.size() - 1 - i);
    x = gather_at(b, x, axis, p);
  }
  return {x};
}

// split (row 90): one slice per output along options.axis, at the running offset.
std::vector<MLOperand> decompose_split(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const uint32_t axis = c.attrs<OpType::kSplit>().options.axis;
  const Dims shape = c.input_desc(0).shape;
  std::vector<MLOperand> outs;
  uint32_t offset = 0;
  for (size_t i = 0; i < c.op().outputs.size(); ++i) {
    Dims starts(shape.size(), 0), sizes = shape;
    starts[axis] = offset;
    sizes[axis] = c.output_desc(i).shape[axis];
    outs.push_back(b.slice(c.input(0), starts, sizes));
    offset += sizes[axis];
  }
  return outs;
}

// tile (row 92): each repeated dimension of size n gathered at positions i mod n.
std::vector<MLOperand> decompose_tile(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const Dims shape = c.input_desc(0).shape;
  const Dims& reps = c.attrs<OpType::kTile>().params.shape;
  MLOperand x = c.input(0);
  for (uint32_t d = 0; d < shape.size(); ++d) {
    if (reps[d] == 1) continue;
    std::vector<int64_t> p(uint64_t{shape[d]} * reps[d]);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int64_t>(i % shape[d]);
    x = gather_at(b, x, d, p);
  }
  return {x};
}

// triangular (row 94): where(mask, input, +0) with a uint8 mask over the last two dimensions
// that keeps (i, j) when upper ? j - i >= diagonal : j - i <= diagonal.
std::vector<MLOperand> decompose_triangular(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& options = c.attrs<OpType::kTriangular>().options;
  const Dims shape = c.input_desc(0).shape;
  const uint32_t rows = shape[shape.size() - 2], cols = shape.back();
  std::vector<MLNumber> mask;
  mask.reserve(uint64_t{rows} * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t k = j - i;
      const bool kept = options.upper ? k >= options.diagonal : k <= options.diagonal;
      mask.emplace_back(kept ? 1 : 0);
    }
  }
  const MLOperand keep = constant_of(b, MLOperandDataType::kUint8, {rows, cols}, mask);
  return {b.where(keep, c.input(0), scalar_like(b, c.input(0), 0))};
}

}  // namespace

void register_data_movement(DecompositionTable& t) {
  using enum OpType;
  t.add(kExpand, decompose_expand, {{kReshape}, {kGather}});
  t.add(kPad, decompose_pad, {{kConcat}, {kGather}});
  t.add(kReverse, decompose_reverse, {{kGather}});
  t.add(kSplit, decompose_split, {{kSlice}});
  t.add(kTile, decompose_tile, {{kGather}});
  t.add(kTriangular, decompose_triangular, {{kWhere, dt::kU8}});
}

}  // namespace cppnn::passes
