// ONNX integer and quantized convolution / matmul (ops_nn.def; MatMulInteger in ops_misc.def):
// ConvInteger, MatMulInteger, QLinearConv and QLinearMatMul. The int32 accumulation of (x -
// x_zero_point) · (w - w_zero_point) is exact (ops_nn_int_accum.h: float32 conv2d / matmul where
// provably exact, else float32 chunks summed in int32). The QLinear operators then requantize as
// ONNX Runtime does:
//   y = saturate(roundEven(float32(acc) · multiplier) + y_zero_point),
//   multiplier = (x_scale · w_scale) / y_scale, each step in float32,
// where acc includes QLinearConv's int32 bias; the rounding, zero point and saturation are a
// WebNN quantizeLinear with scale 1 (x / 1 is exact).
#include <optional>
#include <string>
#include <vector>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_int_accum.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// --- convolution ---

// The 4-D shapes and conv2d options of an integer convolution of input `xi` with filter `wi`
// (Conv's attributes; 1-D convolutions as 2-D ones over a unit H axis).
struct IntConv {
  std::vector<uint32_t> x_shape, w_shape;  // 4-D
  MLConv2dOptions options;
  bool one_d = false;
};

IntConv int_conv(NodeContext& c, size_t xi, size_t wi) {
  const size_t rank = c.input_rank(xi);
  if (rank < 3) c.invalid("input rank " + std::to_string(rank) + " is below 3");
  if (rank > 4) c.unsupported(std::to_string(rank - 2) + "-D convolution (WebNN has 2-D only)");
  if (c.input_rank(wi) != rank) c.invalid("weight rank differs from the input rank");
  const std::vector<uint32_t>& xs = c.input_shape(xi);
  const std::vector<uint32_t>& ws = c.input_shape(wi);
  const std::vector<uint32_t> in(xs.begin() + 2, xs.end());
  const SpatialParams p = spatial_params(c, in, std::vector<uint32_t>(ws.begin() + 2, ws.end()));
  for (size_t i = 0; i + 2 < rank; ++i)
    if (p.kernel[i] != ws[2 + i]) c.invalid("kernel_shape differs from the weight shape");
  const int64_t group = c.attr_int("group", 1);
  if (group < 1 || ws[1] == 0 || ws[0] % group != 0 || uint64_t{ws[1]} * group != xs[1])
    c.invalid("group " + std::to_string(group) + " does not fit input " + shape_to_string(xs) +
              " and weight " + shape_to_string(ws));
  IntConv r;
  r.one_d = rank == 3;
  r.x_shape = r.one_d ? insert_one(xs, 2) : xs;
  r.w_shape = r.one_d ? insert_one(ws, 2) : ws;
  r.options = c.opts<MLConv2dOptions>();
  r.options.padding = webnn_padding(p);
  r.options.strides = two_d(p.strides);
  r.options.dilations = two_d(p.dilations);
  r.options.groups = static_cast<uint32_t>(group);
  return r;
}

// The broadcast shape of a convolution's x zero point (a scalar) or, `per_channel`, of the
// weight's zero point (a scalar or [M]) against the 4-D filter [M, C/group, kH, kW].
std::vector<uint32_t> conv_zp_shape(const NodeContext& c, size_t zp, uint32_t m, bool per_channel,
                                    const char* what) {
  if (!c.has_input(zp)) return {1, 1, 1, 1};
  const uint64_t n = element_count(c.input_shape(zp));
  if (n == 1) return {1, 1, 1, 1};
  if (per_channel && c.input_rank(zp) == 1 && n == m) return {m, 1, 1, 1};
  c.invalid(std::string(what) + " of shape " + shape_to_string(c.input_shape(zp)) +
            (per_channel ? " is neither a scalar nor [M]" : " is not a scalar"));
}

// The convolution's result back to rank 3 for a 1-D convolution.
MLOperand conv_result(NodeContext& c, const MLOperand& y, const IntConv& conv) {
  if (!conv.one_d) return y;
  const std::vector<uint32_t>& s = y.shape();
  return reshape_to(c, y, {s[0], s[1], s[3]});
}

// --- requantization ---

