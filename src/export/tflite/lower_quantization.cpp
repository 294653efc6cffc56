// TFLite lowerings of quantizeLinear and dequantizeLinear (lower.h; webnn-spec.md §2 rows 44-45,
// §6 erratum 17), computed with elementwise builtins exactly as the reference kernels
// (src/backends/reference/quantization_kernels.cpp). TFLite's QUANTIZE/DEQUANTIZE are not used:
// they need constant per-tensor or per-axis parameters on the tensors' quantization fields, and
// QUANTIZE rounds halves away from zero (WebNN rounds them to even). scale and zeroPoint are
// expanded blockwise (lower_quantization_util.h).
//
// - dequantizeLinear: 8-bit (and unpacked 4-bit) data and zeroPoint are cast to float32, their
//   difference is exact (9 bits) and the product with the scale the one rounding. 32-bit data
//   subtracts in int64 (exact), casts to float32 and multiplies: two roundings, within 1 ULP of the
//   reference's single one.
// - quantizeLinear: x / scale in float32 (float16 widened, as the reference), ROUND (half to even),
//   plus zeroPoint, saturated to the zeroPoint type's range, NaN -> 0 (SELECT_V2 on x / scale ==
//   itself: TFLite's CAST turns NaN into the type's maximum), CAST. 8-bit sums are float32 (exact:
//   sums past 2^24 saturate either way) and saturate in the CAST (TFLite's float-to-integer CAST
//   saturates); int4/uint4 (stored in int8/uint8) are clamped to their range first; 32-bit sums
//   are int64 after clamping the rounded quotient to ±2^33 (which saturates alike), then clamped
//   (an int64-to-int32 CAST wraps).
// Constant zeroPoints are converted (and skipped when all zero) at conversion time.
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_compute_util.h"
#include "src/export/tflite/lower_quantization_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export {

using namespace quant;

namespace {

using DT = MLOperandDataType;
using Op = tfl::BuiltinOperator;

// The 32-bit quantized types (their sums and differences run in int64).
bool is_32bit(DT t) {
  return t == DT::kInt32 || t == DT::kUint32;
}

// The range of quantized type `t`.
std::pair<int64_t, int64_t> range_of(DT t) {
  switch (t) {
    case DT::kInt4:
      return {-8, 7};
    case DT::kUint4:
      return {0, 15};
    case DT::kInt8:
      return {-128, 127};
    case DT::kUint8:
      return {0, 255};
    case DT::kInt32:
      return {INT32_MIN, INT32_MAX};
    default:
      return {0, UINT32_MAX};
  }
}

// The values of a constant integer tensor (INT8, UINT8, INT32 or UINT32) as int64.
std::vector<int64_t> constant_ints(Emitter& e, TensorIndex t) {
  const auto bytes = e.constant_bytes(t);
  const size_t size = element_size(e.type_of(t));
  std::vector<int64_t> v(bytes.size() / size);
  for (size_t i = 0; i < v.size(); ++i) {
    const std::byte* p = bytes.data() + i * size;
    switch (e.type_of(t)) {
      case tfl::TensorType::INT8:
        v[i] = static_cast<int8_t>(*p);
        break;
      case tfl::TensorType::UINT8:
        v[i] = static_cast<uint8_t>(*p);
        break;
      case tfl::TensorType::INT32: {
        int32_t x;
        std::memcpy(&x, p, 4);
        v[i] = x;
        break;
      }
      default: {
        uint32_t x;
        std::memcpy(&x, p, 4);
        v[i] = x;
        break;
      }
    }
  }
  return v;
}

// The zeroPoint `zp` in `type` (FLOAT32 or INT64, exact), expanded blockwise against `input`;
// nullopt for a constant zeroPoint of zeros (nothing to add or subtract).
std::optional<TensorIndex> zero_point_as(Emitter& e, TensorIndex zp, tfl::TensorType type,
                                         const std::vector<int32_t>& input) {
  if (!e.is_constant(zp)) return expand_blockwise(e, e.cast(zp, type), input);
  const std::vector<int64_t> v = constant_ints(e, zp);
  bool zeros = true;
  for (int64_t z : v) zeros = zeros && z == 0;
  if (zeros) return std::nullopt;
  std::vector<std::byte> bytes;
  if (type == tfl::TensorType::FLOAT32) {
    std::vector<float> f(v.begin(), v.end());
    bytes.resize(f.size() * sizeof(float));
    std::memcpy(bytes.data(), f.data(), bytes.size());
  } else {
    bytes.resize(v.size() * sizeof(int64_t));
    std::memcpy(bytes.data(), v.data(), bytes.size());
  }
  return expand_blockwise(e, e.constant(type, e.shape_of(zp), std::move(bytes)), input);
}

// min(hi, max(lo, v)) with scalar bounds of v's type (FLOAT32 or INT64); the bound first keeps a
// NaN v in TFLite's builtin kernels (XNNPACK keeps it either way).
TensorIndex clamp_to(Emitter& e, TensorIndex v, double lo, double hi) {
  const TensorIndex low = binary(e, Op::MAXIMUM, e.scalar(e.type_of(v), lo), v);
  return binary(e, Op::MINIMUM, e.scalar(e.type_of(v), hi), low);
}

}  // namespace

