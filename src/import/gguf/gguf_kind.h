// The ggml tensor kinds a GGUF file names by type id (ggml.h `enum ggml_type`; block sizes and
// block byte sizes as ggml's type traits, ggml.c `type_traits`). Every id ggml still defines is
// recognised, so that a file is parsed and its tensors listed whatever kinds it holds; the kinds
// cppnn can dequantize are marked `supported` (gguf_quant.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cppnn::gguf {

// A ggml type id (ggml.h). The numbering has gaps: ids ggml removed (4, 5, 31-33, 36-38) are
// unknown, as any id past the last one.
enum class GgufKind : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ2_XXS = 16,
  kIQ2_XS = 17,
  kIQ3_XXS = 18,
  kIQ1_S = 19,
  kIQ4_NL = 20,
  kIQ3_S = 21,
  kIQ2_S = 22,
  kIQ4_XS = 23,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kIQ1_M = 29,
  kBF16 = 30,
  kTQ1_0 = 34,
  kTQ2_0 = 35,
  kMXFP4 = 39,
  kNVFP4 = 40,
  kQ1_0 = 41,
};

// The super-block size of the K-quants (ggml's QK_K).
inline constexpr uint32_t kSuperBlock = 256;

// What ggml says about one kind: `block` consecutive elements of a row are stored in
// `block_bytes` bytes; a row's element count (ne[0]) must be a multiple of `block`.
struct GgufKindInfo {
  GgufKind kind;
  std::string_view name;  // ggml's name: "F32", "Q4_K", "IQ2_XXS" ...
  uint32_t block = 1;
  uint32_t block_bytes = 0;
  bool supported = false;  // dequantize / to_webnn_weight handle it (gguf_quant.h)
};

// The kind with type id `id`, or nullopt for an id ggml does not define.
std::optional<GgufKindInfo> find_kind(uint32_t id) noexcept;
// The table entry of a kind (every GgufKind value has one).
const GgufKindInfo& kind_info(GgufKind kind) noexcept;
// kind_info(kind).name.
std::string_view kind_name(GgufKind kind) noexcept;

}  // namespace cppnn::gguf
