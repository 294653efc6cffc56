// Helpers of the TFLite elementwise lowerings (lower_elementwise_binary.cpp,
// lower_elementwise_unary.cpp): builtin operators with their option tables, the types integer
// data is computed in, WebNN's uint8 truth values to and from TFLite BOOL, integer constants and
// bit-for-bit conversions, and the rank limit of XNNPACK's float arithmetic.
//
// TFLite builtin facts these rest on (ai-edge-litert 2.3.0, checked by running one-operator
// models with and without the XNNPACK delegate):
// - ADD/SUB/MUL take float32, int32 and int64 (wrapping), but no uint32/uint64 and int8/uint8
//   only as quantized data; DIV takes float32 and int32 (truncating; x / 0 is an error, INT_MIN
//   / -1 gives INT_MAX); FLOOR_DIV takes int32 but not int64; FLOOR_MOD takes int32 and int64
//   (exact; x % 0 is an error, INT_MIN % -1 traps); MAXIMUM/MINIMUM and the comparisons take
//   float32, int8/uint8 (MAXIMUM/MINIMUM only), int32 and int64, not uint32/uint64; comparisons
//   of int8/uint8 tensors abort without quantization parameters.
// - CAST takes every type but uint64 (BITCAST does: int64 <-> uint64 bit for bit); integer ->
//   integer keeps the low bits, float -> integer truncates and saturates but turns NaN into the
//   type's maximum.
// - Float ADD/SUB/MUL/DIV clamp to +-FLT_MAX in the builtin kernels; XNNPACK (ranks up to 6)
//   keeps infinities, so float arithmetic is kept within 6 dimensions (coalesced()).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/tflite/emitter.h"
#include "src/export/tflite/lower_compute_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export::ew {

using TT = tfl::TensorType;
using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;
using DT = MLOperandDataType;

// The most dimensions XNNPACK's binary operators take (XNN_MAX_TENSOR_DIMS).
constexpr size_t kXnnpackMaxRank = 6;

// broadcast_shape, select, f32_scalar and reshaped come from lower_compute_util.h.

// Whether TFLite comparison `code` (BOOL result).
inline bool is_comparison(Op code) {
  return code == Op::EQUAL || code == Op::NOT_EQUAL || code == Op::LESS || code == Op::LESS_EQUAL ||
         code == Op::GREATER || code == Op::GREATER_EQUAL;
}

// The option table of builtin `code` (fused activation NONE where it has one; none for the
// option-less unary builtins).
inline std::pair<Opt, flatbuffers::Offset<void>> options_of(Emitter& e, Op code) {
  auto& b = e.fbb();
  switch (code) {
    case Op::ADD:
      return {Opt::AddOptions, tfl::CreateAddOptions(b).Union()};
    case Op::SUB:
      return {Opt::SubOptions, tfl::CreateSubOptions(b).Union()};
    case Op::MUL:
      return {Opt::MulOptions, tfl::CreateMulOptions(b).Union()};
    case Op::DIV:
      return {Opt::DivOptions, tfl::CreateDivOptions(b).Union()};
    case Op::MAXIMUM:
    case Op::MINIMUM:
      return {Opt::MaximumMinimumOptions, tfl::CreateMaximumMinimumOptions(b).Union()};
    case Op::POW:
      return {Opt::PowOptions, tfl::CreatePowOptions(b).Union()};
    case Op::FLOOR_MOD:
      return {Opt::FloorModOptions, tfl::CreateFloorModOptions(b).Union()};
    case Op::EQUAL:
      return {Opt::EqualOptions, tfl::CreateEqualOptions(b).Union()};
    case Op::NOT_EQUAL:
      return {Opt::NotEqualOptions, tfl::CreateNotEqualOptions(b).Union()};
    case Op::LESS:
      return {Opt::LessOptions, tfl::CreateLessOptions(b).Union()};
    case Op::LESS_EQUAL:
      return {Opt::LessEqualOptions, tfl::CreateLessEqualOptions(b).Union()};
    case Op::GREATER:
      return {Opt::GreaterOptions, tfl::CreateGreaterOptions(b).Union()};
    case Op::GREATER_EQUAL:
      return {Opt::GreaterEqualOptions, tfl::CreateGreaterEqualOptions(b).Union()};
    case Op::LOGICAL_AND:
      return {Opt::LogicalAndOptions, tfl::CreateLogicalAndOptions(b).Union()};
    case Op::LOGICAL_OR:
      return {Opt::LogicalOrOptions, tfl::CreateLogicalOrOptions(b).Union()};
    case Op::LOGICAL_NOT:
      return {Opt::LogicalNotOptions, tfl::CreateLogicalNotOptions(b).Union()};
    case Op::NEG:
      return {Opt::NegOptions, tfl::CreateNegOptions(b).Union()};
    case Op::ABS:
      return {Opt::AbsOptions, tfl::CreateAbsOptions(b).Union()};
    case Op::COS:
      return {Opt::CosOptions, tfl::CreateCosOptions(b).Union()};
    case Op::EXP:
      return {Opt::ExpOptions, tfl::CreateExpOptions(b).Union()};
    case Op::SIGN:
      return {Opt::SignOptions, tfl::CreateSignOptions(b).Union()};
    case Op::GELU:
      return {Opt::GeluOptions, tfl::CreateGeluOptions(b, false).Union()};
    default:
      return {Opt::NONE, 0};
  }
}

