#include "cppnn/data_type.h"

#include "cppnn/enums.h"

namespace cppnn {

std::string_view data_type_name(MLOperandDataType t) noexcept {
  return enum_to_string(t);
}

std::optional<MLOperandDataType> parse_data_type(std::string_view name) noexcept {
  return enum_from_string<MLOperandDataType>(name);
}

unsigned data_type_bits(MLOperandDataType t) noexcept {
  switch (t) {
    case MLOperandDataType::kFloat32:
    case MLOperandDataType::kInt32:
    case MLOperandDataType::kUint32:
      return 32;
    case MLOperandDataType::kFloat16:
      return 16;
    case MLOperandDataType::kInt64:
    case MLOperandDataType::kUint64:
      return 64;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kUint8:
      return 8;
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      return 4;
  }
  return 0;
}

bool is_floating_point(MLOperandDataType t) noexcept {
  return t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16;
}

bool is_signed_integer(MLOperandDataType t) noexcept {
  return t == MLOperandDataType::kInt32 || t == MLOperandDataType::kInt64 ||
         t == MLOperandDataType::kInt8 || t == MLOperandDataType::kInt4;
}

bool is_unsigned_integer(MLOperandDataType t) noexcept {
  return t == MLOperandDataType::kUint32 || t == MLOperandDataType::kUint64 ||
         t == MLOperandDataType::kUint8 || t == MLOperandDataType::kUint4;
}

bool is_spec_data_type(MLOperandDataType t) noexcept {
  return static_cast<int>(t) < kSpecDataTypeCount;
}

}  // namespace cppnn
