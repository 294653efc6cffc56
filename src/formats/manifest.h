// The weights manifest (webnn-graph-format.md §7.3): a JSON index of absolute byte ranges of a
// `.weights` blob. The strict v1 schema of the raw-weight tools, the resolver's flexible reading,
// and the canonical pretty printer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"
#include "src/core/result.h"

namespace cppnn::formats {

inline constexpr std::string_view kManifestFormat = "wg-weights-manifest";
inline constexpr uint32_t kManifestVersion = 1;

// One tensor entry; [byteOffset, byteOffset + byteLength) is absolute in the blob.
struct ManifestEntry {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  bool has_type = false;  // false only in the flexible reading, when dataType/shape are unusable
  std::vector<uint32_t> shape;
  uint64_t byteOffset = 0;
  uint64_t byteLength = 0;
  std::optional<std::string> layout;  // "row-major", or null (convert-onnx)
};

// A manifest. Keys of `tensors` are tensor names (sorted).
struct WeightsManifest {
  std::string format = std::string(kManifestFormat);
  uint32_t version = kManifestVersion;
  std::string endianness = "little";
  std::map<std::string, ManifestEntry> tensors;
};

// The strict v1 schema: `format`, `version`, `endianness`, `tensors` required; each entry needs
// `dataType` (a known type), `shape` (u32s), `byteOffset`, `byteLength` (u64); `layout` is an
// optional string or null. Values of format/version are not checked here (only pack-weights
// does). Errors name the JSON path: "<where>: tensors.W.byteOffset: ...".
Result<WeightsManifest> parse_manifest_strict(std::string_view json, std::string_view where);
// One strict entry on its own (create-manifest's `<name>.meta.json`).
Result<ManifestEntry> parse_manifest_entry_strict(std::string_view json, std::string_view where);
// The resolver's reading (§7.3 "flexible manifest"): any JSON object; `tensors` may be missing
// (empty); entries need only `byteOffset` and `byteLength`; everything else is ignored.
Result<WeightsManifest> parse_manifest_flexible(std::string_view json, std::string_view where);

// Reads and parses a manifest file; errors "failed to read `<p>`: ..." or
// "failed to parse manifest JSON at `<p>`: ...".
Result<WeightsManifest> read_manifest_file(const std::filesystem::path& path, bool strict);

// Pretty JSON (2-space indent, fields in schema order, tensors sorted), no trailing newline.
std::string print_manifest(const WeightsManifest& m);

}  // namespace cppnn::formats
