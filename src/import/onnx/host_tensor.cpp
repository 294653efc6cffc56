// HostTensor element conversions.
#include "src/import/onnx/host_tensor.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/number.h"

namespace cppnn::onnx_import {
namespace {

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double element_as_double(MLOperandDataType t, const std::byte* p) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return load<float>(p);
    case MLOperandDataType::kFloat16:
      return half_bits_to_float(load<uint16_t>(p));
    case MLOperandDataType::kInt32:
      return load<int32_t>(p);
    case MLOperandDataType::kUint32:
      return load<uint32_t>(p);
    case MLOperandDataType::kInt64:
      return static_cast<double>(load<int64_t>(p));
    case MLOperandDataType::kUint64:
      return static_cast<double>(load<uint64_t>(p));
    case MLOperandDataType::kInt8:
      return load<int8_t>(p);
    case MLOperandDataType::kUint8:
      return load<uint8_t>(p);
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      break;
  }
  throw OperationError("host tensor: 4-bit elements are not supported");
}

int64_t element_as_int64(MLOperandDataType t, const std::byte* p) {
  switch (t) {
    case MLOperandDataType::kInt64:
      return load<int64_t>(p);
    case MLOperandDataType::kUint64:
      return static_cast<int64_t>(load<uint64_t>(p));
    case MLOperandDataType::kFloat32:
    case MLOperandDataType::kFloat16: {
      const double d = element_as_double(t, p);
      if (std::isnan(d)) return 0;
      if (d >= 9.2e18) return INT64_MAX;
      if (d <= -9.2e18) return INT64_MIN;
      return static_cast<int64_t>(d);
    }
    default:
      return static_cast<int64_t>(element_as_double(t, p));
  }
}

// Values of `type` cast by the spec's cast algorithm (MLNumber), one per element of `shape`.
template <class V>
HostTensor of_numbers(const std::vector<V>& values, std::vector<uint32_t> shape,
                      MLOperandDataType type) {
  MLOperandDescriptor desc{type, std::move(shape)};
  if (element_count(desc.shape) != values.size())
    throw OperationError("host tensor: element count does not match the shape");
  const size_t size = element_size(type);
  std::vector<std::byte> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    const MLNumber n = std::is_integral_v<V> ? MLNumber(static_cast<long long>(values[i]))
                                             : MLNumber(static_cast<double>(values[i]));
    n.cast_to_bytes(type, bytes.data() + i * size);
  }
  return HostTensor::of_bytes(desc, std::move(bytes));
}

}  // namespace

size_t element_size(MLOperandDataType type) {
  const unsigned bits = data_type_bits(type);
  if (bits < 8) throw OperationError("host tensor: 4-bit elements are not supported");
  return bits / 8;
}

uint64_t HostTensor::elements() const {
  return element_count(desc.shape);
}

std::vector<int64_t> HostTensor::to_int64() const {
  const size_t size = element_size(desc.dataType);
  std::vector<int64_t> out(elements());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = element_as_int64(desc.dataType, data.data() + i * size);
  return out;
}

std::vector<double> HostTensor::to_double() const {
  const size_t size = element_size(desc.dataType);
  std::vector<double> out(elements());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = element_as_double(desc.dataType, data.data() + i * size);
  return out;
}

HostTensor HostTensor::of_int64(const std::vector<int64_t>& values, std::vector<uint32_t> shape,
                                MLOperandDataType type) {
  return of_numbers(values, std::move(shape), type);
}

HostTensor HostTensor::of_double(const std::vector<double>& values, std::vector<uint32_t> shape,
                                 MLOperandDataType type) {
  return of_numbers(values, std::move(shape), type);
}

HostTensor HostTensor::of_bytes(const MLOperandDescriptor& desc, std::vector<std::byte> bytes) {
  HostTensor t;
  t.desc = desc;
  if (bytes.size() != t.elements() * element_size(desc.dataType))
    throw OperationError("host tensor: byte length does not match " + to_string(desc));
  t.data = ConstantData::owned(std::move(bytes));
  return t;
}

}  // namespace cppnn::onnx_import
