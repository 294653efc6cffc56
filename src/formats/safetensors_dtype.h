// SafeTensors storage dtypes (webnn-graph-format.md §7.2 "Dtype mapping"): the stock library's
// names, which of them map to a WebNN data type, and their element sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "cppnn/data_type.h"

namespace cppnn::formats {

// The dtypes of the stock SafeTensors library. Those without a WebNN counterpart (BOOL, F64, ...)
// are recognised so that an archive holding them still parses; requesting one is an error.
enum class StDtype : uint8_t {
  kBool,
  kU8,
  kI8,
  kF8E5M2,
  kF8E4M3,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kF64,
  kI64,
  kU64,
};

// "F32", "BF16", ...
std::string_view st_dtype_name(StDtype t) noexcept;
// Parses a dtype string; nullopt for one the format does not define.
std::optional<StDtype> parse_st_dtype(std::string_view name) noexcept;
// Bytes per element.
unsigned st_dtype_size(StDtype t) noexcept;
// The storage dtype of a WebNN data type (§7.2 mapping); int4/uint4 are stored packed as U8.
StDtype st_dtype_for(MLOperandDataType t) noexcept;
// The WebNN data type a storage dtype maps to; nullopt for BF16 and the unmapped ones.
std::optional<MLOperandDataType> data_type_for(StDtype t) noexcept;

// The metadata key and value that mark packed 4-bit storage (§7.2, 0.4.0).
inline constexpr std::string_view kPacked4MetadataKey = "rustnn.webnn.packed4";
inline constexpr std::string_view kPacked4MetadataVersion = "1";

}  // namespace cppnn::formats
