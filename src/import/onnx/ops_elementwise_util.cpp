// Helpers shared by the elementwise and activation handlers (see ops_elementwise_util.h).
#include "src/import/onnx/ops_elementwise_util.h"

#include "cppnn/data_type.h"

namespace cppnn::onnx_import {

bool is_unsigned_type(MLOperandDataType t) {
  return t == MLOperandDataType::kUint8 || t == MLOperandDataType::kUint32 ||
         t == MLOperandDataType::kUint64;
}

std::string type_name(MLOperandDataType t) {
  return std::string(data_type_name(t));
}

MLOperand float_input(NodeContext& c, size_t i, const char* webnn_op) {
  const MLOperandDataType t = c.input_type(i);
  if (!is_float_type(t))
    c.unsupported(c.op_type() + " on " + type_name(t) + " (WebNN " + webnn_op +
                  " takes float32 or float16 only)");
  return c.input(i);
}

MLOperand binary_rhs(NodeContext& c, size_t a_rank) {
  MLOperand b = c.input(1);
  if (c.opset() >= 7 || c.attr_int("broadcast", 0) == 0 || !c.has_attr("axis")) return b;
  const std::vector<uint32_t> shape = b.shape();
  int64_t axis = c.attr_int("axis", 0);
  const auto rank = static_cast<int64_t>(a_rank);
  if (axis < 0) axis += rank;
  const int64_t trailing = rank - axis - static_cast<int64_t>(shape.size());
  if (axis < 0 || trailing < 0)
    c.invalid("legacy broadcast of shape " + shape_to_string(shape) + " at axis " +
              std::to_string(c.attr_int("axis", 0)) + " does not fit rank " + std::to_string(rank));
  if (trailing == 0) return b;
  std::vector<uint32_t> aligned = shape;
  aligned.insert(aligned.end(), static_cast<size_t>(trailing), 1u);
  return c.builder().reshape(b, aligned, c.opts<MLOperatorOptions>());
}

MLOperand Ops::poly(const MLOperand& z, const std::vector<double>& coeffs) {
  MLOperand acc = k(z, coeffs.back());
  for (size_t i = coeffs.size() - 1; i-- > 0;) acc = add(mul(acc, z), coeffs[i]);
  return acc;
}

}  // namespace cppnn::onnx_import
