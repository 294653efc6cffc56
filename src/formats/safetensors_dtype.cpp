#include "src/formats/safetensors_dtype.h"

#include <array>
#include <utility>

namespace cppnn::formats {
namespace {

struct DtypeInfo {
  StDtype dtype;
  std::string_view name;
  unsigned size;
};

constexpr std::array<DtypeInfo, 15> kDtypes = {{
    {StDtype::kBool, "BOOL", 1},
    {StDtype::kU8, "U8", 1},
    {StDtype::kI8, "I8", 1},
    {StDtype::kF8E5M2, "F8_E5M2", 1},
    {StDtype::kF8E4M3, "F8_E4M3", 1},
    {StDtype::kI16, "I16", 2},
    {StDtype::kU16, "U16", 2},
    {StDtype::kF16, "F16", 2},
    {StDtype::kBF16, "BF16", 2},
    {StDtype::kI32, "I32", 4},
    {StDtype::kU32, "U32", 4},
    {StDtype::kF32, "F32", 4},
    {StDtype::kF64, "F64", 8},
    {StDtype::kI64, "I64", 8},
    {StDtype::kU64, "U64", 8},
}};

}  // namespace

std::string_view st_dtype_name(StDtype t) noexcept {
  return kDtypes[static_cast<size_t>(t)].name;
}

std::optional<StDtype> parse_st_dtype(std::string_view name) noexcept {
  for (const auto& d : kDtypes)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

unsigned st_dtype_size(StDtype t) noexcept {
  return kDtypes[static_cast<size_t>(t)].size;
}

StDtype st_dtype_for(MLOperandDataType t) noexcept {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return StDtype::kF32;
    case MLOperandDataType::kFloat16:
      return StDtype::kF16;
    case MLOperandDataType::kInt32:
      return StDtype::kI32;
    case MLOperandDataType::kUint32:
      return StDtype::kU32;
    case MLOperandDataType::kInt64:
      return StDtype::kI64;
    case MLOperandDataType::kUint64:
      return StDtype::kU64;
    case MLOperandDataType::kInt8:
      return StDtype::kI8;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      return StDtype::kU8;
  }
  return StDtype::kU8;
}

std::optional<MLOperandDataType> data_type_for(StDtype t) noexcept {
  switch (t) {
    case StDtype::kF32:
      return MLOperandDataType::kFloat32;
    case StDtype::kF16:
      return MLOperandDataType::kFloat16;
    case StDtype::kI32:
      return MLOperandDataType::kInt32;
    case StDtype::kU32:
      return MLOperandDataType::kUint32;
    case StDtype::kI64:
      return MLOperandDataType::kInt64;
    case StDtype::kU64:
      return MLOperandDataType::kUint64;
    case StDtype::kI8:
      return MLOperandDataType::kInt8;
    case StDtype::kU8:
      return MLOperandDataType::kUint8;
    case StDtype::kBool:
    case StDtype::kF8E5M2:
    case StDtype::kF8E4M3:
    case StDtype::kI16:
    case StDtype::kU16:
    case StDtype::kBF16:
    case StDtype::kF64:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace cppnn::formats
