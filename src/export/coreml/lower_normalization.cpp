// CoreML lowering of the normalizations (see lower.h; webnn-spec.md §2 rows 3, 57, 58):
// batchNormalization, instanceNormalization and layerNormalization, float32 and float16.
//
// All three compute in float32: a float16 input is cast up first and the result cast back once,
// as the reference kernels compute in double and round once (in float16 the variance of small
// values underflows: WPT's zero-epsilon cases would give 0/0). ε is first cast to the input type
// (§3.6) as the reference does. Each is the MIL normalization op of the same formula,
// y = (x − mean) / √(variance + ε) · scale + bias, where MIL can take it: batch_norm (channel
// axis 1 of a rank 3-5 tensor; other axes and ranks reshape to [outer, C, inner] around it),
// instance_norm (nchw; nhwc transposes around it) and layer_norm (any set of axes). MIL requires
// their mean, variance, gamma and beta to be constants: WebNN constant operands are passed as
// MIL consts (layerNormalization's scale and bias transposed at conversion time when `axes` is
// not increasing, MIL's gamma following the input's dimension order), other operands are applied
// with elementwise ops in the spec's order. Without a bias the result still gets + 0 (MIL's
// default beta, the reference's + 0.0), so -0 becomes +0 everywhere.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_compute_util.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/normalization_params.h"

namespace cppnn::coreml_export {
namespace {

constexpr mil::DataType kCompute = mil::FLOAT32;

// ε cast to the input's type `t` (§3.6), as a scalar of MIL element type `as`.
std::string epsilon_const(Emitter& e, MLOperandDataType t, mil::DataType as, double epsilon) {
  const double rounded = MLNumber(epsilon).cast_to_double(t);
  return e.const_scalar(as, MLNumber(rounded));
}

// The product of shape[from, to).
int64_t dims_product(const std::vector<int64_t>& shape, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= shape[i];
  return n;
}

// Parameter variable `p` (whose dims are x's dims `dims` at the increasing axes `axes`) cast to
// the compute type and reshaped to x's rank with 1 elsewhere, so that it broadcasts against x.
std::string broadcastable(Emitter& e, const std::string& p, const std::vector<int64_t>& dims,
                          const std::vector<uint32_t>& axes) {
  std::vector<int64_t> shape(dims.size(), 1);
  for (uint32_t a : axes) shape[a] = dims[a];
  const std::string v = e.cast(p, kCompute);
  if (e.type_of(v).shape == shape) return v;
  return e.op("reshape", {{"x", v}, {"shape", e.const_i32_of(shape)}}, MilType{kCompute, shape});
}

// y · scale + bias of the normalized y (compute type), broadcast parameters or empty names,
// written to the op's output: bias absent adds 0 (as the reference's + 0.0).
void scale_and_bias(Emitter& e, const Operation& op, std::string y, const std::string& scale,
                    const std::string& bias) {
  const MilType t = e.type_of(y);
  if (!scale.empty()) y = e.op("mul", {{"x", y}, {"y", scale}}, t);
  const std::string b = bias.empty() ? e.const_scalar(kCompute, 0) : bias;
  emit_result(e, op, "add", {{"x", y}, {"y", b}}, kCompute);
}

// (x − mean) / √(variance + ε) in the compute type, the operands broadcast against x.
std::string normalized(Emitter& e, const std::string& x, const std::string& mean,
                       const std::string& variance, const std::string& eps) {
  const MilType t = e.type_of(x);
  const MilType vt = e.type_of(variance);
  const std::string d = e.op("sub", {{"x", x}, {"y", mean}}, t);
  const std::string sum = e.op("add", {{"x", variance}, {"y", eps}}, vt);
  const std::string root = e.op("sqrt", {{"x", sum}}, vt);
  return e.op("real_div", {{"x", d}, {"y", root}}, t);
}

}  // namespace

// The normalizations are lowered directly in every case.
bool lowers_normalization(const Graph&, const Operation&) {
  return true;
}

// batchNormalization (row 3): y = (x − mean[c]) / √(variance[c] + ε) · scale[c] + bias[c] along
// `axis`. Constant mean, variance, scale and bias: one MIL batch_norm, on the input as is for
// axis 1 of rank 3-5, else on the input reshaped to [outer, C, inner] (no data movement) and
// reshaped back. Otherwise the spec's formula with elementwise ops, the parameters reshaped to
// x's rank (C along `axis`, 1 elsewhere) to broadcast.
void lower_batchNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kBatchNormalization>& attrs) {
  const MilType in_type = e.mil_type(op.inputs[0]);
  const std::vector<int64_t>& dims = in_type.shape;
  const size_t rank = dims.size(), axis = attrs.options.axis;
  const int64_t channels = dims.at(axis);
  const std::string x = e.cast(in(e, op, 0), kCompute);
  const bool constant = absent_or_constant(e, op, 1) && absent_or_constant(e, op, 2) &&
                        absent_or_constant(e, op, 3) && absent_or_constant(e, op, 4);
  if (constant) {
    const bool direct = axis == 1 && rank >= 3 && rank <= 5;
    const std::vector<int64_t> folded =
        direct ? dims
               : std::vector<int64_t>{dims_product(dims, 0, axis), channels,
                                      dims_product(dims, axis + 1, rank)};
    const std::string xb = direct ? x
                                  : e.op("reshape", {{"x", x}, {"shape", e.const_i32_of(folded)}},
                                         MilType{kCompute, folded});
    std::vector<Param> params{{"x", xb},
                              {"mean", const_operand(e, op.inputs[1])},
                              {"variance", const_operand(e, op.inputs[2])}};
    if (has(op, 3)) params.emplace_back("gamma", const_operand(e, op.inputs[3]));
    if (has(op, 4)) params.emplace_back("beta", const_operand(e, op.inputs[4]));
    params.emplace_back(
        "epsilon", epsilon_const(e, e.type(op.inputs[0]), in_type.type, attrs.options.epsilon));
    if (direct) {
      emit_result(e, op, "batch_norm", std::move(params), kCompute);
      return;
    }
    const std::string y = e.op("batch_norm", std::move(params), MilType{kCompute, folded});
    emit_result(e, op, "reshape", {{"x", y}, {"shape", e.const_i32_of(dims)}}, kCompute);
    return;
  }
  const std::vector<uint32_t> axes{static_cast<uint32_t>(axis)};
  auto param = [&](size_t i) {
    return has(op, i) ? broadcastable(e, in(e, op, i), dims, axes) : std::string();
  };
  const std::string mean = param(1), variance = param(2);
  const std::string eps = epsilon_const(e, e.type(op.inputs[0]), kCompute, attrs.options.epsilon);
  const std::string y = normalized(e, x, mean, variance, eps);
  scale_and_bias(e, op, y, param(3), param(4));
}

