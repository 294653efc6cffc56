// TFLite lowerings of the data movement ops (lower.h; webnn-spec.md §2 rows 6, 47, 64, 81, 82,
// 86, 90, 92-95). Each is the builtin of the same meaning: CONCATENATION, TILE (expand, after a
// RESHAPE to the output's rank), PAD/PADV2/MIRROR_PAD (pad), RESHAPE, REVERSE_V2, SLICE or
// STRIDED_SLICE, SPLIT or SPLIT_V, TILE, TRANSPOSE, SELECT_V2 (triangular with a constant mask,
// where). Ops that move nothing (one input, a slice of everything, an identity permutation)
// bind their output to their input.
//
// Data types: every WebNN type. The builtins that lack uint32/uint64 (PAD, REVERSE_V2, SPLIT,
// SPLIT_V, GATHER; CONCATENATION lacks uint64) move those as int32/int64 (BITCAST, bit for bit).
// Rank: REVERSE_V2 reverses one run of adjacent axes, PAD takes at most 5 dimensions, TRANSPOSE
// at most 6 and XNNPACK refuses CONCATENATION and SPLIT above 6, so dimensions an op treats alike
// are merged first (RESHAPE), which changes no element's order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_data_movement_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export {
namespace {

using namespace dm;  // NOLINT(google-build-using-namespace): this family's own helpers

// The most dimensions PAD/PADV2 take (pad.cc PadKernelMaxDimensionCount).
constexpr size_t kMaxPadRank = 5;
// Above this rank concat and split work on [outer, axis, inner] views (XNNPACK refuses
// CONCATENATION and SPLIT above rank 6; 4 keeps the common NHWC forms unchanged).
constexpr size_t kMaxDirectRank = 4;
// The most dimensions TRANSPOSE takes (transpose.cc, XNNPACK's XNN_MAX_TENSOR_DIMS).
constexpr size_t kMaxTransposeRank = 6;

// The padding amounts of one pad as TFLite's INT32 [rank, 2] paddings operand.
TensorIndex paddings(Emitter& e, const std::vector<int32_t>& begin,
                     const std::vector<int32_t>& end) {
  std::vector<int32_t> v;
  for (size_t d = 0; d < begin.size(); ++d) {
    v.push_back(begin[d]);
    v.push_back(end[d]);
  }
  return i32_constant(e, {static_cast<int32_t>(begin.size()), 2}, v);
}

// The padded shape of `shape`.
Shape padded_shape(const Shape& shape, const std::vector<int32_t>& begin,
                   const std::vector<int32_t>& end) {
  Shape out = shape;
  for (size_t d = 0; d < shape.size(); ++d) out[d] += begin[d] + end[d];
  return out;
}

// The pad value `value` as a rank-0 constant of x's (kernel) type: cast to the WebNN type (§3.6;
// float16 rounded to float16 and carried as float32), its bits in the signed twin for uint32/64.
TensorIndex pad_value(Emitter& e, MLOperandDataType webnn, TT kernel, const MLNumber& value,
                      bool& zero) {
  std::vector<std::byte> bytes(element_size(kernel));
  if (kernel == TT::FLOAT32) {
    const float f = static_cast<float>(value.cast_to_double(webnn));
    std::memcpy(bytes.data(), &f, sizeof f);
  } else {
    value.cast_to_bytes(webnn, bytes.data());
  }
  zero = std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
  return e.constant(kernel, {}, std::move(bytes));
}

// One pad operator of `x` (all its dimensions at once): PAD (a +0 / zero value; XNNPACK's form),
// PADV2 (another constant), MIRROR_PAD REFLECT (reflection) or SYMMETRIC (edge with at most one
// element per side, which repeats the edge element), or per padded dimension a GATHER of the
// clamped positions (edge).
TensorIndex pad_once(Emitter& e, TensorIndex x, const std::vector<int32_t>& begin,
                     const std::vector<int32_t>& end, MLPaddingMode mode, TensorIndex value,
                     bool zero) {
  const Shape out = padded_shape(e.shape_of(x), begin, end);
  switch (mode) {
    case MLPaddingMode::kConstant:
      if (zero)
        return e.op1(Op::PAD, {x, paddings(e, begin, end)}, e.type_of(x), out, Opt::PadOptions,
                     tfl::CreatePadOptions(e.fbb()).Union());
      return e.op1(Op::PADV2, {x, paddings(e, begin, end), value}, e.type_of(x), out,
                   Opt::PadV2Options, tfl::CreatePadV2Options(e.fbb()).Union());
    case MLPaddingMode::kReflection:
      return e.op1(Op::MIRROR_PAD, {x, paddings(e, begin, end)}, e.type_of(x), out,
                   Opt::MirrorPadOptions,
                   tfl::CreateMirrorPadOptions(e.fbb(), tfl::MirrorPadMode::REFLECT).Union());
    case MLPaddingMode::kEdge: {
      const Shape shape = e.shape_of(x);
      bool symmetric = true;
      for (size_t d = 0; d < shape.size(); ++d)
        symmetric =
            symmetric && begin[d] <= 1 && end[d] <= 1 && begin[d] <= shape[d] && end[d] <= shape[d];
      if (symmetric)
        return e.op1(Op::MIRROR_PAD, {x, paddings(e, begin, end)}, e.type_of(x), out,
                     Opt::MirrorPadOptions,
                     tfl::CreateMirrorPadOptions(e.fbb(), tfl::MirrorPadMode::SYMMETRIC).Union());
      TensorIndex v = x;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (begin[d] == 0 && end[d] == 0) continue;
        std::vector<int32_t> at(static_cast<size_t>(out[d]));
        for (int32_t i = 0; i < out[d]; ++i) at[i] = std::clamp(i - begin[d], 0, shape[d] - 1);
        v = gather(e, v, i32_constant(e, {out[d]}, at), d);
      }
      return v;
    }
  }
  throw NotSupportedError("tflite: unknown padding mode");
}

}  // namespace