// Binary builtin `code` of `a` and `b` (broadcast together): BOOL for comparisons, else a's type.
inline TensorIndex bin(Emitter& e, Op code, TensorIndex a, TensorIndex b) {
  const auto [type, options] = options_of(e, code);
  return e.op1(code, {a, b}, is_comparison(code) ? TT::BOOL : e.type_of(a),
               broadcast_shape(e.shape_of(a), e.shape_of(b)), type, options);
}

// Unary builtin `code` of `x` (same type and shape; BOOL for LOGICAL_NOT).
inline TensorIndex un(Emitter& e, Op code, TensorIndex x) {
  const auto [type, options] = options_of(e, code);
  return e.op1(code, {x}, e.type_of(x), e.shape_of(x), type, options);
}

// A rank-0 constant of integer or float type `t` holding `v` exactly (int64 values beyond 2^53
// included, which Emitter::scalar's double cannot carry).
inline TensorIndex int_scalar(Emitter& e, TT t, int64_t v) {
  std::vector<std::byte> bytes(element_size(t));
  switch (t) {
    case TT::INT64:
    case TT::UINT64:
      std::memcpy(bytes.data(), &v, 8);
      return e.constant(t, {}, std::move(bytes));
    default:
      return e.scalar(t, static_cast<double>(v));
  }
}

// x with element type `to` of the same size, bit for bit (uint32 <-> int32, uint64 <-> int64):
// a constant is viewed with the new type, anything else goes through BITCAST.
inline TensorIndex bitcast(Emitter& e, TensorIndex x, TT to) {
  if (e.type_of(x) == to) return x;
  if (e.is_constant(x)) return e.constant_view(to, e.shape_of(x), e.constant_bytes(x));
  return e.op1(Op::BITCAST, {x}, to, e.shape_of(x), Opt::BitcastOptions,
               tfl::CreateBitcastOptions(e.fbb()).Union());
}

// The constant integer tensor `x` (any integer type) as its values in int64 (uint64 bits as is).
inline std::vector<int64_t> int_values(const Emitter& e, TensorIndex x) {
  const std::span<const std::byte> b = e.constant_bytes(x);
  const TT t = e.type_of(x);
  const size_t size = element_size(t), n = b.size() / size;
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const std::byte* p = b.data() + i * size;
    switch (t) {
      case TT::INT8:
        v[i] = static_cast<int8_t>(p[0]);
        break;
      case TT::UINT8:
        v[i] = static_cast<uint8_t>(p[0]);
        break;
      case TT::INT32: {
        int32_t s;
        std::memcpy(&s, p, 4);
        v[i] = s;
        break;
      }
      case TT::UINT32: {
        uint32_t s;
        std::memcpy(&s, p, 4);
        v[i] = s;
        break;
      }
      default:
        std::memcpy(&v[i], p, 8);
        break;
    }
  }
  return v;
}

