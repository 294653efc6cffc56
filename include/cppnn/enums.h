// The spec's option enums (webnn-spec.md §3.1 "Other enums") with their IDL strings.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "cppnn/data_type.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

enum class MLPowerPreference : uint8_t { kDefault, kHighPerformance, kLowPower };
enum class MLInputOperandLayout : uint8_t { kNchw, kNhwc };
enum class MLConv2dFilterOperandLayout : uint8_t { kOihw, kHwio, kOhwi, kIhwo };
enum class MLConvTranspose2dFilterOperandLayout : uint8_t { kIohw, kHwoi, kOhwi };
enum class MLRoundingType : uint8_t { kFloor, kCeil };
enum class MLPaddingMode : uint8_t { kConstant, kEdge, kReflection };
enum class MLInterpolationMode : uint8_t { kNearestNeighbor, kLinear };
enum class MLRecurrentNetworkDirection : uint8_t { kForward, kBackward, kBoth };
enum class MLRecurrentNetworkActivation : uint8_t { kRelu, kSigmoid, kTanh };
enum class MLGruWeightLayout : uint8_t { kZrn, kRzn };
enum class MLLstmWeightLayout : uint8_t { kIofg, kIfgo };

// EnumStrings<E>::values lists (value, IDL string) pairs for every enum above.
template <class E>
struct EnumStrings;

#define CPPNN_ENUM_STRINGS(E, ...)                                            \
  template <>                                                                 \
  struct EnumStrings<E> {                                                     \
    static constexpr std::pair<E, std::string_view> values[] = {__VA_ARGS__}; \
  };

CPPNN_ENUM_STRINGS(MLPowerPreference, {MLPowerPreference::kDefault, "default"},
                   {MLPowerPreference::kHighPerformance, "high-performance"},
                   {MLPowerPreference::kLowPower, "low-power"})
CPPNN_ENUM_STRINGS(MLInputOperandLayout, {MLInputOperandLayout::kNchw, "nchw"},
                   {MLInputOperandLayout::kNhwc, "nhwc"})
CPPNN_ENUM_STRINGS(MLConv2dFilterOperandLayout, {MLConv2dFilterOperandLayout::kOihw, "oihw"},
                   {MLConv2dFilterOperandLayout::kHwio, "hwio"},
                   {MLConv2dFilterOperandLayout::kOhwi, "ohwi"},
                   {MLConv2dFilterOperandLayout::kIhwo, "ihwo"})
CPPNN_ENUM_STRINGS(MLConvTranspose2dFilterOperandLayout,
                   {MLConvTranspose2dFilterOperandLayout::kIohw, "iohw"},
                   {MLConvTranspose2dFilterOperandLayout::kHwoi, "hwoi"},
                   {MLConvTranspose2dFilterOperandLayout::kOhwi, "ohwi"})
CPPNN_ENUM_STRINGS(MLRoundingType, {MLRoundingType::kFloor, "floor"},
                   {MLRoundingType::kCeil, "ceil"})
CPPNN_ENUM_STRINGS(MLPaddingMode, {MLPaddingMode::kConstant, "constant"},
                   {MLPaddingMode::kEdge, "edge"}, {MLPaddingMode::kReflection, "reflection"})
CPPNN_ENUM_STRINGS(MLInterpolationMode, {MLInterpolationMode::kNearestNeighbor, "nearest-neighbor"},
                   {MLInterpolationMode::kLinear, "linear"})
CPPNN_ENUM_STRINGS(MLRecurrentNetworkDirection, {MLRecurrentNetworkDirection::kForward, "forward"},
                   {MLRecurrentNetworkDirection::kBackward, "backward"},
                   {MLRecurrentNetworkDirection::kBoth, "both"})
CPPNN_ENUM_STRINGS(MLRecurrentNetworkActivation, {MLRecurrentNetworkActivation::kRelu, "relu"},
                   {MLRecurrentNetworkActivation::kSigmoid, "sigmoid"},
                   {MLRecurrentNetworkActivation::kTanh, "tanh"})
CPPNN_ENUM_STRINGS(MLGruWeightLayout, {MLGruWeightLayout::kZrn, "zrn"},
                   {MLGruWeightLayout::kRzn, "rzn"})
CPPNN_ENUM_STRINGS(MLLstmWeightLayout, {MLLstmWeightLayout::kIofg, "iofg"},
                   {MLLstmWeightLayout::kIfgo, "ifgo"})
CPPNN_ENUM_STRINGS(MLOperandDataType, {MLOperandDataType::kFloat32, "float32"},
                   {MLOperandDataType::kFloat16, "float16"}, {MLOperandDataType::kInt32, "int32"},
                   {MLOperandDataType::kUint32, "uint32"}, {MLOperandDataType::kInt64, "int64"},
                   {MLOperandDataType::kUint64, "uint64"}, {MLOperandDataType::kInt8, "int8"},
                   {MLOperandDataType::kUint8, "uint8"}, {MLOperandDataType::kInt4, "int4"},
                   {MLOperandDataType::kUint4, "uint4"})
#undef CPPNN_ENUM_STRINGS

// The IDL string of an enum value ("" if unknown).
template <class E>
constexpr std::string_view enum_to_string(E e) {
  for (const auto& [v, s] : EnumStrings<E>::values)
    if (v == e) return s;
  return {};
}
// Parses an IDL string; nullopt when it is not one of the enum's strings (a TypeError in IDL).
template <class E>
constexpr std::optional<E> enum_from_string(std::string_view s) {
  for (const auto& [v, str] : EnumStrings<E>::values)
    if (str == s) return v;
  return std::nullopt;
}

}  // namespace cppnn

#pragma GCC visibility pop
