// Exact integer accumulation for the ONNX integer and quantized operators (ConvInteger,
// QLinearConv, QLinearMatMul; handlers in ops_nn_qlinear.cpp) on WebNN, whose conv2d and matmul
// take float types only.
//
// The rule: the 8-bit inputs are shifted by their zero points (x - x_zero_point, an integer in
// [-255, 255]) and converted to float32, and the reduction runs as a float32 conv2d / matmul.
// float32 holds every integer of magnitude <= 2^24 exactly, and every partial sum of a reduction,
// in any order, is bounded by the sum of the magnitudes of its products. So when that bound is
// <= 2^24 the float32 result is the exact int32 result. The bound is K · max|x'| · max|w'| from
// the static shapes and the types (K = reduction length; max|x'| = 255 for 8-bit data, tighter
// when the zero point is known), or max|x'| · max over outputs of sum |w'| when the weights and
// their zero points are known at conversion time (the usual case in quantized models).
// Where the bound exceeds 2^24, the reduction is split into chunks whose own bound is <= 2^24
// (along K for matmul, along the input channels of each group for conv2d); each chunk is an exact
// float32 sum, cast to int32, and the chunks are added in int32 (exact). A total bound of 2^31 or
// more (possible int32 overflow, where ONNX leaves the result undefined) is refused, and so is a
// conv2d whose kernel window alone exceeds 2^24 per input channel.
// This assumes a backend computes float32 conv2d / matmul as sums of float32 products (true of
// the reference and ONNX Runtime CPU backends; reduced-precision modes such as TF32 would break
// it).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "src/import/onnx/host_tensor.h"
#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// An 8-bit input minus its zero point, as float32 (each value an integer in [-255, 255]).
struct ShiftedInput {
  MLOperand value;                  // float32, the shape asked for
  uint32_t max_abs = 255;           // a bound on |x - zero_point|
  std::optional<HostTensor> known;  // the float32 values when known at conversion time
};

// Input `i` (int8 or uint8) reshaped to `shape`, minus zero point input `zp` (nullopt or absent:
// 0, which must have the input's type) reshaped to `zp_shape` (same rank as `shape`, each
// dimension 1 or equal: the broadcast). Computed on the host when both are known.
ShiftedInput shifted_input(NodeContext& c, size_t i, std::optional<size_t> zp,
                           const std::vector<uint32_t>& shape,
                           const std::vector<uint32_t>& zp_shape);

// The exact result of an integer reduction: float32 holding integers (`is_int32` false, every
// value of magnitude <= 2^24) or int32.
struct IntegerSum {
  MLOperand value;
  bool is_int32 = false;
};

// a · b for a [..., M, K] and b [..., K, N] (rank >= 2, batch dimensions broadcast), exact.
IntegerSum integer_matmul(NodeContext& c, const ShiftedInput& a, const ShiftedInput& b);

// conv2d of x [N, C, H, W] with filter w [M, C/groups, kH, kW] and `options` (padding with
// zeros, i.e. with the zero point before the shift, as ONNX ConvInteger / QLinearConv do), exact.
// A known int32 `bias` ([M]) is added in the float32 conv2d when the sum stays provably exact;
// `bias_added` says whether it was.
IntegerSum integer_conv2d(NodeContext& c, const ShiftedInput& x, const ShiftedInput& w,
                          const MLConv2dOptions& options, const std::optional<HostTensor>& bias,
                          bool& bias_added);

// The sum as int32 / as float32 (a cast where needed; int32 -> float32 rounds to nearest even
// past 2^24, as ONNX Runtime's requantization does).
MLOperand sum_as_int32(NodeContext& c, const IntegerSum& s);
MLOperand sum_as_float32(NodeContext& c, const IntegerSum& s);

}  // namespace cppnn::onnx_import