bool lowers_quantization(const Graph&, const Operation&) {
  return true;
}

// dequantizeLinear (row 44): y = (x − zeroPoint) · scale (see the file comment).
void lower_dequantizeLinear(Emitter& e, const Operation& op,
                            const AttrsOf<OpType::kDequantizeLinear>&) {
  const DT t = data_type_of(e.graph(), op.inputs[0]);
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<int32_t> shape = e.shape_of(x);
  const tfl::TensorType diff_type = is_32bit(t) ? tfl::TensorType::INT64 : tfl::TensorType::FLOAT32;
  TensorIndex d = e.cast(x, diff_type);
  if (const auto zp = zero_point_as(e, e.value(op.inputs[2]), diff_type, shape))
    d = binary(e, Op::SUB, d, *zp);
  d = e.cast(d, tfl::TensorType::FLOAT32);
  e.bind(op.outputs[0], binary(e, Op::MUL, d, expand_blockwise(e, e.value(op.inputs[1]), shape)));
}

// quantizeLinear (row 45): y = saturate(roundEven(x / scale) + zeroPoint), NaN -> 0 (see the
// file comment).
void lower_quantizeLinear(Emitter& e, const Operation& op,
                          const AttrsOf<OpType::kQuantizeLinear>&) {
  const DT t = data_type_of(e.graph(), op.inputs[2]);
  const TensorIndex x = e.value(op.inputs[0]);
  const std::vector<int32_t> shape = e.shape_of(x);
  const TensorIndex ratio =
      binary(e, Op::DIV, x, expand_blockwise(e, e.value(op.inputs[1]), shape));
  TensorIndex q = unary(e, Op::ROUND, ratio);
  tfl::TensorType sum_type = tfl::TensorType::FLOAT32;
  if (is_32bit(t)) {
    sum_type = tfl::TensorType::INT64;
    q = e.cast(clamp_to(e, q, -8589934592.0, 8589934592.0), sum_type);
  }
  if (const auto zp = zero_point_as(e, e.value(op.inputs[2]), sum_type, shape))
    q = binary(e, Op::ADD, q, *zp);
  if (t != DT::kInt8 && t != DT::kUint8) {
    const auto [lo, hi] = range_of(t);
    q = clamp_to(e, q, static_cast<double>(lo), static_cast<double>(hi));
  }
  q = select(e, binary(e, Op::EQUAL, ratio, ratio), q, e.scalar(sum_type, 0));
  e.bind(op.outputs[0], e.cast(q, compute_type_of(t)));
}

}  // namespace cppnn::tflite_export