bool lowers_data_movement(const Graph&, const Operation&) {
  return true;
}

// concat (row 6): CONCATENATION along axis (uint64 as int64); one input is itself; above rank 4
// the inputs are viewed as [outer, size, inner] and joined along 1.
void lower_concat(Emitter& e, const Operation& op, const AttrsOf<OpType::kConcat>& attrs) {
  if (op.inputs.size() == 1) {
    e.bind(op.outputs[0], e.value(op.inputs[0]));
    return;
  }
  const size_t axis = attrs.params.axis;
  const Shape out_shape = shape_of(e.graph(), op.outputs[0]);
  const bool view = out_shape.size() > kMaxDirectRank;
  const TT type = compute_type_of(data_type_of(e.graph(), op.outputs[0]));
  const TT kernel = type == TT::UINT64 ? TT::INT64 : type;
  std::vector<TensorIndex> inputs;
  for (OperandId id : op.inputs) {
    TensorIndex t = bitcast(e, e.value(id), kernel);
    if (view) t = reshaped(e, t, around_axis(e.shape_of(t), axis));
    inputs.push_back(t);
  }
  auto options = tfl::CreateConcatenationOptions(e.fbb(), view ? 1 : static_cast<int32_t>(axis),
                                                 tfl::ActivationFunctionType::NONE)
                     .Union();
  if (!view && kernel == type) {
    e.op(Op::CONCATENATION, inputs, {e.output(op.outputs[0])}, Opt::ConcatenationOptions, options);
    return;
  }
  const Shape shape = view ? around_axis(out_shape, axis) : out_shape;
  bind_result(e, op.outputs[0],
              e.op1(Op::CONCATENATION, inputs, kernel, shape, Opt::ConcatenationOptions, options));
}

// expand (row 47): the unidirectional broadcast to newShape: RESHAPE to its rank (leading 1s)
// and TILE of the dimensions that grow (every type).
void lower_expand(Emitter& e, const Operation& op, const AttrsOf<OpType::kExpand>&) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape out = shape_of(e.graph(), op.outputs[0]);
  const Shape in = e.shape_of(x);
  Shape aligned(out.size() - in.size(), 1);
  aligned.insert(aligned.end(), in.begin(), in.end());
  std::vector<int32_t> reps;
  for (size_t d = 0; d < out.size(); ++d) reps.push_back(out[d] / aligned[d]);
  const TensorIndex v = reshaped(e, x, aligned);
  if (std::all_of(reps.begin(), reps.end(), [](int32_t r) { return r == 1; })) {
    bind_result(e, op.outputs[0], v);
    return;
  }
  e.op(Op::TILE, {v, e.const_i32(reps)}, {e.output(op.outputs[0])}, Opt::TileOptions,
       tfl::CreateTileOptions(e.fbb()).Union());
}

