// Helpers shared by the GGUF reader tests: parsing written bytes in memory, random blocks of a
// quantized kind with finite float16 scales.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "src/import/gguf/gguf_file.h"
#include "src/import/gguf/gguf_kind.h"
#include "tests/llm/gguf_writer.h"

namespace cppnn::gguf::testing {

// Parses a copy of `bytes` (exactly that long, so that ASan sees any read past the end); the
// copy lives as long as the result.
inline Result<std::shared_ptr<const GgufFile>> parse_copy(const std::vector<std::byte>& bytes,
                                                          const std::string& name = "t.gguf") {
  auto owned = std::make_shared<const std::vector<std::byte>>(bytes);
  const std::span<const std::byte> view(owned->data(), owned->size());
  return GgufFile::parse(view, owned, name);
}

// Parses a writer's file; fails the test when it does not parse.
inline std::shared_ptr<const GgufFile> parse_ok(const GgufWriter& w) {
  auto f = parse_copy(w.bytes());
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
  return f.ok() ? *f : nullptr;
}

// The byte offsets of the float16 scale fields in one block of a quantized kind.
inline std::vector<size_t> f16_fields(GgufKind kind) {
  switch (kind) {
    case GgufKind::kQ4_0:
    case GgufKind::kQ5_0:
    case GgufKind::kQ8_0:
      return {0};
    case GgufKind::kQ4_1:
    case GgufKind::kQ5_1:
    case GgufKind::kQ4_K:
    case GgufKind::kQ5_K:
      return {0, 2};
    case GgufKind::kQ6_K:
      return {208};
    default:
      return {};
  }
}

// `blocks` random blocks of `kind`; float16 scale fields that came out NaN or infinite are
// drawn again (a block with a non-finite scale has no meaningful value).
inline std::vector<std::byte> random_blocks(GgufKind kind, size_t blocks, std::mt19937& rng) {
  const GgufKindInfo& info = kind_info(kind);
  std::vector<std::byte> out(blocks * info.block_bytes);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::byte& b : out) b = static_cast<std::byte>(byte(rng));
  for (size_t i = 0; i < blocks; ++i)
    for (size_t field : f16_fields(kind)) {
      std::byte* p = out.data() + i * info.block_bytes + field;
      while (!std::isfinite(half_bits_to_float(
          static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[1]) << 8)))) {
        p[0] = static_cast<std::byte>(byte(rng));
        p[1] = static_cast<std::byte>(byte(rng));
      }
    }
  return out;
}

}  // namespace cppnn::gguf::testing
