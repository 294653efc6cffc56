// ONNX quantization operators of the misc family (ops_misc.def): QuantizeLinear and
// DequantizeLinear (per tensor, per axis and blocked) map to WebNN quantizeLinear /
// dequantizeLinear, whose scale and zero point broadcast blockwise: a 1-D per-axis scale [D] is
// reshaped to [1, .., D, .., 1] so that it lines up with `axis`. DynamicQuantizeLinear is
// decomposed (min/max reductions, the scale and zero point formulas, then quantizeLinear).
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// The shape a scale or zero point of `shape` takes against an input of rank `rank`: scalars and
// same-rank (blocked) shapes stay, a 1-D shape becomes per-axis.
std::vector<uint32_t> param_shape(const NodeContext& c, const std::vector<uint32_t>& shape,
                                  size_t rank, int64_t axis_attr) {
  if (shape.empty() || shape.size() == rank) return shape;
  if (shape.size() != 1) c.invalid("scale must be a scalar, 1-D or of the input's rank");
  if (shape[0] == 1) return {};
  if (rank == 0) c.invalid("a per-axis scale needs an input of rank >= 1");
  std::vector<uint32_t> out(rank, 1);
  out[normalize_axis(c, axis_attr, rank)] = shape[0];
  return out;
}

// Input i reshaped to `shape` (on the host when known).
MLOperand reshaped(NodeContext& c, size_t i, const std::vector<uint32_t>& shape) {
  if (c.is_constant(i)) return c.constant_operand(host_reshape(c.constant(i), shape));
  MLOperand x = c.input(i);
  if (x.shape() == shape) return x;
  return c.builder().reshape(x, shape, c.opts<MLOperatorOptions>());
}

// Zero point input 2 shaped like the scale, or zeros of `type` when absent.
MLOperand zero_point(NodeContext& c, const std::vector<uint32_t>& shape, DT type) {
  if (c.has_input(2)) {
    if (c.input_type(2) != type) c.invalid("the zero point has the wrong type");
    return reshaped(c, 2, shape);
  }
  std::vector<int64_t> zeros(element_count(shape), 0);
  return c.constant_operand(HostTensor::of_int64(zeros, shape, type));
}

void check_block_size(const NodeContext& c) {
  if (c.attr_int("block_size", 0) < 0) c.invalid("negative block_size");
}

}  // namespace

// QuantizeLinear: y = saturate(roundEven(x / scale) + zero_point); output type = the zero
// point's (uint8 when absent, or output_dtype).
void import_QuantizeLinear(NodeContext& c) {
  check_block_size(c);
  const size_t rank = c.input_rank(0);
  const std::vector<uint32_t> shape = param_shape(c, c.input_shape(1), rank, c.attr_int("axis", 1));
  DT zp_type = DT::kUint8;
  if (c.has_input(2)) {
    zp_type = c.input_type(2);
  } else if (c.has_attr("output_dtype")) {
    const auto onnx_type = static_cast<int32_t>(c.attr_int("output_dtype", 0));
    const auto t = webnn_type_of(onnx_type);
    if (!t) c.unsupported("output_dtype " + onnx_type_name(onnx_type));
    zp_type = *t;
  }
  if (zp_type != DT::kUint8 && zp_type != DT::kInt8)
    c.unsupported(std::string(data_type_name(zp_type)) + " quantization (WebNN: int8/uint8)");
  if (c.attr_int("saturate", 1) != 1) c.unsupported("saturate = 0 (float8 only)");
  MLOperand scale = reshaped(c, 1, shape);
  const DT ft = scale.dataType();
  if (ft != DT::kFloat32 && ft != DT::kFloat16) c.unsupported("a non-float scale");
  MLOperand x = cast_to(c, c.input(0), ft);
  MLOperand zp = zero_point(c, shape, zp_type);
  c.set_output(0, c.builder().quantizeLinear(x, scale, zp, c.opts<MLOperatorOptions>()));
}

// DequantizeLinear: y = (x - zero_point) * scale, in the scale's type.
void import_DequantizeLinear(NodeContext& c) {
  check_block_size(c);
  const size_t rank = c.input_rank(0);
  const std::vector<uint32_t> shape = param_shape(c, c.input_shape(1), rank, c.attr_int("axis", 1));
  const DT xt = c.input_type(0);
  if (xt != DT::kUint8 && xt != DT::kInt8 && xt != DT::kInt32)
    c.unsupported(std::string(data_type_name(xt)) + " input (WebNN: int8, uint8, int32)");
  MLOperand scale = reshaped(c, 1, shape);
  const DT ft = scale.dataType();
  if (ft != DT::kFloat32 && ft != DT::kFloat16) c.unsupported("a non-float scale");
  MLOperand zp = zero_point(c, shape, xt);
  c.set_output(0, c.builder().dequantizeLinear(c.input(0), scale, zp, c.opts<MLOperatorOptions>()));
}

// DynamicQuantizeLinear (uint8): x_min = min(0, min x), x_max = max(0, max x),
// scale = (x_max - x_min) / 255, zero point = roundEven(clamp(-x_min / scale, 0, 255)), then
// y = quantizeLinear(x / scale, 1, zero point).
void import_DynamicQuantizeLinear(NodeContext& c) {
  MLGraphBuilder& b = c.builder();
  MLOperand x = c.input(0);
  if (x.dataType() != DT::kFloat32) c.unsupported("a non-float32 input");
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  MLReduceOptions all = c.opts<MLReduceOptions>();
  MLOperand zero = c.scalar(DT::kFloat32, 0);
  MLOperand lo = b.min(b.reduceMin(x, all), zero, o);
  MLOperand hi = b.max(b.reduceMax(x, all), zero, o);
  MLOperand scale = b.div(b.sub(hi, lo, o), c.scalar(DT::kFloat32, 255), o);
  MLClampOptions clamp = c.opts<MLClampOptions>();
  clamp.minValue = MLNumber(0.0);
  clamp.maxValue = MLNumber(255.0);
  MLOperand zpf = b.roundEven(b.clamp(b.div(b.neg(lo, o), scale, o), clamp), o);
  MLOperand zp = b.cast(zpf, DT::kUint8, o);
  // x / scale as its own float32 op (ONNX divides in float32), then quantized with scale 1.
  MLOperand q = b.div(x, scale, o);
  c.set_output(0, b.quantizeLinear(q, c.scalar(DT::kFloat32, 1), zp, o));
  c.set_output(1, scale);
  c.set_output(2, zp);
}

}  // namespace cppnn::onnx_import
