// Quantization operations (webnn-spec.md §2 rows 44-45, §6 erratum 17): dequantizeLinear and
// quantizeLinear. scale and zeroPoint share one shape that is blockwise broadcastable to the
// input after left-padding with 1s. Besides the spec's types, the cppnn storage types int4/uint4
// are accepted for the quantized side (dequantizeLinear input/zeroPoint, quantizeLinear
// zeroPoint/output).
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {

using namespace dt;

// The quantized types: u8, i8, u32, i32 [u8, i8], plus int4/uint4.
constexpr DataTypeMask kQuantized = kU8 | kI8 | kU32 | kI32 | mask_of(MLOperandDataType::kInt4) |
                                    mask_of(MLOperandDataType::kUint4);

// scale.shape == zeroPoint.shape, rank ≤ input rank, and each input dim divisible by the
// matching (left-padded) scale dim. The output has the input shape and type `type`.
Result<OutputDescs> blockwise_output(const InferInput& in, MLOperandDataType type) {
  const Dims& input = in[0].shape;
  const Dims& scale = in[1].shape;
  if (in[2].shape != scale)
    return type_error("zeroPoint shape ", dims_str(in[2].shape), " must equal scale shape ",
                      dims_str(scale));
  if (scale.size() > input.size())
    return type_error("scale rank ", scale.size(), " must not exceed input rank ", input.size());
  const size_t offset = input.size() - scale.size();
  for (size_t i = 0; i < scale.size(); ++i) {
    if (input[offset + i] % scale[i] != 0)
      return type_error("scale shape ", dims_str(scale),
                        " is not blockwise broadcastable to input shape ", dims_str(input),
                        " (dimension ", offset + i, " is not divisible)");
  }
  return OutputDescs{{type, input}};
}

}  // namespace

// dequantizeLinear (row 44): input u8,i8,u32,i32 (+int4/uint4); scale f32,f16; zeroPoint with
// the input's type (#922); output has the input shape and the scale type.
const OpLimits limits_dequantizeLinear{{{"input", kQuantized, kU8 | kI8},
                                        {"scale", kFloat, kFloat},
                                        {"zeroPoint", 0, kU8 | kI8 | kI32, 0, kRankN, 0}},
                                       {{"output", 0, kFloat, 0, kRankN, 1}}};
Result<OutputDescs> infer_dequantizeLinear(const InferInput& in,
                                           const AttrsOf<OpType::kDequantizeLinear>&) {
  return blockwise_output(in, in[1].dataType);
}

// quantizeLinear (row 45): input f32,f16; scale with the input's type (#922); zeroPoint
// u8,i8,u32,i32 (+int4/uint4); output has the input shape and the zeroPoint type.
const OpLimits limits_quantizeLinear{{{"input", kFloat, kFloat},
                                      {"scale", 0, kFloat, 0, kRankN, 0},
                                      {"zeroPoint", kQuantized, kU8 | kI8}},
                                     {{"output", 0, kU8 | kI8, 0, kRankN, 2}}};
Result<OutputDescs> infer_quantizeLinear(const InferInput& in,
                                         const AttrsOf<OpType::kQuantizeLinear>&) {
  return blockwise_output(in, in[2].dataType);
}

}  // namespace cppnn
