#include "tools/cppnn/compare_values.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "cppnn/float16.h"

namespace cppnn::tool::compare {
namespace {

// onnx.TensorProto.DataType values.
enum : int {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBfloat16 = 16,
};

template <class T>
double load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<double>(v);
}

}  // namespace

int onnx_type_of(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return kFloat;
    case MLOperandDataType::kFloat16:
      return kFloat16;
    case MLOperandDataType::kInt32:
      return kInt32;
    case MLOperandDataType::kUint32:
      return kUint32;
    case MLOperandDataType::kInt64:
      return kInt64;
    case MLOperandDataType::kUint64:
      return kUint64;
    case MLOperandDataType::kInt8:
      return kInt8;
    case MLOperandDataType::kUint8:
      return kUint8;
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      return 0;
  }
  return 0;
}

std::string onnx_type_name(int onnx_type) {
  switch (onnx_type) {
    case kFloat:
      return "float32";
    case kUint8:
      return "uint8";
    case kInt8:
      return "int8";
    case kUint16:
      return "uint16";
    case kInt16:
      return "int16";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kString:
      return "string";
    case kBool:
      return "bool";
    case kFloat16:
      return "float16";
    case kDouble:
      return "double";
    case kUint32:
      return "uint32";
    case kUint64:
      return "uint64";
    case kBfloat16:
      return "bfloat16";
    default:
      return "type " + std::to_string(onnx_type);
  }
}

bool is_float_type(int onnx_type) {
  return onnx_type == kFloat || onnx_type == kFloat16 || onnx_type == kBfloat16 ||
         onnx_type == kDouble;
}

std::optional<std::vector<double>> to_doubles(int onnx_type, std::span<const std::byte> bytes,
                                              uint64_t count) {
  size_t size = 0;
  switch (onnx_type) {
    case kUint8:
    case kInt8:
    case kBool:
      size = 1;
      break;
    case kUint16:
    case kInt16:
    case kFloat16:
    case kBfloat16:
      size = 2;
      break;
    case kFloat:
    case kInt32:
    case kUint32:
      size = 4;
      break;
    case kInt64:
    case kUint64:
    case kDouble:
      size = 8;
      break;
    default:
      return std::nullopt;
  }
  if (count > bytes.size() / size) return std::nullopt;
  std::vector<double> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    const std::byte* p = bytes.data() + i * size;
    switch (onnx_type) {
      case kUint8:
      case kBool:
        out[i] = load<uint8_t>(p);
        break;
      case kInt8:
        out[i] = load<int8_t>(p);
        break;
      case kUint16:
        out[i] = load<uint16_t>(p);
        break;
      case kInt16:
        out[i] = load<int16_t>(p);
        break;
      case kFloat16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        out[i] = half_bits_to_float(h);
        break;
      }
      case kBfloat16: {  // the high half of a float32
        uint16_t h;
        std::memcpy(&h, p, 2);
        const uint32_t bits = uint32_t{h} << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        out[i] = f;
        break;
      }
      case kFloat:
        out[i] = load<float>(p);
        break;
      case kInt32:
        out[i] = load<int32_t>(p);
        break;
      case kUint32:
        out[i] = load<uint32_t>(p);
        break;
      case kInt64:
        out[i] = load<int64_t>(p);
        break;
      case kUint64:
        out[i] = load<uint64_t>(p);
        break;
      default:  // kDouble
        out[i] = load<double>(p);
    }
  }
  return out;
}

Tolerance tolerance_for(int onnx_type, std::optional<double> atol, std::optional<double> rtol) {
  Tolerance d;  // integer and boolean types: exact
  if (onnx_type == kFloat || onnx_type == kDouble)
    d = {1e-4, 1e-3};
  else if (onnx_type == kFloat16 || onnx_type == kBfloat16)
    d = {1e-3, 1e-2};
  return {atol.value_or(d.atol), rtol.value_or(d.rtol)};
}

Errors compare_values(std::span<const double> got, std::span<const double> want,
                      const Tolerance& tol) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  Errors e;
  double worst = -1;
  bool nonfinite_mismatch = false;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double a = got[i], b = want[i];
    double ratio = 0;
    if (!std::isfinite(a) || !std::isfinite(b)) {
      const bool same = (std::isnan(a) && std::isnan(b)) || a == b;
      if (!same) {
        ++e.outside;
        nonfinite_mismatch = true;
        ratio = kInf;
      }
    } else {
      const double d = std::fabs(a - b), allowed = tol.atol + tol.rtol * std::fabs(b);
      e.max_abs = std::max(e.max_abs, d);
      if (b != 0) e.max_rel = std::max(e.max_rel, d / std::fabs(b));
      if (d > allowed) ++e.outside;
      ratio = allowed > 0 ? d / allowed : (d > 0 ? kInf : 0);
    }
    if (ratio > worst) {
      worst = ratio;
      e.worst = i;
    }
  }
  if (nonfinite_mismatch) e.max_abs = e.max_rel = kNan;
  return e;
}

std::string shape_string(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace cppnn::tool::compare
