// Helpers shared by the CoreML data movement and gather/scatter lowerings (lower_data_movement.cpp,
// lower_gather_scatter.cpp): graph constants, 8-bit data through MIL ops whose iOS17 type domain
// lacks int8/uint8 (computed in int32, an exact round trip), copies, and slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/export/coreml/emitter.h"

namespace cppnn::coreml_export {

// Whether a MIL element type is int8 or uint8 (WebNN's 8-bit types, which iOS17 carries through
// cast, reshape, transpose, slices, reverse and the gathers only).
inline bool is_eight_bit(mil::DataType t) {
  return t == mil::INT8 || t == mil::UINT8;
}

// The bytes of operand `id` when it is a graph constant, or nullptr (an input or an op's result).
inline const ConstantData* constant_data(const Emitter& e, OperandId id) {
  const OperandInfo& info = e.graph().operand(id);
  if (info.kind != OperandKind::kConstant) return nullptr;
  return &e.graph().constants.at(info.producer);
}

// The product of a shape's dimensions (1 for a scalar).
inline int64_t element_count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A tensor of `shape` with every element `value` (cast to `type` like an MLNumber, §3.6): a
// `const` when small, else a MIL `fill` (fp16/fp32/int32) so that no large constant is written.
inline std::string filled(Emitter& e, mil::DataType type, const std::vector<int64_t>& shape,
                          const MLNumber& value) {
  constexpr int64_t kMaxConstFill = 64;
  if (element_count(shape) <= kMaxConstFill) return e.const_fill(type, shape, value);
  return e.op("fill", {{"shape", e.const_i32_of(shape)}, {"value", e.const_scalar(type, value)}},
              MilType{type, shape});
}

// `x` as int32 when it is int8 or uint8 (an exact widening), else `x` itself: the MIL ops whose
// type domain is fp16/fp32/int32 (concat, split, tile, select, the scatters) see 8-bit data so.
inline std::string widened(Emitter& e, const std::string& x) {
  return is_eight_bit(e.type_of(x).type) ? e.cast(x, mil::INT32) : x;
}

// Emits MIL op `type(params)`, computed in element type `compute`, as operand `out`: directly, or
// (8-bit data computed in int32) into a fresh int32 variable cast back to out's type, which is
// exact because every value came from out's type.
inline void emit_in(Emitter& e, OperandId out, std::string_view type, std::vector<Param> params,
                    mil::DataType compute) {
  const MilType t = e.mil_type(out);
  if (compute == t.type) {
    e.op_to(type, std::move(params), out);
    return;
  }
  const std::string v = e.op(type, std::move(params), MilType{compute, t.shape});
  e.op_to("cast", {{"x", v}, {"dtype", e.const_string(mil_dtype_name(t.type))}}, out);
}

// `x` written unchanged to operand `out` (an op that moves nothing): MIL identity, or for 8-bit
// data (identity's type domain is fp16/fp32/int32/bool) a reshape to its own shape.
inline void copy_to(Emitter& e, const std::string& x, OperandId out) {
  const MilType t = e.mil_type(out);
  if (is_eight_bit(t.type)) {
    e.op_to("reshape", {{"x", x}, {"shape", e.const_i32_of(t.shape)}}, out);
  } else {
    e.op_to("identity", {{"x", x}}, out);
  }
}

// `x` reshaped to `shape` (the same element count) as a fresh variable, or `x` itself when it
// already has that shape.
inline std::string reshaped(Emitter& e, const std::string& x, std::span<const int64_t> shape) {
  const MilType t = e.type_of(x);
  if (std::equal(t.shape.begin(), t.shape.end(), shape.begin(), shape.end())) return x;
  return e.op("reshape", {{"x", x}, {"shape", e.const_i32_of(shape)}},
              MilType{t.type, std::vector<int64_t>(shape.begin(), shape.end())});
}

// Elements [start, stop) of `x` along dimension `axis` (MIL slice_by_index, every type).
inline std::string slice_along(Emitter& e, const std::string& x, size_t axis, int64_t start,
                               int64_t stop) {
  const MilType t = e.type_of(x);
  std::vector<int64_t> begin(t.shape.size(), 0), end = t.shape;
  begin[axis] = start;
  end[axis] = stop;
  MilType out = t;
  out.shape[axis] = stop - start;
  return e.op("slice_by_index",
              {{"x", x}, {"begin", e.const_i32_of(begin)}, {"end", e.const_i32_of(end)}}, out);
}

}  // namespace cppnn::coreml_export