// pad (row 64): beginningPadding/endingPadding per dimension in mode constant (the value cast to
// the input type, §3.6), edge (the edge element repeated) or reflection (mirrored about the edge
// element, which is not repeated); see pad_once. Adjacent unpadded dimensions are merged; when
// more than 5 dimensions remain, each padded dimension is padded in turn on an [outer, d, inner]
// view. Nothing padded: the input itself.
void lower_pad(Emitter& e, const Operation& op, const AttrsOf<OpType::kPad>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  std::vector<bool> padded(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    padded[d] = attrs.params.first[d] != 0 || attrs.params.second[d] != 0;
  if (std::none_of(padded.begin(), padded.end(), [](bool p) { return p; })) {
    e.bind(op.outputs[0], x);
    return;
  }
  const MLPaddingMode mode = attrs.options.mode;
  const TT kernel = signed_twin(e.type_of(x));
  bool zero = false;
  const TensorIndex value =
      mode == MLPaddingMode::kConstant
          ? pad_value(e, data_type_of(e.graph(), op.inputs[0]), kernel, attrs.options.value, zero)
          : kOmitted;
  const Runs runs = merge_runs(shape, [&](size_t d) { return !padded[d] && !padded[d + 1]; });
  std::vector<int32_t> begin, end;
  for (size_t i = 0; i + 1 < runs.starts.size(); ++i) {
    const size_t d = runs.starts[i];
    begin.push_back(padded[d] ? static_cast<int32_t>(attrs.params.first[d]) : 0);
    end.push_back(padded[d] ? static_cast<int32_t>(attrs.params.second[d]) : 0);
  }
  TensorIndex v = reshaped(e, as_signed(e, x), runs.shape);
  if (runs.shape.size() <= kMaxPadRank || mode != MLPaddingMode::kConstant) {
    v = pad_once(e, v, begin, end, mode, value, zero);
  } else {
    for (size_t d = 0; d < begin.size(); ++d) {
      if (begin[d] == 0 && end[d] == 0) continue;
      const Shape full = e.shape_of(v);
      v = pad_once(e, reshaped(e, v, around_axis(full, d)), {0, begin[d], 0}, {0, end[d], 0}, mode,
                   value, zero);
      Shape next = full;
      next[d] += begin[d] + end[d];
      v = reshaped(e, v, next);
    }
  }
  bind_result(e, op.outputs[0], v);
}

// reshape (row 81): RESHAPE to newShape (SQUEEZE for a 0-D output, see dm::reshaped).
void lower_reshape(Emitter& e, const Operation& op, const AttrsOf<OpType::kReshape>&) {
  bind_result(e, op.outputs[0],
              reshaped(e, e.value(op.inputs[0]), shape_of(e.graph(), op.outputs[0])));
}

// reverse (row 82): the listed axes (absent: all; []: none) of more than one element reversed.
// REVERSE_V2 reverses one run of adjacent axes, so adjacent dimensions reversed alike are merged
// and each reversed run is one REVERSE_V2 of its single merged axis (uint32/64 as int32/64).
void lower_reverse(Emitter& e, const Operation& op, const AttrsOf<OpType::kReverse>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  std::vector<uint32_t> all(shape.size());
  std::iota(all.begin(), all.end(), 0u);
  std::vector<bool> reversed(shape.size(), false);
  bool any = false;
  for (uint32_t a : attrs.options.axes.value_or(all)) {
    reversed[a] = shape[a] > 1;
    any = any || reversed[a];
  }
  if (!any) {
    e.bind(op.outputs[0], x);
    return;
  }
  const Runs runs = merge_runs(shape, [&](size_t d) { return reversed[d] == reversed[d + 1]; });
  TensorIndex v = reshaped(e, as_signed(e, x), runs.shape);
  for (size_t i = 0; i + 1 < runs.starts.size(); ++i) {
    if (!reversed[runs.starts[i]]) continue;
    v = e.op1(Op::REVERSE_V2, {v, e.const_i32({static_cast<int32_t>(i)})}, e.type_of(v), runs.shape,
              Opt::ReverseV2Options, tfl::CreateReverseV2Options(e.fbb()).Union());
  }
  bind_result(e, op.outputs[0], v);
}

// slice (row 86): from starts, sizes elements by strides (default 1), ceil(size / stride) per
// dimension: SLICE when no stride matters, else STRIDED_SLICE with end = start + size (no masks);
// nothing cut: the input itself.
void lower_slice(Emitter& e, const Operation& op, const AttrsOf<OpType::kSlice>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const std::vector<uint32_t> strides =
      attrs.options.strides.value_or(std::vector<uint32_t>(shape.size(), 1));
  std::vector<int32_t> begin, size, end, step;
  bool cuts = false, steps = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int32_t start = static_cast<int32_t>(attrs.params.first[d]);
    const int32_t n = static_cast<int32_t>(attrs.params.second[d]);
    const int32_t s = static_cast<int32_t>(strides[d]);
    begin.push_back(start);
    size.push_back(n);
    end.push_back(start + n);
    step.push_back(s);
    const bool stepped = s != 1 && n > 1;
    cuts = cuts || start != 0 || n != shape[d] || stepped;
    steps = steps || stepped;
  }
  if (!cuts) {
    e.bind(op.outputs[0], x);
    return;
  }
  const TensorIndex out = e.output(op.outputs[0]);
  if (!steps) {
    e.op(Op::SLICE, {x, e.const_i32(begin), e.const_i32(size)}, {out}, Opt::SliceOptions,
         tfl::CreateSliceOptions(e.fbb()).Union());
    return;
  }
  e.op(Op::STRIDED_SLICE, {x, e.const_i32(begin), e.const_i32(end), e.const_i32(step)}, {out},
       Opt::StridedSliceOptions, tfl::CreateStridedSliceOptions(e.fbb()).Union());
}