// An integer constant of type `t` and `shape` from int64 values (kept modulo 2^bits).
inline TensorIndex int_constant(Emitter& e, TT t, std::vector<int32_t> shape,
                                const std::vector<int64_t>& v) {
  const size_t size = element_size(t);
  std::vector<std::byte> bytes(v.size() * size);
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(bytes.data() + i * size, &v[i], size);
  return e.constant(t, std::move(shape), std::move(bytes));  // little-endian low bytes
}

// Integer `x` converted to integer type `to` by CAST (low bits kept, sign- or zero-extended),
// BITCAST between same-size types, folded for constants. uint64 (which CAST lacks) goes through
// int64 bits.
inline TensorIndex int_convert(Emitter& e, TensorIndex x, TT to) {
  const TT from = e.type_of(x);
  if (from == to) return x;
  if (element_size(from) == element_size(to)) return bitcast(e, x, to);
  if (e.is_constant(x)) return int_constant(e, to, e.shape_of(x), int_values(e, x));
  if (from == TT::UINT64) return e.cast(bitcast(e, x, TT::INT64), to);
  if (to == TT::UINT64) return bitcast(e, e.cast(x, TT::INT64), TT::UINT64);
  return e.cast(x, to);
}

// The type wrapping integer arithmetic (add, sub, mul, pow) of WebNN type `t` runs in: int32 for
// int8/uint8 (widened; TFLite's 8-bit arithmetic is quantized) and uint32 (its bits), int64 for
// int64 and uint64 (its bits); the low bits of the result are the wrapped result.
inline TT wrap_type_of(DT t) {
  switch (t) {
    case DT::kInt8:
    case DT::kUint8:
    case DT::kInt32:
    case DT::kUint32:
      return TT::INT32;
    case DT::kInt64:
    case DT::kUint64:
      return TT::INT64;
    default:
      return TT::FLOAT32;
  }
}

// The type order-dependent integer ops (comparisons, max, min) of WebNN type `t` run in,
// holding the same values: int32 for int8/uint8/int32, int64 for uint32/int64; uint64 runs in
// int64 shifted by -2^63 (ordered(), which keeps the order).
inline TT ordered_type_of(DT t) {
  switch (t) {
    case DT::kInt8:
    case DT::kUint8:
    case DT::kInt32:
      return TT::INT32;
    case DT::kUint32:
    case DT::kInt64:
    case DT::kUint64:
      return TT::INT64;
    default:
      return TT::FLOAT32;
  }
}

// `x` (compute type of WebNN type `t`) in ordered_type_of(t); uint64 as its value - 2^63 in int64
// (the top bit flipped: an order-preserving map onto int64).
inline TensorIndex ordered(Emitter& e, TensorIndex x, DT t) {
  const TensorIndex v = int_convert(e, x, ordered_type_of(t));
  if (t != DT::kUint64) return v;
  return bin(e, Op::ADD, v, int_scalar(e, TT::INT64, INT64_MIN));
}

// The inverse of ordered(): a value of ordered_type_of(t) back in t's compute type.
inline TensorIndex from_ordered(Emitter& e, TensorIndex v, DT t) {
  if (t == DT::kUint64) v = bin(e, Op::ADD, v, int_scalar(e, TT::INT64, INT64_MIN));
  return int_convert(e, v, compute_type_of(t));
}

// WebNN truth value (uint8, nonzero is true) as BOOL: CAST, which gives x != 0 (NOT_EQUAL on an
// unquantized uint8 tensor aborts in TFLite).
inline TensorIndex truth(Emitter& e, TensorIndex x) {
  if (e.type_of(x) == TT::BOOL) return x;
  return e.cast(x, TT::BOOL);
}

