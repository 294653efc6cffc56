// Helpers of the TFLite data movement lowerings, shared with the gather/scatter and reduction
// lowerings (lower_data_movement.cpp, lower_gather_scatter.cpp, lower_reduction.cpp): the
// same-width signed view of uint32/uint64 data for the builtin kernels that lack those types
// (BITCAST, bit for bit), binding a result computed in another shape or view to an operand,
// merging adjacent dimensions that an op treats alike (fewer dimensions than TFLite's kernel rank
// limits), and small constant and operator builders. In namespace `dm` so that they never clash
// with other families' helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/emitter.h"

namespace cppnn::tflite_export::dm {

using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;
using TT = tfl::TensorType;
using Shape = std::vector<int32_t>;

// The number of elements of `shape` (1 for a scalar).
inline int64_t count_of(std::span<const int32_t> shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

// The signed type of the same width as `t` for uint32/uint64 (TFLite's PAD, GATHER, GATHER_ND,
// REVERSE_V2, SPLIT, SCATTER_ND, CUMSUM, the reducers and the comparisons lack them; moving or
// wrapping-adding the bits as int32/int64 is the same), else `t` itself.
inline TT signed_twin(TT t) {
  if (t == TT::UINT32) return TT::INT32;
  if (t == TT::UINT64) return TT::INT64;
  return t;
}

// BITCAST of `t` to `to` (the same element size): the bits reinterpreted, nothing when `t` already
// has type `to`.
inline TensorIndex bitcast(Emitter& e, TensorIndex t, TT to) {
  if (e.type_of(t) == to) return t;
  if (e.is_constant(t)) return e.constant_view(to, e.shape_of(t), e.constant_bytes(t));
  return e.op1(Op::BITCAST, {t}, to, e.shape_of(t), Opt::BitcastOptions,
               tfl::CreateBitcastOptions(e.fbb()).Union());
}

// `t` as its signed twin (BITCAST for uint32/uint64 data).
inline TensorIndex as_signed(Emitter& e, TensorIndex t) {
  return bitcast(e, t, signed_twin(e.type_of(t)));
}

// `t` with shape `shape` (the same element count): itself, a constant viewed so, a RESHAPE, or
// for a 0-D result a SQUEEZE of every dimension (LiteRT 2.3's compiled model leaves a model
// output that a RESHAPE to rank 0 writes unwritten, where its interpreter does not).
inline TensorIndex reshaped(Emitter& e, TensorIndex t, const Shape& shape) {
  if (e.shape_of(t) == shape) return t;
  if (e.is_constant(t)) return e.constant_view(e.type_of(t), shape, e.constant_bytes(t));
  if (shape.empty()) {
    std::vector<int32_t> dims(e.shape_of(t).size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int32_t>(d);
    return e.op1(Op::SQUEEZE, {t}, e.type_of(t), {}, Opt::SqueezeOptions,
                 tfl::CreateSqueezeOptionsDirect(e.fbb(), &dims).Union());
  }
  return e.reshape(t, shape);
}

// Binds operand `out` to `r`, a result holding out's elements in row-major order, possibly in
// another shape (RESHAPE to out's) or in out's signed twin (BITCAST back).
inline void bind_result(Emitter& e, OperandId out, TensorIndex r) {
  const MLOperandDescriptor& d = e.graph().descriptor(out);
  const TT type = compute_type_of(d.dataType);
  const Shape shape = tflite_shape(d.shape);
  if (e.type_of(r) != type && element_size(e.type_of(r)) != element_size(type))
    throw OperationError("tflite: a result of another element size");
  r = reshaped(e, r, shape);
  if (e.type_of(r) != type) r = bitcast(e, r, type);
  e.bind(out, r);
}

// Dimensions merged into runs: run i covers the input dimensions [starts[i], starts[i + 1]) and
// has extent shape[i] (their product).
struct Runs {
  std::vector<size_t> starts;
  Shape shape;
};

// `shape` with each pair of adjacent dimensions d, d + 1 merged where joins(d) holds.
template <class Joins>
Runs merge_runs(const Shape& shape, Joins joins) {
  Runs r;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0 && joins(d - 1)) {
      r.shape.back() *= shape[d];
    } else {
      r.starts.push_back(d);
      r.shape.push_back(shape[d]);
    }
  }
  r.starts.push_back(shape.size());
  return r;
}

// `shape` as [outer, shape[axis], inner] (the dimensions before and after `axis` merged).
inline Shape around_axis(const Shape& shape, size_t axis) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  return {static_cast<int32_t>(outer), shape[axis], static_cast<int32_t>(inner)};
}

// Row-major element strides of `shape`.
inline std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// A constant of `type` and `shape` holding `values` (T of `type`'s element size).
template <class T>
TensorIndex constant_of(Emitter& e, TT type, Shape shape, const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return e.constant(type, std::move(shape), std::move(bytes));
}

// An INT32 constant of `shape`.
inline TensorIndex i32_constant(Emitter& e, Shape shape, const std::vector<int32_t>& values) {
  return constant_of(e, TT::INT32, std::move(shape), values);
}

