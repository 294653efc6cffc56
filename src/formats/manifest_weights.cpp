#include "src/formats/manifest_weights.h"

#include "src/core/checked_math.h"

namespace cppnn::formats {
namespace {

constexpr std::byte kWgwt[8] = {std::byte{'W'}, std::byte{'G'}, std::byte{'W'}, std::byte{'T'},
                                std::byte{1},   std::byte{0},   std::byte{0},   std::byte{0}};

template <class... A>
ErrorInfo fail(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("[manifest-weights] ", a...)};
}

std::vector<std::string> keys_of(const WeightsManifest& m) {
  std::vector<std::string> names;
  for (const auto& [name, e] : m.tensors) names.push_back(name);
  return names;
}

}  // namespace

std::span<const std::byte, 8> wgwt_header() {
  return std::span<const std::byte, 8>(kWgwt, 8);
}

Status check_wgwt_header(std::span<const std::byte> file, std::string_view where) {
  if (file.size() < kWgwtHeaderSize)
    return ErrorInfo{ErrorKind::kDataError, str_cat("`", where, "` is ", file.size(),
                                                    " bytes, shorter than the 8-byte WGWT header")};
  if (file[0] != kWgwt[0] || file[1] != kWgwt[1] || file[2] != kWgwt[2] || file[3] != kWgwt[3])
    return ErrorInfo{
        ErrorKind::kDataError,
        str_cat("Invalid magic bytes: expected [87, 71, 87, 84], got [", static_cast<int>(file[0]),
                ", ", static_cast<int>(file[1]), ", ", static_cast<int>(file[2]), ", ",
                static_cast<int>(file[3]), "] in `", where, "`")};
  uint32_t version = 0;
  for (int i = 7; i >= 4; --i) version = (version << 8) | static_cast<uint8_t>(file[i]);
  if (version != kWgwtVersion)
    return ErrorInfo{ErrorKind::kDataError,
                     str_cat("Unsupported weights file version: ", version, " in `", where, "`")};
  return Ok{};
}

Result<std::span<const std::byte>> manifest_range(std::span<const std::byte> file, uint64_t offset,
                                                  uint64_t length, std::string_view ref,
                                                  std::string_view where) {
  const auto end = checked_add(offset, length);
  if (!end) return fail("byte range overflow for `", ref, "`");
  if (*end > file.size())
    return fail("byte range [", offset, ", ", *end, ") for `", ref,
                "` exceeds weights file length ", file.size(), " (`", where, "`)");
  return file.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
}

Result<std::shared_ptr<const ManifestWeights>> ManifestWeights::open(
    const std::filesystem::path& weights, const std::filesystem::path& manifest) {
  auto m = read_manifest_file(manifest, /*strict=*/false);
  if (!m) return m.error();
  auto blob = MappedFile::open(weights);
  if (!blob) return blob.error();
  return std::make_shared<const ManifestWeights>(std::move(*blob), std::move(*m));
}

ManifestWeights::ManifestWeights(std::shared_ptr<const MappedFile> blob, WeightsManifest manifest)
    : blob_(std::move(blob)), manifest_(std::move(manifest)), index_(keys_of(manifest_)) {}

std::vector<std::string> ManifestWeights::names() const {
  return keys_of(manifest_);
}

Result<ConstantData> ManifestWeights::load(std::string_view ref, std::string_view const_name,
                                           const MLOperandDescriptor& declared) const {
  auto found = index_.find(ref);
  if (!found) return fail(found.error().message);
  if (!*found)
    return fail("no manifest tensor entry for weight ref `", ref, "` (constant `", const_name,
                "`)");
  const ManifestEntry& e = manifest_.tensors.at(**found);
  auto bytes =
      manifest_range(blob_->bytes(), e.byteOffset, e.byteLength, ref, blob_->path().string());
  if (!bytes) return bytes.error();
  const auto expected = declared_byte_length(declared);
  const auto count = declared_element_count(declared);
  if (!expected || !count)
    return fail("constant `", const_name, "`: shape ", shape_to_string(declared.shape),
                " overflows 64-bit sizes");
  if (data_type_bits(declared.dataType) == 4 && bytes->size() == *count && *count != *expected) {
    // One element per byte (the 0.2.1/0.3.0 raw-weight tools): pack the low nibbles.
    std::vector<std::byte> packed(static_cast<size_t>(*expected), std::byte{0});
    for (size_t i = 0; i < bytes->size(); ++i)
      packed[i / 2] |= ((*bytes)[i] & std::byte{0x0f}) << (i % 2 ? 4 : 0);
    return ConstantData::owned(std::move(packed));
  }
  if (bytes->size() != *expected)
    return fail("weights byteLength mismatch for `", ref, "` (constant `", const_name,
                "`): expected ", *expected, " got ", bytes->size());
  if (!is_aligned_for(*bytes, declared.dataType)) return ConstantData::copy_of(*bytes);
  return MappedFile::constant_view(blob_, *bytes);
}

}  // namespace cppnn::formats
