#include "src/import/gguf/gguf_kind.h"

#include <array>

namespace cppnn::gguf {
namespace {

using K = GgufKind;

// ggml's type traits (ggml.c `type_traits`, block sizes from ggml-common.h): one row per id.
constexpr std::array<GgufKindInfo, 34> kKinds = {{
    {K::kF32, "F32", 1, 4, true},
    {K::kF16, "F16", 1, 2, true},
    {K::kQ4_0, "Q4_0", 32, 2 + 16, true},
    {K::kQ4_1, "Q4_1", 32, 2 + 2 + 16, true},
    {K::kQ5_0, "Q5_0", 32, 2 + 4 + 16, true},
    {K::kQ5_1, "Q5_1", 32, 2 + 2 + 4 + 16, true},
    {K::kQ8_0, "Q8_0", 32, 2 + 32, true},
    {K::kQ8_1, "Q8_1", 32, 4 + 4 + 32, false},
    {K::kQ2_K, "Q2_K", kSuperBlock, 2 + 2 + kSuperBlock / 16 + kSuperBlock / 4, false},
    {K::kQ3_K, "Q3_K", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8 + 12, false},
    {K::kQ4_K, "Q4_K", kSuperBlock, 2 + 2 + 12 + kSuperBlock / 2, true},
    {K::kQ5_K, "Q5_K", kSuperBlock, 2 + 2 + 12 + kSuperBlock / 8 + kSuperBlock / 2, true},
    {K::kQ6_K, "Q6_K", kSuperBlock, kSuperBlock / 2 + kSuperBlock / 4 + kSuperBlock / 16 + 2, true},
    {K::kQ8_K, "Q8_K", kSuperBlock, 4 + kSuperBlock + kSuperBlock / 8, false},
    {K::kIQ2_XXS, "IQ2_XXS", kSuperBlock, 2 + kSuperBlock / 4, false},
    {K::kIQ2_XS, "IQ2_XS", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 32, false},
    {K::kIQ3_XXS, "IQ3_XXS", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8, false},
    {K::kIQ1_S, "IQ1_S", kSuperBlock, 2 + kSuperBlock / 8 + kSuperBlock / 16, false},
    {K::kIQ4_NL, "IQ4_NL", 32, 2 + 16, false},
    {K::kIQ3_S, "IQ3_S", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 8 + kSuperBlock / 32 + 4,
     false},
    {K::kIQ2_S, "IQ2_S", kSuperBlock, 2 + kSuperBlock / 4 + kSuperBlock / 16, false},
    {K::kIQ4_XS, "IQ4_XS", kSuperBlock, 2 + 2 + kSuperBlock / 2 + kSuperBlock / 64, false},
    {K::kI8, "I8", 1, 1, false},
    {K::kI16, "I16", 1, 2, false},
    {K::kI32, "I32", 1, 4, false},
    {K::kI64, "I64", 1, 8, false},
    {K::kF64, "F64", 1, 8, false},
    {K::kIQ1_M, "IQ1_M", kSuperBlock, kSuperBlock / 8 + kSuperBlock / 16 + kSuperBlock / 32, false},
    {K::kBF16, "BF16", 1, 2, true},
    {K::kTQ1_0, "TQ1_0", kSuperBlock, 2 + 4 * 13, false},
    {K::kTQ2_0, "TQ2_0", kSuperBlock, 2 + 64, false},
    {K::kMXFP4, "MXFP4", 32, 1 + 16, false},
    {K::kNVFP4, "NVFP4", 64, 4 + 32, false},
    {K::kQ1_0, "Q1_0", 128, 2 + 16, false},
}};

// The table is kept by hand: the ids must be strictly increasing (find_kind relies on it).
constexpr bool ids_increase() {
  for (size_t i = 1; i < kKinds.size(); ++i)
    if (static_cast<uint32_t>(kKinds[i - 1].kind) >= static_cast<uint32_t>(kKinds[i].kind))
      return false;
  return true;
}
static_assert(ids_increase());
static_assert(kKinds.back().kind == K::kQ1_0, "a GgufKind is missing from the table");

}  // namespace

std::optional<GgufKindInfo> find_kind(uint32_t id) noexcept {
  for (const GgufKindInfo& k : kKinds)
    if (static_cast<uint32_t>(k.kind) == id) return k;
  return std::nullopt;
}

const GgufKindInfo& kind_info(GgufKind kind) noexcept {
  for (const GgufKindInfo& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];  // unreachable for a value of the enum
}

std::string_view kind_name(GgufKind kind) noexcept {
  return kind_info(kind).name;
}

}  // namespace cppnn::gguf