// split (row 90): SPLIT into equal parts or SPLIT_V into the outputs' sizes along axis (uint32/64
// as int32/64); above rank 4 on the [outer, size, inner] view; one output is the input itself.
void lower_split(Emitter& e, const Operation& op, const AttrsOf<OpType::kSplit>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  if (op.outputs.size() == 1) {
    e.bind(op.outputs[0], x);
    return;
  }
  const size_t axis = attrs.options.axis;
  const Shape shape = e.shape_of(x);
  const bool view = shape.size() > kMaxDirectRank;
  const TensorIndex v =
      reshaped(e, as_signed(e, x), view ? around_axis(shape, axis) : Shape(shape));
  const size_t k = view ? 1 : axis;
  std::vector<int32_t> sizes;
  std::vector<TensorIndex> parts;
  for (OperandId id : op.outputs) {
    Shape part = e.shape_of(v);
    part[k] = static_cast<int32_t>(e.graph().descriptor(id).shape[axis]);
    sizes.push_back(part[k]);
    parts.push_back(e.tensor(e.type_of(v), part));
  }
  const int32_t n = static_cast<int32_t>(sizes.size());
  const TensorIndex axis_t = i32_scalar(e, static_cast<int32_t>(k));
  if (std::all_of(sizes.begin(), sizes.end(), [&](int32_t s) { return s == sizes[0]; })) {
    e.op(Op::SPLIT, {axis_t, v}, parts, Opt::SplitOptions,
         tfl::CreateSplitOptions(e.fbb(), n).Union());
  } else {
    e.op(Op::SPLIT_V, {v, e.const_i32(sizes), axis_t}, parts, Opt::SplitVOptions,
         tfl::CreateSplitVOptions(e.fbb(), n).Union());
  }
  for (size_t i = 0; i < parts.size(); ++i) bind_result(e, op.outputs[i], parts[i]);
}

// tile (row 92): TILE by the repetitions (every type); all 1 (also a 0-D input): the input itself.
void lower_tile(Emitter& e, const Operation& op, const AttrsOf<OpType::kTile>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<int32_t> reps = to_i32(attrs.params.shape);
  if (std::all_of(reps.begin(), reps.end(), [](int32_t r) { return r == 1; })) {
    e.bind(op.outputs[0], x);
    return;
  }
  e.op(Op::TILE, {x, e.const_i32(reps)}, {e.output(op.outputs[0])}, Opt::TileOptions,
       tfl::CreateTileOptions(e.fbb()).Union());
}