// instanceNormalization (row 57): per batch and channel, normalized over the spatial dims with
// their own mean and (population) variance, then · scale[c] + bias[c]. MIL instance_norm on the
// nchw input (nhwc transposed to nchw and back), taking constant scale and bias as its gamma
// and beta; otherwise they are applied after it, broadcast along the channel axis.
void lower_instanceNormalization(Emitter& e, const Operation& op,
                                 const AttrsOf<OpType::kInstanceNormalization>& attrs) {
  const MilType in_type = e.mil_type(op.inputs[0]);
  const std::vector<int64_t>& dims = in_type.shape;
  const bool nchw = attrs.options.layout == MLInputOperandLayout::kNchw;
  std::string x = e.cast(in(e, op, 0), kCompute);
  std::vector<int64_t> nchw_dims = dims;
  if (!nchw) {
    nchw_dims = {dims[0], dims[3], dims[1], dims[2]};
    x = e.op("transpose", {{"x", x}, {"perm", e.const_i32({0, 3, 1, 2})}},
             MilType{kCompute, nchw_dims});
  }
  const MilType t{kCompute, nchw_dims};
  const bool inside = absent_or_constant(e, op, 1) && absent_or_constant(e, op, 2);
  std::vector<Param> params{{"x", x}};
  if (inside && has(op, 1)) params.emplace_back("gamma", const_operand(e, op.inputs[1]));
  if (inside && has(op, 2)) params.emplace_back("beta", const_operand(e, op.inputs[2]));
  params.emplace_back("epsilon",
                      epsilon_const(e, e.type(op.inputs[0]), in_type.type, attrs.options.epsilon));
  const std::vector<int32_t> to_nhwc{0, 2, 3, 1};
  if (inside) {
    if (nchw) {
      emit_result(e, op, "instance_norm", std::move(params), kCompute);
      return;
    }
    const std::string y = e.op("instance_norm", std::move(params), t);
    emit_result(e, op, "transpose", {{"x", y}, {"perm", e.const_i32(to_nhwc)}}, kCompute);
    return;
  }
  std::string y = e.op("instance_norm", std::move(params), t);
  if (!nchw)
    y = e.op("transpose", {{"x", y}, {"perm", e.const_i32(to_nhwc)}}, MilType{kCompute, dims});
  const std::vector<uint32_t> channel{nchw ? 1u : 3u};
  auto param = [&](size_t i) {
    return has(op, i) ? broadcastable(e, in(e, op, i), dims, channel) : std::string();
  };
  scale_and_bias(e, op, y, param(1), param(2));
}

