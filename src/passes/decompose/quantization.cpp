// Decompositions of the quantization ops (webnn-spec.md §2 rows 44-45, §6 erratum 17 and the
// emulation note: scale and zeroPoint are expanded blockwise), written with MLGraphBuilder calls
// on the rewritten graph (see src/passes/decompose.h). The results are those of the reference
// kernels (src/backends/reference/quantization_kernels.cpp): dequantizeLinear subtracts exactly
// and rounds the product once; quantizeLinear divides in float32, rounds half to even, adds the
// zeroPoint exactly and saturates (NaN gives 0). The 8-bit types are computed in float (exact
// there), the 32-bit ones in int64. The packed int4/uint4 types have no decomposition here: the
// int4 unpacking pass turns them into int8/uint8 first.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {
namespace {

using DT = MLOperandDataType;

// The packed 4-bit types (left to the int4 unpacking pass).
bool is_packed4(DT t) {
  return t == DT::kInt4 || t == DT::kUint4;
}
// The 32-bit quantized types, whose sums run in int64.
bool is_32bit(DT t) {
  return t == DT::kInt32 || t == DT::kUint32;
}

// `s` (scale or zeroPoint, rank ≤ the input's) expanded blockwise (emulation note): each element
// along axis d covers input[d] / s[d] consecutive input elements, by a gather with indices
// i / block where 1 < s[d] < input[d]; the result broadcasts against the input.
MLOperand expand_blockwise(MLGraphBuilder& b, MLOperand s, const std::vector<uint32_t>& input) {
  std::vector<uint32_t> shape = s.shape();
  shape.insert(shape.begin(), input.size() - shape.size(), 1);
  bool reshaped = false;
  for (uint32_t d = 0; d < input.size(); ++d) {
    if (shape[d] == 1 || shape[d] == input[d]) continue;
    if (!reshaped) {
      s = b.reshape(s, shape);
      reshaped = true;
    }
    const uint32_t block = input[d] / shape[d];
    std::vector<MLNumber> indices;
    for (uint32_t i = 0; i < input[d]; ++i) indices.emplace_back(i / block);
    s = b.gather(s, constant_of(b, DT::kInt32, {input[d]}, indices), {.axis = d});
  }
  return s;
}

// min(max(x, lo), hi) with scalar bounds of x's type.
MLOperand clamp_to(MLGraphBuilder& b, const MLOperand& x, MLNumber lo, MLNumber hi) {
  return b.min(b.max(x, scalar_like(b, x, lo)), scalar_like(b, x, hi));
}

// The range of a quantized type (int8, uint8, int32, uint32).
std::pair<MLNumber, MLNumber> range_of(DT t) {
  switch (t) {
    case DT::kInt8:
      return {-128, 127};
    case DT::kUint8:
      return {0, 255};
    case DT::kInt32:
      return {static_cast<long long>(std::numeric_limits<int32_t>::min()),
              static_cast<long long>(std::numeric_limits<int32_t>::max())};
    default:
      return {0, static_cast<long long>(std::numeric_limits<uint32_t>::max())};
  }
}

// dequantizeLinear (row 44): y = (x − zeroPoint) · scale. The difference is exact (in the scale
// type for 8-bit data, in int64 for 32-bit data), the product rounds once like the reference.
std::vector<MLOperand> decompose_dequantize_linear(DecomposeContext& c) {
  const DT in_type = c.input_desc(0).dataType;
  if (is_packed4(in_type)) return {};
  MLGraphBuilder& b = c.builder();
  const std::vector<uint32_t>& shape = c.input_desc(0).shape;
  const DT out_type = c.output_desc(0).dataType;
  const bool wide = is_32bit(in_type);
  const DT diff_type = wide ? DT::kInt64 : out_type;
  const MLOperand zero_point = expand_blockwise(b, b.cast(c.input(2), diff_type), shape);
  MLOperand diff = b.sub(b.cast(c.input(0), diff_type), zero_point);
  if (wide) diff = b.cast(diff, DT::kFloat32);
  const MLOperand scale = expand_blockwise(b, wide ? widen(b, c.input(1)) : c.input(1), shape);
  return {narrow(b, b.mul(diff, scale), out_type)};
}

// quantizeLinear (row 45): y = saturate(roundEven(x / scale) + zeroPoint), the quotient in
// float32 (float16 widened, as the reference), the sum exact (float32 for 8-bit zeroPoints, int64
// for 32-bit ones after clamping the rounded quotient to ±2^33, which saturates alike), NaN → 0.
std::vector<MLOperand> decompose_quantize_linear(DecomposeContext& c) {
  const DT zp_type = c.input_desc(2).dataType;
  if (is_packed4(zp_type)) return {};
  MLGraphBuilder& b = c.builder();
  const std::vector<uint32_t>& shape = c.input_desc(0).shape;
  const bool wide = is_32bit(zp_type);
  const DT sum_type = wide ? DT::kInt64 : DT::kFloat32;
  const MLOperand ratio =
      b.div(widen(b, c.input(0)), expand_blockwise(b, widen(b, c.input(1)), shape));
  MLOperand rounded = b.roundEven(ratio);
  if (wide) rounded = b.cast(clamp_to(b, rounded, -8589934592.0, 8589934592.0), DT::kInt64);
  const MLOperand zero_point = expand_blockwise(b, b.cast(c.input(2), sum_type), shape);
  const auto [lo, hi] = range_of(zp_type);
  const MLOperand saturated = clamp_to(b, b.add(rounded, zero_point), lo, hi);
  const MLOperand q = b.where(b.equal(ratio, ratio), saturated, scalar(b, sum_type, 0));
  return {b.cast(q, zp_type)};
}

}  // namespace

// dequantizeLinear and quantizeLinear (8- and 32-bit quantized types).
void register_quantization(DecompositionTable& t) {
  using enum OpType;
  t.add(kDequantizeLinear, decompose_dequantize_linear,
        {{kCast},
         {kSub, dt::kFloat | dt::kI64},
         {kMul, dt::kFloat},
         {kReshape, dt::kFloat | dt::kI64},
         {kGather, dt::kFloat | dt::kI64}});
  t.add(kQuantizeLinear, decompose_quantize_linear,
        {{kCast},
         {kDiv, dt::kF32},
         {kRoundEven, dt::kF32},
         {kAdd, dt::kF32 | dt::kI64},
         {kMax, dt::kF32 | dt::kI64},
         {kMin, dt::kF32 | dt::kI64},
         {kEqual, dt::kF32},
         {kWhere, dt::kU8},
         {kReshape, dt::kF32 | dt::kI64},
         {kGather, dt::kF32 | dt::kI64}});
}

}  // namespace cppnn::passes