// BOOL -> WebNN uint8 0/1.
inline TensorIndex uint8_of(Emitter& e, TensorIndex b) {
  return e.cast(b, TT::UINT8);
}

// BOOL NaN mask of float `x` (x != x).
inline TensorIndex is_nan(Emitter& e, TensorIndex x) {
  return bin(e, Op::NOT_EQUAL, x, x);
}

// Whether `x` is a float constant without NaN (so that no NaN check is needed for it).
inline bool nan_free_constant(const Emitter& e, TensorIndex x) {
  if (!e.is_constant(x) || e.type_of(x) != TT::FLOAT32) return false;
  const std::span<const std::byte> b = e.constant_bytes(x);
  for (size_t i = 0; i + 4 <= b.size(); i += 4) {
    float f;
    std::memcpy(&f, b.data() + i, 4);
    if (std::isnan(f)) return false;
  }
  return true;
}

// Binds `t` as the op's output after checking it has the operand's compute type and shape.
inline void bind_output(Emitter& e, const Operation& op, TensorIndex t) {
  const MLOperandDescriptor& d = e.graph().descriptor(op.outputs[0]);
  if (e.type_of(t) != compute_type_of(d.dataType) || e.shape_of(t) != tflite_shape(d.shape))
    throw OperationError(
        "tflite: elementwise lowering produced a tensor of the wrong type or shape");
  e.bind(op.outputs[0], t);
}

// Shapes `a` and `b` (broadcasting to `out`) with adjacent dimensions that broadcast alike merged
// and dimensions of size 1 in `out` dropped: the same elementwise result on fewer dimensions.
inline void coalesce_shapes(std::vector<int32_t>& a, std::vector<int32_t>& b,
                            const std::vector<int32_t>& out) {
  const size_t rank = out.size();
  auto padded = [&](const std::vector<int32_t>& s) {
    std::vector<int32_t> p(rank - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  const std::vector<int32_t> pa = padded(a), pb = padded(b);
  std::vector<int32_t> ra, rb;
  int last = -1;  // the pattern of the last kept dimension: bit 0 a full, bit 1 b full
  for (size_t i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;
    const int pattern = (pa[i] == out[i] ? 1 : 0) | (pb[i] == out[i] ? 2 : 0);
    if (pattern == last) {
      ra.back() *= pa[i];
      rb.back() *= pb[i];
    } else {
      ra.push_back(pa[i]);
      rb.push_back(pb[i]);
      last = pattern;
    }
  }
  a = std::move(ra);
  b = std::move(rb);
}

// Binary builtin `code` of `a` and `b` kept within XNNPACK's 6 dimensions where the broadcast has
// more: the inputs reshaped to coalesce_shapes' shapes, and where those still have more than 6
// dimensions, both broadcast to the output shape and flattened; the result reshaped back. The
// broadcasts are SELECT_V2(true, a, b) and SELECT_V2(false, a, b), which copy (BROADCAST_TO
// needs operator version 2).
inline TensorIndex coalesced(Emitter& e, Op code, TensorIndex a, TensorIndex b) {
  const std::vector<int32_t> out = broadcast_shape(e.shape_of(a), e.shape_of(b));
  if (out.size() <= kXnnpackMaxRank) return bin(e, code, a, b);
  std::vector<int32_t> sa = e.shape_of(a), sb = e.shape_of(b);
  coalesce_shapes(sa, sb, out);
  if (sa.size() <= kXnnpackMaxRank)
    return reshaped(e, bin(e, code, reshaped(e, a, sa), reshaped(e, b, sb)), out);
  int32_t n = 1;
  for (int32_t d : out) n *= d;
  const TensorIndex fa = select(e, e.scalar(TT::BOOL, 1), a, b);
  const TensorIndex fb = select(e, e.scalar(TT::BOOL, 0), a, b);
  return reshaped(e, bin(e, code, reshaped(e, fa, {n}), reshaped(e, fb, {n})), out);
}

}  // namespace cppnn::tflite_export::ew
