// ONNX lowering of the quantization ops (see lower.h; webnn-spec.md §2 rows 44-45, §6 erratum
// 17). WebNN's scale and zeroPoint are left-padded with 1s to the input rank and expanded
// blockwise (each scale element covers input.dim / scale.dim consecutive elements per axis).
// Opset 17's QuantizeLinear/DequantizeLinear take only a per-tensor (scalar) or per-axis (1-D)
// scale and only int8/uint8 quantized values (int4/uint4 arrive unpacked as int8/uint8), so:
// - per-tensor or per-axis scales with 8-bit or 4-bit values use those nodes (the scale and
//   zeroPoint reshaped to a scalar or 1-D; float16 goes through float32, which is exact there);
// - everything else (block sizes above 1, broadcasting several axes, int32/uint32 values) is
//   computed elementwise, exactly as the reference backend does: blocked axes are split into
//   (scale.dim, block) by a Reshape so that ONNX broadcasting applies the scale per block.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/int4.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_data_movement_util.h"
#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {
namespace {

using T = MLOperandDataType;

// How the scale covers the input.
struct ScalePlan {
  std::vector<int64_t> input;        // input dims
  std::vector<int64_t> scale;        // scale dims left-padded with 1s to the input rank
  bool per_tensor = false;           // one scale for everything
  int64_t axis = -1;                 // per-axis: scale.dim == input.dim on this axis only
  bool blocked = false;              // some axis has 1 < scale.dim < input.dim
  std::vector<int64_t> input_split;  // input dims with blocked axes split into (s, block)
  std::vector<int64_t> scale_split;  // scale dims with blocked axes split into (s, 1)
};

ScalePlan scale_plan(const Emitter& e, OperandId input, OperandId scale) {
  ScalePlan p;
  p.input = e.dims(input);
  p.scale = e.dims(scale);
  p.scale.insert(p.scale.begin(), p.input.size() - p.scale.size(), 1);
  int non_unit = 0;
  bool full = true;  // every non-1 scale dim equals the input dim
  for (size_t d = 0; d < p.input.size(); ++d) {
    const int64_t s = p.scale[d], n = p.input[d];
    if (s != 1) {
      ++non_unit;
      p.axis = static_cast<int64_t>(d);
      full = full && s == n;
    }
    if (s != 1 && s != n) {
      p.blocked = true;
      p.input_split.insert(p.input_split.end(), {s, n / s});
      p.scale_split.insert(p.scale_split.end(), {s, 1});
    } else {
      p.input_split.push_back(n);
      p.scale_split.push_back(s);
    }
  }
  p.per_tensor = non_unit == 0;
  if (non_unit != 1 || !full) p.axis = -1;
  return p;
}

// Whether ONNX's QuantizeLinear/DequantizeLinear can take the scale as it is shaped.
bool onnx_scale_shape(const ScalePlan& p) {
  return p.per_tensor || p.axis >= 0;
}

// Operand `id` with its elements in `shape`: a new initializer when it is a constant (int4/uint4
// unpacked, as ONNX stores them), else a Reshape node.
std::string reshaped_operand(Emitter& e, OperandId id, std::span<const int64_t> shape) {
  const ConstantData* data = constant_data(e, id);
  if (data == nullptr) return reshaped(e, e.value(id), shape);
  const T type = e.type(id);
  const auto count = static_cast<size_t>(element_count(shape));
  if (type == T::kInt4) {
    const std::vector<int8_t> v = unpack_int4(data->bytes(), count);
    return e.const_tensor(type, shape, std::as_bytes(std::span<const int8_t>(v)));
  }
  if (type == T::kUint4) {
    const std::vector<uint8_t> v = unpack_uint4(data->bytes(), count);
    return e.const_tensor(type, shape, std::as_bytes(std::span<const uint8_t>(v)));
  }
  return e.const_tensor(type, shape, data->bytes());
}

// The scale (or zeroPoint) shaped for QuantizeLinear/DequantizeLinear: a scalar (per-tensor) or
// 1-D (per-axis); the operand itself when it already has that shape.
std::string onnx_scale(Emitter& e, const ScalePlan& p, OperandId id) {
  const std::vector<int64_t> dims = e.dims(id);
  if (p.per_tensor) return dims.empty() ? e.value(id) : reshaped_operand(e, id, {});
  if (dims.size() == 1) return e.value(id);
  const std::vector<int64_t> shape{p.scale[static_cast<size_t>(p.axis)]};
  return reshaped_operand(e, id, shape);
}

// The attributes of QuantizeLinear/DequantizeLinear for the plan.
std::vector<Attr> axis_attr(const ScalePlan& p) {
  if (p.per_tensor) return {};
  return {{"axis", p.axis}};
}

// `value` (an input-shaped operand) and `scale_like` (scale-shaped) made broadcast-compatible:
// reshaped to the split shapes when some axis is blocked.
std::string split_input(Emitter& e, const ScalePlan& p, const std::string& value) {
  return p.blocked ? reshaped(e, value, p.input_split) : value;
}
std::string split_scale(Emitter& e, const ScalePlan& p, const std::string& value) {
  return p.blocked ? reshaped(e, value, p.scale_split) : value;
}

bool is_8_or_4_bit(T type) {
  return type == T::kInt8 || type == T::kUint8 || type == T::kInt4 || type == T::kUint4;
}

// The value range of a quantized type.
void quantized_range(T type, int64_t& lo, int64_t& hi) {
  switch (type) {
    case T::kInt4:
      lo = -8, hi = 7;
      return;
    case T::kUint4:
      lo = 0, hi = 15;
      return;
    case T::kInt8:
      lo = -128, hi = 127;
      return;
    case T::kUint8:
      lo = 0, hi = 255;
      return;
    case T::kInt32:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      return;
    case T::kUint32:
      lo = 0, hi = std::numeric_limits<uint32_t>::max();
      return;
    default:
      break;
  }
  throw NotSupportedError("unsupported quantized data type");
}

// A Cast of `value` to double (ONNX Runtime computes Div, Mul, Round, Clip in double).
std::string to_double(Emitter& e, const std::string& value) {
  return e.node("Cast", {value}, {{"to", int64_t{onnx::TensorProto::DOUBLE}}});
}

// A double scalar holding the integer `v` exactly (an int64 initializer cast to double, which
// ONNX Runtime folds at session creation).
std::string double_scalar(Emitter& e, int64_t v) {
  return to_double(e, e.const_scalar(T::kInt64, MLNumber(v)));
}

// The name the elementwise path's last node writes: the op's output, or a fresh name that
// finish() reshapes into the output when the input was split into blocks.
std::string result_name(Emitter& e, const ScalePlan& p, const Operation& op) {
  return p.blocked ? e.fresh() : out(e, op);
}
void finish(Emitter& e, const ScalePlan& p, const Operation& op, const std::string& result) {
  if (p.blocked) e.node_to("Reshape", {result, e.const_i64(p.input)}, {out(e, op)});
}

}  // namespace

