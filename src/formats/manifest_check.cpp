#include "src/formats/manifest_check.h"

#include <algorithm>
#include <vector>

#include "src/formats/weights_provider.h"

namespace cppnn::formats {

std::optional<uint64_t> raw_byte_length(const MLOperandDescriptor& d, uint64_t* alternative) {
  const auto bytes = declared_byte_length(d);
  if (!bytes) return std::nullopt;
  if (alternative)
    *alternative = data_type_bits(d.dataType) == 4 ? *declared_element_count(d) : *bytes;
  return bytes;
}

Status check_manifest_declarations(const WeightsManifest& manifest,
                                   std::span<const DeclaredWeight> declarations) {
  std::vector<const DeclaredWeight*> order;
  for (const DeclaredWeight& d : declarations) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->const_name < b->const_name; });
  for (const DeclaredWeight* d : order) {
    const auto it = manifest.tensors.find(d->ref);
    if (it == manifest.tensors.end())
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("missing weights manifest entry for const ref '", d->ref, "'")};
    const ManifestEntry& e = it->second;
    if (!e.has_type || e.dataType != d->descriptor.dataType || e.shape != d->descriptor.shape)
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("weights type/shape mismatch for '", d->ref, "'")};
    uint64_t alternative = 0;
    const auto expected = raw_byte_length(d->descriptor, &alternative);
    if (!expected)
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("weights byteLength overflow for '", d->ref, "'")};
    if (e.byteLength != *expected && e.byteLength != alternative)
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("weights byteLength mismatch for '", d->ref, "': expected ",
                               *expected, " got ", e.byteLength)};
  }
  return Ok{};
}

}  // namespace cppnn::formats
