// Arithmetic builders of the TFLite lowerings that compute with elementwise operators
// (activations, normalizations, quantization): one builtin operator each with its options table
// (fused activation NONE), the output shaped by TFLite's broadcast rule (numpy's: trailing
// dimensions aligned, a 1 stretches), plus constant-aware reshapes and scalar constants.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/emitter.h"

namespace cppnn::tflite_export {

// The broadcast of shapes `a` and `b` (TFLite/numpy: trailing dimensions aligned, 1 stretches).
inline std::vector<int32_t> broadcast_shape(const std::vector<int32_t>& a,
                                            const std::vector<int32_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int32_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) throw OperationError("tflite: shapes do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// The options table of a binary builtin `code` (fused activation NONE where it has one).
inline std::pair<tfl::BuiltinOptions, flatbuffers::Offset<void>> binary_options(
    Emitter& e, tfl::BuiltinOperator code) {
  using Op = tfl::BuiltinOperator;
  using Opt = tfl::BuiltinOptions;
  switch (code) {
    case Op::ADD:
      return {Opt::AddOptions, tfl::CreateAddOptions(e.fbb()).Union()};
    case Op::SUB:
      return {Opt::SubOptions, tfl::CreateSubOptions(e.fbb()).Union()};
    case Op::MUL:
      return {Opt::MulOptions, tfl::CreateMulOptions(e.fbb()).Union()};
    case Op::DIV:
      return {Opt::DivOptions, tfl::CreateDivOptions(e.fbb()).Union()};
    case Op::MAXIMUM:
    case Op::MINIMUM:
      return {Opt::MaximumMinimumOptions, tfl::CreateMaximumMinimumOptions(e.fbb()).Union()};
    case Op::SQUARED_DIFFERENCE:
      return {Opt::SquaredDifferenceOptions, tfl::CreateSquaredDifferenceOptions(e.fbb()).Union()};
    case Op::LESS:
      return {Opt::LessOptions, tfl::CreateLessOptions(e.fbb()).Union()};
    case Op::EQUAL:
      return {Opt::EqualOptions, tfl::CreateEqualOptions(e.fbb()).Union()};
    default:
      return {Opt::NONE, 0};
  }
}

// A binary builtin of `a` and `b` into a new tensor of the broadcast shape: BOOL for the
// comparisons LESS/EQUAL, else a's type.
inline TensorIndex binary(Emitter& e, tfl::BuiltinOperator code, TensorIndex a, TensorIndex b) {
  const bool compare = code == tfl::BuiltinOperator::LESS || code == tfl::BuiltinOperator::EQUAL;
  const auto [type, options] = binary_options(e, code);
  return e.op1(code, {a, b}, compare ? tfl::TensorType::BOOL : e.type_of(a),
               broadcast_shape(e.shape_of(a), e.shape_of(b)), type, options);
}

// A unary builtin without options (LOGISTIC, TANH, RELU, ELU, SQRT, RSQRT, ROUND, ...) of `x`,
// into a new tensor of x's type and shape.
inline TensorIndex unary(Emitter& e, tfl::BuiltinOperator code, TensorIndex x) {
  return e.op1(code, {x}, e.type_of(x), e.shape_of(x));
}

// SELECT_V2(cond, a, b): a where cond (BOOL) holds, else b, the three broadcast together.
inline TensorIndex select(Emitter& e, TensorIndex cond, TensorIndex a, TensorIndex b) {
  return e.op1(tfl::BuiltinOperator::SELECT_V2, {cond, a, b}, e.type_of(a),
               broadcast_shape(e.shape_of(cond), broadcast_shape(e.shape_of(a), e.shape_of(b))),
               tfl::BuiltinOptions::SelectV2Options, tfl::CreateSelectV2Options(e.fbb()).Union());
}

// A rank-0 FLOAT32 constant.
inline TensorIndex f32_scalar(Emitter& e, double v) {
  return e.scalar(tfl::TensorType::FLOAT32, v);
}

// `t` with shape `shape` (same element count): a constant is viewed with the new shape (no
// operator), a tensor of that shape is itself, anything else is RESHAPEd.
inline TensorIndex reshaped(Emitter& e, TensorIndex t, const std::vector<int32_t>& shape) {
  if (e.shape_of(t) == shape) return t;
  if (e.is_constant(t)) return e.constant_view(e.type_of(t), shape, e.constant_bytes(t));
  return e.reshape(t, shape);
}

}  // namespace cppnn::tflite_export
