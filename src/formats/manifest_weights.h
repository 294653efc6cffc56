// Manifest-addressed raw weights (webnn-graph-format.md §7.3): a mapped `.weights` blob, WGWT
// (8-byte header) or headerless, indexed by a manifest of absolute byte ranges.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "src/formats/manifest.h"
#include "src/formats/mapped_file.h"
#include "src/formats/weights_names.h"
#include "src/formats/weights_provider.h"

namespace cppnn::formats {

inline constexpr uint64_t kWgwtHeaderSize = 8;
inline constexpr uint32_t kWgwtVersion = 1;

// Checks the WGWT header (`WGWT`, u32 LE version 1) of a blob named `where`. Errors:
// "`<where>` is N bytes, shorter than the 8-byte WGWT header",
// "Invalid magic bytes: expected [87, 71, 87, 84], got [..]",
// "Unsupported weights file version: N".
Status check_wgwt_header(std::span<const std::byte> file, std::string_view where);
// The 8 header bytes of a WGWT file.
std::span<const std::byte, 8> wgwt_header();

// A raw blob with its manifest, as the §7.1 resolver reads it (both layouts: offsets are
// absolute). Beyond the reference, cppnn checks the range length against the declaration (a
// constant must have exactly its byte length); a 4-bit tensor may be stored packed (ceil(n/2)
// bytes) or one element per byte (the 0.2.1/0.3.0 tools), which is then packed on load.
class ManifestWeights final : public WeightsProvider {
 public:
  // Maps `weights` and reads `manifest` with the flexible schema.
  static Result<std::shared_ptr<const ManifestWeights>> open(const std::filesystem::path& weights,
                                                             const std::filesystem::path& manifest);
  ManifestWeights(std::shared_ptr<const MappedFile> blob, WeightsManifest manifest);

  // Errors: "[manifest-weights] no manifest tensor entry for weight ref `<r>` (constant `<c>`)",
  // "[manifest-weights] byte range overflow for `<r>`",
  // "[manifest-weights] byte range [s, e) for `<r>` exceeds weights file length L (`<path>`)",
  // "[manifest-weights] weights byteLength mismatch for `<r>` (constant `<c>`): expected E got G".
  Result<ConstantData> load(std::string_view ref, std::string_view const_name,
                            const MLOperandDescriptor& declared) const override;
  Result<std::optional<std::string>> find(std::string_view ref) const override {
    return index_.find(ref);
  }
  std::vector<std::string> names() const override;
  const std::filesystem::path& path() const override { return blob_->path(); }
  const WeightsManifest& manifest() const { return manifest_; }

 private:
  std::shared_ptr<const MappedFile> blob_;
  WeightsManifest manifest_;
  WeightNameIndex index_;
};

// The bytes [offset, offset + length) of `file`, or an error naming `ref` on overflow or when
// the range runs past the end (the §7.3 range checks).
Result<std::span<const std::byte>> manifest_range(std::span<const std::byte> file, uint64_t offset,
                                                  uint64_t length, std::string_view ref,
                                                  std::string_view where);

}  // namespace cppnn::formats