// transpose (row 93): TRANSPOSE by the permutation (default: the dimensions reversed) at the
// data's rank up to 6 (TFLite's and XNNPACK's limit; XNNPACK merges dimensions itself, and a
// RESHAPE around a lower-rank TRANSPOSE costs it a copy each). A permutation that moves only
// dimensions of size 1 is a RESHAPE of the input; above rank 6 the size-1 dimensions are dropped
// and input dimensions that stay adjacent and in order are merged (RESHAPE around the TRANSPOSE).
void lower_transpose(Emitter& e, const Operation& op, const AttrsOf<OpType::kTranspose>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  std::vector<int32_t> perm(shape.size());
  if (attrs.options.permutation) {
    perm = to_i32(*attrs.options.permutation);
  } else {
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  // The permutation of the dimensions of more than one element, in output order.
  std::vector<int32_t> kept;
  for (int32_t p : perm)
    if (shape[static_cast<size_t>(p)] > 1) kept.push_back(p);
  // Runs of consecutive input dimensions (skipping 1s) in output order: {first, last}.
  std::vector<std::pair<int32_t, int32_t>> runs;
  for (int32_t p : kept) {
    bool joins = false;
    if (!runs.empty()) {
      int32_t next = runs.back().second + 1;
      while (next < p && shape[static_cast<size_t>(next)] == 1) ++next;
      joins = next == p;
    }
    if (joins) {
      runs.back().second = p;
    } else {
      runs.emplace_back(p, p);
    }
  }
  std::vector<size_t> order(runs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return runs[a].first < runs[b].first; });
  Shape merged(runs.size());
  std::vector<int32_t> merged_perm(runs.size());
  for (size_t j = 0; j < order.size(); ++j) {
    const auto [first, last] = runs[order[j]];
    merged[j] = static_cast<int32_t>(count_of(std::span(shape).subspan(
        static_cast<size_t>(first), static_cast<size_t>(last - first + 1))));
    merged_perm[order[j]] = static_cast<int32_t>(j);
  }
  bool identity = true;
  for (size_t i = 0; i < merged_perm.size(); ++i)
    identity = identity && merged_perm[i] == static_cast<int32_t>(i);
  if (identity) {
    bind_result(e, op.outputs[0], x);
    return;
  }
  if (shape.size() <= kMaxTransposeRank || merged.size() == shape.size()) {
    e.op(Op::TRANSPOSE, {x, e.const_i32(perm)}, {e.output(op.outputs[0])}, Opt::TransposeOptions,
         tfl::CreateTransposeOptions(e.fbb()).Union());
    return;
  }
  bind_result(e, op.outputs[0], e.transpose(reshaped(e, x, merged), merged_perm));
}

// triangular (row 94): over the last two dimensions [M, N], element (i, j) is kept when
// upper ? j - i >= diagonal : j - i <= diagonal and is 0 otherwise: SELECT_V2 of a constant BOOL
// [M, N] mask, x and 0 (a select, not a product: ±Inf and NaN outside the band become 0). Every
// element kept: the input itself.
void lower_triangular(Emitter& e, const Operation& op, const AttrsOf<OpType::kTriangular>& attrs) {
  const TensorIndex x = e.value(op.inputs[0]);
  const Shape shape = e.shape_of(x);
  const int64_t m = shape[shape.size() - 2], n = shape[shape.size() - 1];
  const int64_t k = attrs.options.diagonal;
  const bool upper = attrs.options.upper;
  if (upper ? k <= 1 - m : k >= n - 1) {  // j - i ranges over [1 - m, n - 1]
    e.bind(op.outputs[0], x);
    return;
  }
  std::vector<uint8_t> mask(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) mask[i * n + j] = upper ? j - i >= k : j - i <= k;
  const TensorIndex keep =
      bool_constant(e, {static_cast<int32_t>(m), static_cast<int32_t>(n)}, mask);
  e.op(Op::SELECT_V2, {keep, x, e.scalar(e.type_of(x), 0)}, {e.output(op.outputs[0])},
       Opt::SelectV2Options, tfl::CreateSelectV2Options(e.fbb()).Union());
}

// where (row 95): SELECT_V2(condition != 0, trueValue, falseValue), the three broadcast (a
// constant condition becomes a BOOL constant, else CAST to BOOL, which maps nonzero to true;
// TFLite's uint8 NOT_EQUAL is a quantized comparison that aborts without quantization scales).
void lower_where(Emitter& e, const Operation& op, const AttrsOf<OpType::kWhere>&) {
  const TensorIndex c = e.value(op.inputs[0]);
  TensorIndex cond;
  if (e.is_constant(c) && e.type_of(c) == TT::UINT8) {
    const auto bytes = e.constant_bytes(c);
    std::vector<uint8_t> v(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) v[i] = bytes[i] != std::byte{0};
    cond = bool_constant(e, e.shape_of(c), v);
  } else {
    cond = e.cast(c, TT::BOOL);
  }
  e.op(Op::SELECT_V2, {cond, e.value(op.inputs[1]), e.value(op.inputs[2])},
       {e.output(op.outputs[0])}, Opt::SelectV2Options,
       tfl::CreateSelectV2Options(e.fbb()).Union());
}

}  // namespace cppnn::tflite_export