// A BOOL constant of `shape` (one byte per element, 0 or 1).
inline TensorIndex bool_constant(Emitter& e, Shape shape, const std::vector<uint8_t>& values) {
  return constant_of(e, TT::BOOL, std::move(shape), values);
}

// A rank-0 INT32 constant (the axis operand of SPLIT, SPLIT_V and CUMSUM).
inline TensorIndex i32_scalar(Emitter& e, int32_t v) {
  return i32_constant(e, {}, {v});
}

// The numpy broadcast of shapes `a` and `b` (trailing dimensions aligned, 1 stretches).
inline Shape broadcast(const Shape& a, const Shape& b) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// A binary elementwise builtin (ADD, SUB, MUL, MAXIMUM, MINIMUM, FLOOR_MOD; the comparisons
// EQUAL, LESS, GREATER give BOOL) of `a` and `b`, broadcast, with its options table.
inline TensorIndex binary(Emitter& e, Op code, TensorIndex a, TensorIndex b) {
  Opt type = Opt::NONE;
  flatbuffers::Offset<void> options = 0;
  TT out = e.type_of(a);
  switch (code) {
    case Op::ADD:
      type = Opt::AddOptions, options = tfl::CreateAddOptions(e.fbb()).Union();
      break;
    case Op::SUB:
      type = Opt::SubOptions, options = tfl::CreateSubOptions(e.fbb()).Union();
      break;
    case Op::MUL:
      type = Opt::MulOptions, options = tfl::CreateMulOptions(e.fbb()).Union();
      break;
    case Op::MAXIMUM:
    case Op::MINIMUM:
      type = Opt::MaximumMinimumOptions,
      options = tfl::CreateMaximumMinimumOptions(e.fbb()).Union();
      break;
    case Op::FLOOR_MOD:
      type = Opt::FloorModOptions, options = tfl::CreateFloorModOptions(e.fbb()).Union();
      break;
    case Op::EQUAL:
      type = Opt::EqualOptions, options = tfl::CreateEqualOptions(e.fbb()).Union();
      out = TT::BOOL;
      break;
    case Op::LESS:
      type = Opt::LessOptions, options = tfl::CreateLessOptions(e.fbb()).Union();
      out = TT::BOOL;
      break;
    case Op::GREATER:
      type = Opt::GreaterOptions, options = tfl::CreateGreaterOptions(e.fbb()).Union();
      out = TT::BOOL;
      break;
    default:
      throw OperationError("tflite: not a binary builtin");
  }
  return e.op1(code, {a, b}, out, broadcast(e.shape_of(a), e.shape_of(b)), type, options);
}

// SELECT_V2(cond, a, b): a where the BOOL cond holds, else b, the three broadcast together.
inline TensorIndex select(Emitter& e, TensorIndex cond, TensorIndex a, TensorIndex b) {
  return e.op1(Op::SELECT_V2, {cond, a, b}, e.type_of(a),
               broadcast(e.shape_of(cond), broadcast(e.shape_of(a), e.shape_of(b))),
               Opt::SelectV2Options, tfl::CreateSelectV2Options(e.fbb()).Union());
}

// GATHER of `x` at the INT32/INT64 `positions` along `axis` (batch_dims 0), into a new tensor of
// shape x[:axis] ++ positions.shape ++ x[axis+1:] (x's type: the caller passes a signed twin).
inline TensorIndex gather(Emitter& e, TensorIndex x, TensorIndex positions, size_t axis) {
  const Shape& xs = e.shape_of(x);
  Shape shape(xs.begin(), xs.begin() + static_cast<ptrdiff_t>(axis));
  const Shape& ps = e.shape_of(positions);
  shape.insert(shape.end(), ps.begin(), ps.end());
  shape.insert(shape.end(), xs.begin() + static_cast<ptrdiff_t>(axis) + 1, xs.end());
  return e.op1(Op::GATHER, {x, positions}, e.type_of(x), std::move(shape), Opt::GatherOptions,
               tfl::CreateGatherOptions(e.fbb(), static_cast<int32_t>(axis), 0).Union());
}

// A reducer (SUM, MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD) of `x` over `axes` (distinct),
// keeping them as 1s when `keep`.
inline TensorIndex reduce(Emitter& e, Op code, TensorIndex x, const std::vector<int32_t>& axes,
                          bool keep) {
  const Shape& xs = e.shape_of(x);
  std::vector<bool> reduced(xs.size(), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a)] = true;
  Shape shape;
  for (size_t d = 0; d < xs.size(); ++d) {
    if (!reduced[d])
      shape.push_back(xs[d]);
    else if (keep)
      shape.push_back(1);
  }
  return e.op1(code, {x, e.const_i32(axes)}, e.type_of(x), std::move(shape), Opt::ReducerOptions,
               tfl::CreateReducerOptions(e.fbb(), keep).Union());
}

}  // namespace cppnn::tflite_export::dm