// Input i (a float32 scale) reshaped to `shape`, after checking its element count.
MLOperand scale_input(NodeContext& c, size_t i, const std::vector<uint32_t>& shape,
                      const char* what) {
  if (c.input_type(i) != DT::kFloat32)
    c.unsupported(std::string(what) + " of type " + std::string(data_type_name(c.input_type(i))) +
                  " (float32 only)");
  if (element_count(c.input_shape(i)) != element_count(shape))
    c.invalid(std::string(what) + " of shape " + shape_to_string(c.input_shape(i)) +
              " does not fit its input");
  return reshaped_input(c, i, shape);
}

// y = saturate(roundEven(acc · multiplier) + y_zero_point) with multiplier =
// (x_scale · w_scale) / y_scale (float32, ONNX Runtime's order). y_scale and y_zero_point are
// per tensor; the output type is y_zero_point's (int8 or uint8).
MLOperand requantize(NodeContext& c, const MLOperand& acc, const MLOperand& x_scale,
                     const MLOperand& w_scale, size_t y_scale, size_t y_zp) {
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  if (element_count(c.input_shape(y_scale)) != 1 || element_count(c.input_shape(y_zp)) != 1)
    c.unsupported("a y_scale / y_zero_point that is not per tensor");
  const DT yt = c.input_type(y_zp);
  if (yt != DT::kUint8 && yt != DT::kInt8)
    c.unsupported("output type " + std::string(data_type_name(yt)) + " (int8 or uint8 only)");
  MLOperand multiplier =
      b.div(b.mul(x_scale, w_scale, o), scale_input(c, y_scale, {}, "y_scale"), o);
  MLOperand scaled = b.mul(acc, multiplier, o);
  return b.quantizeLinear(scaled, c.scalar(DT::kFloat32, 1), reshaped_input(c, y_zp, {}), o);
}

// --- matmul ---

// The shape, of the input's rank, of a QLinearMatMul scale or zero point `p` for input shape
// `in`: per tensor (one element), per row of a (`row`: [M] or [..., M, 1]) or per column of b
// ([N] or [..., 1, N]).
std::vector<uint32_t> matmul_param_shape(const NodeContext& c, const std::vector<uint32_t>& p,
                                         const std::vector<uint32_t>& in, bool row) {
  const size_t rank = in.size();
  std::vector<uint32_t> out(rank, 1);
  if (element_count(p) == 1) return out;
  const size_t axis = row ? rank - 2 : rank - 1;  // the kept axis; the other one must be 1
  if (p.size() == 1 && p[0] == in[axis]) {
    out[axis] = p[0];
    return out;
  }
  bool ok = p.size() == rank && p[row ? rank - 1 : rank - 2] == 1;
  for (size_t d = 0; ok && d < rank; ++d) ok = p[d] == 1 || p[d] == in[d];
  if (!ok)
    c.invalid("quantization parameter of shape " + shape_to_string(p) + " for input " +
              shape_to_string(in) + " is neither per tensor nor per " + (row ? "row" : "column"));
  return p;
}

}  // namespace

// ConvInteger: int32 conv of (x - x_zero_point) and (w - w_zero_point); zero points optional
// (x: scalar, w: scalar or per output channel); the padding holds x_zero_point.
void import_ConvInteger(NodeContext& c) {
  const IntConv conv = int_conv(c, 0, 1);
  const uint32_t m = conv.w_shape[0];
  const ShiftedInput x =
      shifted_input(c, 0, 2, conv.x_shape, conv_zp_shape(c, 2, m, false, "x_zero_point"));
  const ShiftedInput w =
      shifted_input(c, 1, 3, conv.w_shape, conv_zp_shape(c, 3, m, true, "w_zero_point"));
  bool bias_added = false;
  const IntegerSum sum = integer_conv2d(c, x, w, conv.options, std::nullopt, bias_added);
  c.set_output(0, conv_result(c, sum_as_int32(c, sum), conv));
}

