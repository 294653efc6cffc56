// Builders of the TFLite activation lowerings (lower_activations.cpp): LEAKY_RELU and SOFTMAX on
// the last axis, and the integer forms of clamp and prelu that TFLite's float builtins lack.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cppnn/number.h"
#include "src/export/tflite/emitter.h"
#include "src/export/tflite/lower_compute_util.h"
#include "src/export/tflite/lower_util.h"
#include "src/ops/activations_params.h"

namespace cppnn::tflite_export::act {

// TFLite's LEAKY_RELU of float32 `x`: x > 0 ? x : alpha · x (one rounded product).
inline TensorIndex leaky_relu(Emitter& e, TensorIndex x, double alpha) {
  return e.op1(tfl::BuiltinOperator::LEAKY_RELU, {x}, e.type_of(x), e.shape_of(x),
               tfl::BuiltinOptions::LeakyReluOptions,
               tfl::CreateLeakyReluOptions(e.fbb(), static_cast<float>(alpha)).Union());
}

// TFLite's SOFTMAX of `x` along its last axis, beta 1 (exp(x - max) / Σ exp(x - max)).
inline TensorIndex softmax_last_axis(Emitter& e, TensorIndex x) {
  return e.op1(tfl::BuiltinOperator::SOFTMAX, {x}, e.type_of(x), e.shape_of(x),
               tfl::BuiltinOptions::SoftmaxOptions,
               tfl::CreateSoftmaxOptions(e.fbb(), 1.0f).Union());
}

// A rank-0 constant of integer type `type` holding the low bytes of `bits` (exact for 64-bit
// values, which Emitter::scalar's double cannot hold).
inline TensorIndex int_scalar(Emitter& e, tfl::TensorType type, uint64_t bits) {
  std::vector<std::byte> bytes(element_size(type));
  std::memcpy(bytes.data(), &bits, bytes.size());  // little-endian: the low bytes
  return e.constant(type, {}, std::move(bytes));
}

// TFLite's BITCAST of `x` to the same-width `type` (same shape).
inline TensorIndex bitcast(Emitter& e, TensorIndex x, tfl::TensorType type) {
  return e.op1(tfl::BuiltinOperator::BITCAST, {x}, type, e.shape_of(x),
               tfl::BuiltinOptions::BitcastOptions, tfl::CreateBitcastOptions(e.fbb()).Union());
}

// One bound of an unsigned clamp on `s`, the signed view (BITCAST) of uint32/uint64 data, whose
// negative values are the unsigned values >= 2^(width-1): x < lo ? lo : x (`upper` false) or
// x > hi ? hi : x, with `bound` the bound's bits. MAXIMUM/MINIMUM order the non-negative and the
// negative views each correctly; SELECT_V2 on s < 0 settles the pairs across the two halves.
inline TensorIndex unsigned_bound(Emitter& e, TensorIndex s, uint64_t bound, bool upper) {
  using Op = tfl::BuiltinOperator;
  const tfl::TensorType type = e.type_of(s);
  const TensorIndex b = int_scalar(e, type, bound);
  const bool bound_high = (bound >> (element_size(type) * 8 - 1)) & 1;  // negative as signed
  const TensorIndex high = binary(e, Op::LESS, s, int_scalar(e, type, 0));
  const TensorIndex same_half = binary(e, upper ? Op::MINIMUM : Op::MAXIMUM, s, b);
  if (!upper)  // high values pass a low bound; low values fail a high one
    return bound_high ? select(e, high, same_half, b) : select(e, high, s, same_half);
  // high values pass below a high bound and exceed a low one
  return bound_high ? select(e, high, same_half, s) : select(e, high, b, same_half);
}

// clamp of integer data `x` of WebNN type `t` (row 5): bounds cast to t (saturating, like the
// reference), each left out when it is t's own limit; MAXIMUM/MINIMUM in the type for the signed
// types and uint8, the signed view of uint32/uint64 (unsigned_bound) for the others.
inline TensorIndex clamp_integer(Emitter& e, TensorIndex x, MLOperandDataType t,
                                 const ClampBounds& bounds) {
  using DT = MLOperandDataType;
  using Op = tfl::BuiltinOperator;
  const tfl::TensorType type = e.type_of(x);
  const bool is_signed = t == DT::kInt8 || t == DT::kInt32 || t == DT::kInt64;
  const unsigned bits = static_cast<unsigned>(element_size(type) * 8);
  if (is_signed) {
    const int64_t lo = bounds.min.cast_to_int64(t), hi = bounds.max.cast_to_int64(t);
    const int64_t type_max = static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
    TensorIndex y = x;
    if (lo != -type_max - 1)
      y = binary(e, Op::MAXIMUM, y, int_scalar(e, type, static_cast<uint64_t>(lo)));
    if (hi != type_max)
      y = binary(e, Op::MINIMUM, y, int_scalar(e, type, static_cast<uint64_t>(hi)));
    return y;
  }
  const uint64_t lo = bounds.min.cast_to_uint64(t), hi = bounds.max.cast_to_uint64(t);
  const uint64_t type_max =
      bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
  if (t == DT::kUint8) {
    TensorIndex y = x;
    if (lo != 0) y = binary(e, Op::MAXIMUM, y, int_scalar(e, type, lo));
    if (hi != type_max) y = binary(e, Op::MINIMUM, y, int_scalar(e, type, hi));
    return y;
  }
  if (lo == 0 && hi == type_max) return x;
  const tfl::TensorType view = bits == 64 ? tfl::TensorType::INT64 : tfl::TensorType::INT32;
  TensorIndex s = bitcast(e, x, view);
  if (lo != 0) s = unsigned_bound(e, s, lo, false);
  if (hi != type_max) s = unsigned_bound(e, s, hi, true);
  return bitcast(e, s, type);
}

// prelu of signed integer data (row 68): x < 0 ? x · slope : x, input and slope broadcast, the
// comparison, product and selection in the wide type (int8 in int32) and wrapped back by CAST.
inline TensorIndex prelu_integer(Emitter& e, TensorIndex x, TensorIndex slope,
                                 MLOperandDataType t) {
  using Op = tfl::BuiltinOperator;
  const tfl::TensorType wide = wide_type_of(t);
  const TensorIndex xw = e.cast(x, wide), sw = e.cast(slope, wide);
  const TensorIndex negative = binary(e, Op::LESS, xw, e.scalar(wide, 0));
  const TensorIndex y = select(e, negative, binary(e, Op::MUL, xw, sw), xw);
  return e.cast(y, e.type_of(x));
}

}  // namespace cppnn::tflite_export::act
