#include "cppnn/descriptor.h"

#include "cppnn/errors.h"
#include "src/core/checked_math.h"

namespace cppnn {

std::string shape_to_string(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string to_string(const MLOperandDescriptor& d) {
  return std::string(data_type_name(d.dataType)) + shape_to_string(d.shape);
}

uint64_t element_count(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) {
    auto r = checked_mul(n, d);
    if (!r) throw TypeError("element count of shape " + shape_to_string(shape) + " overflows");
    n = *r;
  }
  return n;
}

uint64_t byte_length(const MLOperandDescriptor& d) {
  uint64_t n = element_count(d.shape);
  unsigned bits = data_type_bits(d.dataType);
  if (bits < 8) return n / 2 + n % 2;  // packed 4-bit, rounded up
  auto r = checked_mul(n, bits / 8);
  if (!r) throw TypeError("byte length of " + to_string(d) + " overflows");
  return *r;
}

}  // namespace cppnn