// dequantizeLinear (row 44): y = (x − zeroPoint) · scale, in the scale's type.
// 8-bit/4-bit per-tensor or per-axis: DequantizeLinear (float32; a float16 scale is widened and
// the float32 result narrowed: the product of a 9-bit difference and a float16 is exact in
// float32, so it is rounded once, as in the reference). Otherwise elementwise: for 8-bit/4-bit
// values the difference and product in float32 (the difference is exact, the product rounded
// once); for int32/uint32 the difference in int64 (exact) and the product in double, rounded once
// to the scale type, as the reference does.
void lower_dequantizeLinear(Emitter& e, const Operation& op,
                            const AttrsOf<OpType::kDequantizeLinear>&) {
  const OperandId x = op.inputs[0], scale = op.inputs[1], zero_point = op.inputs[2];
  const T qtype = e.type(x), stype = e.type(scale);
  const ScalePlan p = scale_plan(e, x, scale);
  const bool small = is_8_or_4_bit(qtype);
  if (small && onnx_scale_shape(p)) {
    const std::string s = e.cast(onnx_scale(e, p, scale), stype, T::kFloat32);
    std::vector<std::string> inputs = {e.value(x), s, onnx_scale(e, p, zero_point)};
    if (stype == T::kFloat32) {
      e.node_to("DequantizeLinear", std::move(inputs), {out(e, op)}, axis_attr(p));
    } else {
      const std::string y = e.node("DequantizeLinear", std::move(inputs), axis_attr(p));
      e.node_to("Cast", {y}, {out(e, op)}, {{"to", int64_t{onnx_type_of(stype)}}});
    }
    return;
  }
  const std::string xs = split_input(e, p, e.value(x));
  const std::string zs = split_scale(e, p, e.value(zero_point));
  const std::string ss = split_scale(e, p, e.value(scale));
  const std::string result = result_name(e, p, op);
  if (small) {
    const std::string diff =
        e.node("Sub", {e.cast(xs, qtype, T::kFloat32), e.cast(zs, qtype, T::kFloat32)});
    if (stype == T::kFloat32) {
      e.node_to("Mul", {diff, ss}, {result});
    } else {
      const std::string y = e.node("Mul", {diff, e.cast(ss, stype, T::kFloat32)});
      e.node_to("Cast", {y}, {result}, {{"to", int64_t{onnx_type_of(stype)}}});
    }
  } else {
    const std::string diff =
        e.node("Sub", {e.cast(xs, qtype, T::kInt64), e.cast(zs, qtype, T::kInt64)});
    const std::string y = e.node("Mul", {to_double(e, diff), to_double(e, ss)});
    e.node_to("Cast", {y}, {result}, {{"to", int64_t{onnx_type_of(stype)}}});
  }
  finish(e, p, op, result);
}