// layerNormalization (row 58): normalized over `axes` (default [1..rank-1]) with each group's
// mean and (population) variance, then · scale + bias whose dims are x's at `axes` in the given
// order. MIL layer_norm over the same axes; constant scale and bias are its gamma and beta
// (transposed to increasing axis order at conversion time when needed; a bias alone comes with a
// gamma of ones, which coremltools' type inference needs), others are applied after it,
// transposed and reshaped to broadcast. No axes: each element is its own group,
// (x − x) / √((x − x)² + ε), written out (MIL's layer_norm documents no empty axes; its
// default is all of them).
void lower_layerNormalization(Emitter& e, const Operation& op,
                              const AttrsOf<OpType::kLayerNormalization>& attrs) {
  const MilType in_type = e.mil_type(op.inputs[0]);
  const std::vector<int64_t>& dims = in_type.shape;
  const std::vector<uint32_t> axes = layer_normalization_axes(attrs.options, dims.size());
  const std::string x = e.cast(in(e, op, 0), kCompute);
  if (axes.empty()) {
    const std::string eps = epsilon_const(e, e.type(op.inputs[0]), kCompute, attrs.options.epsilon);
    const MilType t = e.type_of(x);
    const std::string d = e.op("sub", {{"x", x}, {"y", x}}, t);
    const std::string variance = e.op("mul", {{"x", d}, {"y", d}}, t);
    const std::string sum = e.op("add", {{"x", variance}, {"y", eps}}, t);
    const std::string root = e.op("sqrt", {{"x", sum}}, t);
    const std::string y = e.op("real_div", {{"x", d}, {"y", root}}, t);
    auto param = [&](size_t i) { return has(op, i) ? e.cast(in(e, op, i), kCompute) : ""; };
    scale_and_bias(e, op, y, param(1), param(2));
    return;
  }
  // order: the positions of `axes` sorted by axis (the parameters' transposition).
  std::vector<size_t> order(axes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return axes[i] < axes[j]; });
  std::vector<uint32_t> sorted_axes;
  std::vector<int64_t> gamma_shape;
  bool increasing = true;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted_axes.push_back(axes[order[i]]);
    gamma_shape.push_back(dims[axes[order[i]]]);
    increasing = increasing && order[i] == i;
  }
  const bool inside = absent_or_constant(e, op, 1) && absent_or_constant(e, op, 2);
  const std::vector<int32_t> mil_axes(sorted_axes.begin(), sorted_axes.end());
  std::vector<Param> params{{"x", x}, {"axes", e.const_i32(mil_axes)}};
  // A constant parameter as MIL's gamma/beta: its data in increasing axis order.
  auto gamma_of = [&](size_t i) {
    const OperandId id = op.inputs[i];
    if (increasing) return const_operand(e, id, gamma_shape);
    const std::vector<std::byte> data = transposed_bytes(
        e.graph().constant(id).bytes(), e.mil_type(id).shape, order, mil_type_bytes(in_type.type));
    return e.const_tensor(in_type.type, gamma_shape, data);
  };
  if (inside && (has(op, 1) || has(op, 2)))
    params.emplace_back("gamma",
                        has(op, 1) ? gamma_of(1) : e.const_fill(in_type.type, gamma_shape, 1));
  if (inside && has(op, 2)) params.emplace_back("beta", gamma_of(2));
  params.emplace_back("epsilon",
                      epsilon_const(e, e.type(op.inputs[0]), in_type.type, attrs.options.epsilon));
  if (inside) {
    emit_result(e, op, "layer_norm", std::move(params), kCompute);
    return;
  }
  const std::string y = e.op("layer_norm", std::move(params), MilType{kCompute, dims});
  auto param = [&](size_t i) -> std::string {
    if (!has(op, i)) return "";
    std::string p = in(e, op, i);
    if (!increasing) {
      const std::vector<int32_t> perm(order.begin(), order.end());
      p = e.op("transpose", {{"x", p}, {"perm", e.const_i32(perm)}},
               MilType{in_type.type, gamma_shape});
    }
    return broadcastable(e, p, dims, sorted_axes);
  };
  scale_and_bias(e, op, y, param(1), param(2));
}

}  // namespace cppnn::coreml_export
