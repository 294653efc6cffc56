// Helpers of the normalization and resample lowerings: results computed in a wider element type
// than the output's (float16 computed in float32, then cast once), and WebNN constant operands
// passed to MIL parameters that must be constants (`const` in a MIL op's input_spec: batch_norm's
// mean and variance, layer_norm's gamma ...), optionally with their data transposed at
// conversion time.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/export/coreml/emitter.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {

// Emits the last MIL op `type(params)` of a lowering computed in element type `compute`: it
// writes the op's output `index`, or a fresh variable of that output's shape cast to the output's
// type.
inline void emit_result(Emitter& e, const Operation& op, std::string_view type,
                        std::vector<Param> params, mil::DataType compute, size_t index = 0) {
  const MilType out = out_type(e, op, index);
  if (compute == out.type) {
    e.op_to(type, std::move(params), op.outputs[index]);
    return;
  }
  const std::string v = e.op(type, std::move(params), MilType{compute, out.shape});
  e.op_to("cast", {{"x", v}, {"dtype", e.const_string(mil_dtype_name(out.type))}},
          op.outputs[index]);
}

// Whether operand `id` is a WebNN constant (its data known at conversion time).
inline bool is_constant(const Emitter& e, OperandId id) {
  return e.graph().operand(id).kind == OperandKind::kConstant;
}

// Whether the op's i-th input is absent or a WebNN constant.
inline bool absent_or_constant(const Emitter& e, const Operation& op, size_t i) {
  return !has(op, i) || is_constant(e, op.inputs[i]);
}

// A MIL `const` holding constant operand `id`'s data with shape `shape` (the same elements in
// the same order): the operand's variable when that is a const of that shape already (the
// emitter names its constants "c<k>"; large fills are `fill` ops, see convert.cpp), else a new
// const.
inline std::string const_operand(Emitter& e, OperandId id, const std::vector<int64_t>& shape) {
  const std::string& bound = e.value(id);
  if (bound[0] == 'c' && e.type_of(bound).shape == shape) return bound;
  return e.const_tensor(e.mil_type(id).type, shape, e.graph().constant(id).bytes());
}
inline std::string const_operand(Emitter& e, OperandId id) {
  return const_operand(e, id, e.mil_type(id).shape);
}

// The row-major data of a tensor of `shape` (elements of `size` bytes) transposed by `perm`
// (output dimension i is input dimension perm[i]).
inline std::vector<std::byte> transposed_bytes(std::span<const std::byte> data,
                                               const std::vector<int64_t>& shape,
                                               const std::vector<size_t>& perm, size_t size) {
  const size_t rank = shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * shape[i];
  std::vector<int64_t> out_shape(rank);
  for (size_t i = 0; i < rank; ++i) out_shape[i] = shape[perm[i]];
  std::vector<std::byte> out(data.size());
  std::vector<int64_t> index(rank, 0);  // index in the output
  const size_t count = size == 0 ? 0 : data.size() / size;
  for (size_t n = 0; n < count; ++n) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * in_strides[perm[i]];
    std::memcpy(out.data() + n * size, data.data() + static_cast<size_t>(src) * size, size);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < out_shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace cppnn::coreml_export
