// CoreML lowering of quantizeLinear and dequantizeLinear (see lower.h; webnn-spec.md §2 rows
// 44-45, §6 erratum 17), computed with elementwise MIL ops exactly as the reference kernels
// (src/backends/reference/quantization_kernels.cpp). MIL iOS17's quantize/dequantize are not
// used: they take constant scalar or per-axis parameters only, and quantize rounds with MIL's
// `round`, whose direction for halves is left to the backend (webnn issue #817).
//
// scale and zeroPoint are expanded blockwise (the emulation note): left-padded with 1s to the
// input's rank, and along each axis where 1 < scale.dim < input.dim gathered with indices
// i / block, so that they broadcast against the input with every element paired with its block's
// parameters.
//
// - dequantizeLinear of 8-bit data: x and zeroPoint cast to the scale's type (exact), their
//   difference (exact: at most 9 bits), times the scale (the one rounding). int32 data would need
//   a 33-bit difference and a product rounded once (the reference rounds it through double),
//   which MIL's float32/int32 arithmetic cannot do exactly: constant int32 data is folded at
//   conversion time with the reference's arithmetic, other int32 data is refused.
// - quantizeLinear: x / scale in float32 (float16 widened, as the reference), rounded half to even
//   (round_half_even), plus zeroPoint, saturated to zeroPoint's type, NaN -> 0. For 8-bit
//   zeroPoints the sum and the clip are float32 (exact: sums past 2^24 saturate either way); for
//   int32 the sum is formed exactly in 16-bit halves (int32_saturated_sum).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_elementwise_util.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

// `s` (scale or zeroPoint) expanded blockwise against an input of shape `input`: reshaped to the
// input's rank and gathered along each blocked axis (a variable broadcasting against the input;
// `s` itself when no axis is blocked).
std::string expand_blockwise(Emitter& e, std::string s, const std::vector<int64_t>& input) {
  std::vector<int64_t> shape = e.type_of(s).shape;
  shape.insert(shape.begin(), input.size() - shape.size(), 1);
  bool padded = false;
  for (size_t d = 0; d < input.size(); ++d) {
    if (shape[d] == 1 || shape[d] == input[d]) continue;
    if (!padded) {
      s = reshape_to(e, s, shape);
      padded = true;
    }
    const int64_t block = input[d] / shape[d];
    std::vector<int32_t> indices(static_cast<size_t>(input[d]));
    for (size_t i = 0; i < indices.size(); ++i)
      indices[i] = static_cast<int32_t>(static_cast<int64_t>(i) / block);
    MilType t = e.type_of(s);
    t.shape[d] = input[d];
    s = e.op("gather",
             {{"x", s},
              {"indices", e.const_i32(indices)},
              {"axis", e.const_int(static_cast<int32_t>(d))}},
             std::move(t));
  }
  return s;
}

// The value of element i of a float32/float16 constant.
double float_at(std::span<const std::byte> bytes, mil::DataType t, size_t i) {
  if (t == mil::FLOAT16) {
    uint16_t bits = 0;
    std::memcpy(&bits, bytes.data() + 2 * i, 2);
    return half_bits_to_float(bits);
  }
  float v = 0;
  std::memcpy(&v, bytes.data() + 4 * i, 4);
  return v;
}

int32_t int32_at(std::span<const std::byte> bytes, size_t i) {
  int32_t v = 0;
  std::memcpy(&v, bytes.data() + 4 * i, 4);
  return v;
}

// dequantizeLinear of constant int32 data, scale and zeroPoint, computed at conversion time as
// the reference does ((x - zp) in int64, the product in double, rounded once to the scale's type)
// and written to `dest`.
void fold_int32_dequantize(Emitter& e, const Operation& op, const std::string& dest) {
  const Graph& g = e.graph();
  const std::span<const std::byte> x = g.constant(op.inputs[0]).bytes();
  const std::span<const std::byte> scale = g.constant(op.inputs[1]).bytes();
  const std::span<const std::byte> zp = g.constant(op.inputs[2]).bytes();
  const std::vector<int64_t> shape = e.mil_type(op.inputs[0]).shape;
  std::vector<int64_t> sshape = e.mil_type(op.inputs[1]).shape;
  sshape.insert(sshape.begin(), shape.size() - sshape.size(), 1);
  const mil::DataType t = e.mil_type(op.inputs[1]).type;
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  const size_t size = t == mil::FLOAT16 ? 2 : 4;
  std::vector<std::byte> out(count * size);
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t n = 0; n < count; ++n) {
    size_t s = 0;  // the scale element of input element n
    for (size_t d = 0; d < shape.size(); ++d)
      s = s * static_cast<size_t>(sshape[d]) +
          static_cast<size_t>(index[d] / (shape[d] / sshape[d]));
    const int64_t diff = int64_t{int32_at(x, n)} - int64_t{int32_at(zp, s)};
    const double y = static_cast<double>(diff) * float_at(scale, t, s);
    if (t == mil::FLOAT16) {
      const uint16_t bits = double_to_half_bits(y);
      std::memcpy(out.data() + 2 * n, &bits, 2);
    } else {
      const auto f = static_cast<float>(y);
      std::memcpy(out.data() + 4 * n, &f, 4);
    }
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  into_dest(e, e.const_tensor(t, shape, out), dest);
}

