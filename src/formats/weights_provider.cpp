#include "src/formats/weights_provider.h"

#include <cstdint>

#include "src/core/checked_math.h"

namespace cppnn::formats {

std::optional<uint64_t> declared_element_count(const MLOperandDescriptor& d) {
  std::optional<uint64_t> n = uint64_t{1};
  for (uint32_t dim : d.shape)
    if (n) n = checked_mul(*n, dim);
  return n;
}

std::optional<uint64_t> declared_byte_length(const MLOperandDescriptor& d) {
  const auto n = declared_element_count(d);
  if (!n) return std::nullopt;
  const unsigned bits = data_type_bits(d.dataType);
  if (bits == 4) return *n / 2 + *n % 2;
  return checked_mul(*n, bits / 8);
}

bool is_aligned_for(std::span<const std::byte> bytes, MLOperandDataType type) {
  const unsigned size = data_type_bits(type) <= 8 ? 1 : data_type_bits(type) / 8;
  return reinterpret_cast<uintptr_t>(bytes.data()) % size == 0;
}

}  // namespace cppnn::formats