// QLinearConv: inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B (int32 [M], optional); w_scale / w_zero_point per tensor or per output channel.
void import_QLinearConv(NodeContext& c) {
  const IntConv conv = int_conv(c, 0, 3);
  const uint32_t m = conv.w_shape[0];
  const ShiftedInput x =
      shifted_input(c, 0, 2, conv.x_shape, conv_zp_shape(c, 2, m, false, "x_zero_point"));
  const ShiftedInput w =
      shifted_input(c, 3, 5, conv.w_shape, conv_zp_shape(c, 5, m, true, "w_zero_point"));
  const bool has_bias = c.has_input(8);
  if (has_bias &&
      (c.input_type(8) != DT::kInt32 || c.input_rank(8) != 1 || c.input_shape(8)[0] != m))
    c.invalid("B must be int32 of shape [" + std::to_string(m) + "]");
  std::optional<HostTensor> known_bias;
  if (has_bias && c.is_constant(8)) known_bias = c.constant(8);
  bool bias_added = false;
  const IntegerSum sum = integer_conv2d(c, x, w, conv.options, known_bias, bias_added);
  MLOperand acc = sum_as_float32(c, sum);
  if (has_bias && !bias_added) {
    const MLOperatorOptions o = c.opts<MLOperatorOptions>();
    MLOperand total = c.builder().add(sum_as_int32(c, sum), reshaped_input(c, 8, {1, m, 1, 1}), o);
    acc = c.builder().cast(total, DT::kFloat32, o);
  }
  const std::vector<uint32_t> ws_shape = element_count(c.input_shape(4)) == 1
                                             ? std::vector<uint32_t>{}
                                             : std::vector<uint32_t>{1, m, 1, 1};
  MLOperand x_scale = scale_input(c, 1, {}, "x_scale");
  MLOperand w_scale = scale_input(c, 4, ws_shape, "w_scale");
  c.set_output(0, conv_result(c, requantize(c, acc, x_scale, w_scale, 6, 7), conv));
}

// QLinearMatMul: inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point; a's parameters per tensor or per row, b's per tensor or per column.
void import_QLinearMatMul(NodeContext& c) {
  const std::vector<uint32_t>& as = c.input_shape(0);
  const std::vector<uint32_t>& bs = c.input_shape(3);
  if (as.size() < 2 || bs.size() < 2) c.unsupported("1-D operands (WebNN matmul needs rank >= 2)");
  if (as.back() == 0) c.unsupported("an empty inner dimension");
  if (as.back() != bs[bs.size() - 2])
    c.invalid("inner dimensions of " + shape_to_string(as) + " and " + shape_to_string(bs) +
              " differ");
  const ShiftedInput a =
      shifted_input(c, 0, 2, as, matmul_param_shape(c, c.input_shape(2), as, true));
  const ShiftedInput b =
      shifted_input(c, 3, 5, bs, matmul_param_shape(c, c.input_shape(5), bs, false));
  const IntegerSum sum = integer_matmul(c, a, b);
  MLOperand a_scale =
      scale_input(c, 1, matmul_param_shape(c, c.input_shape(1), as, true), "a_scale");
  MLOperand b_scale =
      scale_input(c, 4, matmul_param_shape(c, c.input_shape(4), bs, false), "b_scale");
  c.set_output(0, requantize(c, sum_as_float32(c, sum), a_scale, b_scale, 6, 7));
}

// MatMulInteger: (A - a_zero_point) · (B - b_zero_point) in int32 (exact for any K, through
// integer_matmul's chunking); a's zero point per tensor or per row ([M]), b's per tensor or per
// column ([N]).
void import_MatMulInteger(NodeContext& c) {
  const std::vector<uint32_t>& as = c.input_shape(0);
  const std::vector<uint32_t>& bs = c.input_shape(1);
  if (as.size() < 2 || bs.size() < 2) c.unsupported("1-D operands (WebNN matmul needs rank >= 2)");
  if (as.back() == 0) c.unsupported("an empty inner dimension");
  if (as.back() != bs[bs.size() - 2])
    c.invalid("inner dimensions of " + shape_to_string(as) + " and " + shape_to_string(bs) +
              " differ");
  auto zp_shape = [&](size_t zp, const std::vector<uint32_t>& in, bool row) {
    return c.has_input(zp) ? matmul_param_shape(c, c.input_shape(zp), in, row)
                           : std::vector<uint32_t>(in.size(), 1);
  };
  const ShiftedInput a = shifted_input(c, 0, 2, as, zp_shape(2, as, true));
  const ShiftedInput b = shifted_input(c, 1, 3, bs, zp_shape(3, bs, false));
  c.set_output(0, sum_as_int32(c, integer_matmul(c, a, b)));
}

}  // namespace cppnn::onnx_import