// int32 saturate(r + zp), for r a float32 holding an integer (or ±Inf) and zp int32
// (broadcasting against r), exactly: r is clipped to ±2^32 (beyond which the sum saturates alike)
// and split into q · 2^16 + m with m in [0, 2^16) (floor of r · 2^-16: exact float operations),
// zp likewise by floor_div; the halves are added separately (no overflow) and the low half's
// carry moved up; a high half outside [-2^15, 2^15) saturates, the rest recombine.
std::string int32_saturated_sum(Emitter& e, const std::string& r, const std::string& zp) {
  const mil::DataType f = mil::FLOAT32, i = mil::INT32;
  const std::string clipped = e.op("clip",
                                   {{"x", r},
                                    {"alpha", scalar_of(e, f, -4294967296.0)},
                                    {"beta", scalar_of(e, f, 4294967296.0)}},
                                   e.type_of(r));
  const std::string rq =
      unary_op(e, "floor", arith(e, "mul", clipped, scalar_of(e, f, 1.0 / 65536)));
  const std::string rm = arith(e, "sub", clipped, arith(e, "mul", rq, scalar_of(e, f, 65536.0)));
  const std::string k = scalar_of(e, i, 65536);
  const std::string zq = arith(e, "floor_div", zp, k);
  const std::string zm = arith(e, "sub", zp, arith(e, "mul", zq, k));
  const std::string high = arith(e, "add", e.cast(rq, i), zq);
  const std::string low = arith(e, "add", e.cast(rm, i), zm);
  const std::string carry = arith(e, "floor_div", low, k);
  const std::string high2 = arith(e, "add", high, carry);
  const std::string low2 = arith(e, "sub", low, arith(e, "mul", carry, k));
  const std::string top = scalar_of(e, i, 32767), bottom = scalar_of(e, i, -32768);
  const std::string bounded = arith(e, "minimum", arith(e, "maximum", high2, bottom), top);
  const std::string sum = arith(e, "add", arith(e, "mul", bounded, k), low2);
  const std::string capped =
      select_of(e, compare(e, "greater", high2, top), scalar_of(e, i, 2147483647), sum);
  return select_of(e, compare(e, "less", high2, bottom),
                   scalar_of(e, i, MLNumber(static_cast<long long>(INT32_MIN))), capped);
}

}  // namespace

bool lowers_quantization(const Graph&, const Operation&) {
  return true;
}

// dequantizeLinear (row 44): y = (x - zeroPoint) · scale (see the file comment).
void lower_dequantizeLinear(Emitter& e, const Operation& op,
                            const AttrsOf<OpType::kDequantizeLinear>&) {
  const std::string& dest = e.value(op.outputs[0]);
  const std::string &x = in(e, op, 0), &scale = in(e, op, 1), &zero_point = in(e, op, 2);
  if (e.type_of(x).type == mil::INT32) {
    const Graph& g = e.graph();
    auto constant = [&](size_t i) {
      return g.operand(op.inputs[i]).kind == OperandKind::kConstant;
    };
    if (!constant(0) || !constant(1) || !constant(2))
      throw NotSupportedError(
          "int32 data: (x - zeroPoint) · scale needs a 33-bit difference and a product rounded "
          "once, which MIL's int32/float32 arithmetic cannot compute exactly (only constant "
          "int32 data, folded at conversion, is exported)");
    fold_int32_dequantize(e, op, dest);
    return;
  }
  const std::vector<int64_t>& shape = e.type_of(x).shape;
  const mil::DataType t = e.type_of(scale).type;
  const std::string diff =
      arith(e, "sub", e.cast(x, t), expand_blockwise(e, e.cast(zero_point, t), shape));
  arith(e, "mul", diff, expand_blockwise(e, scale, shape), dest);
}

// quantizeLinear (row 45): y = saturate(roundEven(x / scale) + zeroPoint), NaN -> 0 (see the
// file comment).
void lower_quantizeLinear(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kQuantizeLinear>&) {
  const std::string& dest = e.value(op.outputs[0]);
  const std::string &x = in(e, op, 0), &scale = in(e, op, 1), &zero_point = in(e, op, 2);
  const std::vector<int64_t>& shape = e.type_of(x).shape;
  const mil::DataType f = mil::FLOAT32, q = e.type_of(zero_point).type;
  const std::string ratio =
      arith(e, "real_div", e.cast(x, f), expand_blockwise(e, e.cast(scale, f), shape));
  const std::string rounded = round_half_even(e, ratio);
  const std::string number = compare(e, "equal", ratio, ratio);
  if (q == mil::INT32) {
    const std::string finite = select_of(e, number, rounded, scalar_of(e, f, 0));
    const std::string sum = int32_saturated_sum(e, finite, expand_blockwise(e, zero_point, shape));
    select_of(e, number, sum, scalar_of(e, mil::INT32, 0), dest);
    return;
  }
  const double lo = q == mil::INT8 ? -128 : 0, hi = q == mil::INT8 ? 127 : 255;
  const std::string sum =
      arith(e, "add", rounded, expand_blockwise(e, e.cast(zero_point, f), shape));
  const std::string saturated =
      e.op("clip", {{"x", sum}, {"alpha", scalar_of(e, f, lo)}, {"beta", scalar_of(e, f, hi)}},
           e.type_of(sum));
  cast_into(e, select_of(e, number, saturated, scalar_of(e, f, 0)), q, dest);
}

}  // namespace cppnn::coreml_export