// quantizeLinear (row 45): y = saturate(roundEven(x / scale) + zeroPoint) in the zeroPoint's type.
// 8-bit per-tensor or per-axis: QuantizeLinear (float32; float16 widened exactly); 4-bit: the
// same into int8/uint8, then clamped to the 4-bit range (clamping twice equals clamping to the
// narrower range). Otherwise elementwise in double, as the reference: Div, Round (half to even),
// Add, Clip, NaN to 0, Cast.
void lower_quantizeLinear(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kQuantizeLinear>&) {
  const OperandId x = op.inputs[0], scale = op.inputs[1], zero_point = op.inputs[2];
  const T xtype = e.type(x), qtype = e.type(zero_point);
  const ScalePlan p = scale_plan(e, x, scale);
  int64_t lo = 0, hi = 0;
  quantized_range(qtype, lo, hi);
  if (is_8_or_4_bit(qtype) && onnx_scale_shape(p)) {
    std::vector<std::string> inputs = {e.cast(e.value(x), xtype, T::kFloat32),
                                       e.cast(onnx_scale(e, p, scale), xtype, T::kFloat32),
                                       onnx_scale(e, p, zero_point)};
    if (qtype == T::kInt8 || qtype == T::kUint8) {
      e.node_to("QuantizeLinear", std::move(inputs), {out(e, op)}, axis_attr(p));
    } else {
      // The bounds as int8/uint8 scalars (the ONNX type of int4/uint4).
      const T storage = qtype == T::kInt4 ? T::kInt8 : T::kUint8;
      const std::string q = e.node("QuantizeLinear", std::move(inputs), axis_attr(p));
      e.node_to("Clip",
                {q, e.const_scalar(storage, MLNumber(lo)), e.const_scalar(storage, MLNumber(hi))},
                {out(e, op)});
    }
    return;
  }
  const std::string xd = to_double(e, split_input(e, p, e.value(x)));
  const std::string sd = to_double(e, split_scale(e, p, e.value(scale)));
  const std::string zd = to_double(e, split_scale(e, p, e.value(zero_point)));
  const std::string r = e.node("Round", {e.node("Div", {xd, sd})});
  const std::string sum = e.node("Add", {r, zd});
  const std::string c = e.node("Clip", {sum, double_scalar(e, lo), double_scalar(e, hi)});
  const std::string finite = e.node("Where", {e.node("IsNaN", {sum}), double_scalar(e, 0), c});
  const std::string result = result_name(e, p, op);
  e.node_to("Cast", {finite}, {result}, {{"to", int64_t{onnx_type_of(qtype)}}});
  finish(e, p, op, result);
}

}  // namespace cppnn::onnx_export
