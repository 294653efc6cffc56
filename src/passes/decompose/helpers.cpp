#include "src/passes/decompose/helpers.h"

#include <cstddef>

namespace cppnn::passes {

MLOperand scalar(MLGraphBuilder& b, MLOperandDataType type, MLNumber v) {
  return b.constant(type, v);
}

MLOperand scalar_like(MLGraphBuilder& b, const MLOperand& x, MLNumber v) {
  return b.constant(x.dataType(), v);
}

MLOperand filled(MLGraphBuilder& b, const MLOperandDescriptor& desc, MLNumber v) {
  return constant_of(b, desc.dataType, desc.shape,
                     std::vector<MLNumber>(element_count(desc.shape), v));
}

MLOperand constant_of(MLGraphBuilder& b, MLOperandDataType type, std::vector<uint32_t> shape,
                      const std::vector<MLNumber>& values) {
  const size_t width = data_type_bits(type) / 8;
  std::vector<std::byte> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i)
    values[i].cast_to_bytes(type, bytes.data() + i * width);
  return b.constant(MLOperandDescriptor{type, std::move(shape)}, bytes);
}

MLOperand iota(MLGraphBuilder& b, uint32_t n, MLOperandDataType type) {
  std::vector<MLNumber> values;
  values.reserve(n);
  for (uint32_t i = 0; i < n; ++i) values.emplace_back(static_cast<long long>(i));
  return constant_of(b, type, {n}, values);
}

MLOperand widen(MLGraphBuilder& b, const MLOperand& x) {
  return x.dataType() == MLOperandDataType::kFloat16 ? b.cast(x, MLOperandDataType::kFloat32) : x;
}

MLOperand narrow(MLGraphBuilder& b, const MLOperand& x, MLOperandDataType type) {
  return x.dataType() == type ? x : b.cast(x, type);
}

uint64_t element_count(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

bool is_float(MLOperandDataType t) {
  return t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16;
}

bool is_unsigned(MLOperandDataType t) {
  using enum MLOperandDataType;
  return t == kUint8 || t == kUint32 || t == kUint64 || t == kUint4;
}

}  // namespace cppnn::passes
