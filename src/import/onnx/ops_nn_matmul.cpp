// ONNX matrix and softmax-family operators (ops_nn.def): Gemm (WebNN gemm), MatMul (matmul with
// ONNX's 1-D promotion), Softmax, LogSoftmax (max-subtracted decomposition) and Hardmax (argMax
// as a one-hot). Before opset 13 the softmax family coerces the input to 2-D
// [prod(shape[:axis]), prod(shape[axis:])] (default axis 1); from 13 it uses a plain axis
// (default -1).
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// Input 0 shaped for the softmax family and the axis to apply it on.
std::pair<MLOperand, uint32_t> softmax_input(NodeContext& c) {
  require_float(c, 0, "softmax");
  const std::vector<uint32_t>& xs = c.input_shape(0);
  if (xs.empty()) c.invalid("a scalar input");
  if (c.opset() >= 13) return {c.input(0), normalize_axis(c, c.attr_int("axis", -1), xs.size())};
  const auto rank = static_cast<int64_t>(xs.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < -rank || axis > rank) c.invalid("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += rank;
  const auto a = static_cast<size_t>(axis);
  const auto outer = static_cast<uint32_t>(dims_product(c, xs, 0, a));
  const auto inner = static_cast<uint32_t>(dims_product(c, xs, a, xs.size()));
  return {reshaped_input(c, 0, {outer, inner}), 1};
}

// reduce over `axis` keeping it.
MLReduceOptions keep_axis(const NodeContext& c, uint32_t axis) {
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.axes = std::vector<uint32_t>{axis};
  o.keepDimensions = true;
  return o;
}

}  // namespace

void import_Gemm(NodeContext& c) {
  require_float(c, 0, "gemm");
  if (c.input_rank(0) != 2 || c.input_rank(1) != 2) c.invalid("A and B must be 2-D");
  const MLOperandDataType t = c.input_type(0);
  MLGemmOptions o = c.opts<MLGemmOptions>();
  o.alpha = c.attr_float("alpha", 1.0f);
  o.beta = c.attr_float("beta", 1.0f);
  o.aTranspose = c.attr_int("transA", 0) != 0;
  o.bTranspose = c.attr_int("transB", 0) != 0;
  if (c.has_input(2) && element_count(c.input_shape(2)) > 0) o.c = cast_to(c, c.input(2), t);
  c.set_output(0, c.builder().gemm(c.input(0), cast_to(c, c.input(1), t), o));
}

void import_MatMul(NodeContext& c) {
  require_float(c, 0, "matmul");
  std::vector<uint32_t> as = c.input_shape(0), bs = c.input_shape(1);
  if (as.empty() || bs.empty()) c.invalid("scalar operands");
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const MLOperand a = reshaped_input(c, 0, as), bb = reshaped_input(c, 1, bs);
  MLOperand y = c.builder().matmul(a, bb, c.opts<MLOperatorOptions>());
  std::vector<uint32_t> out = y.shape();
  if (b_vec) out.pop_back();
  if (a_vec) out.erase(out.end() - (b_vec ? 1 : 2));
  c.set_output(0, reshape_to(c, y, out));
}

void import_Softmax(NodeContext& c) {
  auto [x, axis] = softmax_input(c);
  const MLOperand y = c.builder().softmax(x, axis, c.opts<MLOperatorOptions>());
  c.set_output(0, reshape_to(c, y, c.input_shape(0)));
}

void import_LogSoftmax(NodeContext& c) {
  auto [x, axis] = softmax_input(c);
  MLGraphBuilder& b = c.builder();
  const auto L = c.opts<MLOperatorOptions>();
  const MLOperand d = b.sub(x, b.reduceMax(x, keep_axis(c, axis)), L);
  const MLOperand y = b.sub(d, b.log(b.reduceSum(b.exp(d, L), keep_axis(c, axis)), L), L);
  c.set_output(0, reshape_to(c, y, c.input_shape(0)));
}

void import_Hardmax(NodeContext& c) {
  auto [x, axis] = softmax_input(c);
  MLGraphBuilder& b = c.builder();
  MLArgMinMaxOptions o = c.opts<MLArgMinMaxOptions>();
  o.keepDimensions = true;
  const MLOperand arg = b.argMax(x, axis, o);
  const uint32_t dim = x.shape()[axis];
  std::vector<int64_t> iota(dim);
  for (uint32_t i = 0; i < dim; ++i) iota[i] = i;
  std::vector<uint32_t> ishape(x.shape().size(), 1);
  ishape[axis] = dim;
  const MLOperand idx =
      c.constant_operand(HostTensor::of_int64(iota, ishape, MLOperandDataType::kInt32));
  const MLOperand y = b.cast(b.equal(arg, idx, c.opts<MLOperatorOptions>()), x.dataType(),
                             c.opts<MLOperatorOptions>());
  c.set_output(0, reshape_to(c, y, c.input_shape(0)));
}

}  // namespace cppnn::onnx_import
