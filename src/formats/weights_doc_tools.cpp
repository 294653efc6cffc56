#include "src/formats/weights_doc_tools.h"

#include <cstring>
#include <system_error>

#include "cppnn/descriptor.h"
#include "src/core/atomic_file.h"
#include "src/core/checked_math.h"
#include "src/formats/manifest.h"
#include "src/formats/manifest_check.h"
#include "src/formats/manifest_weights.h"
#include "src/formats/mapped_file.h"
#include "src/formats/weights_io.h"

namespace cppnn::formats {
namespace {

namespace fs = std::filesystem;

template <class... A>
ErrorInfo fail(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

std::span<const std::byte> as_bytes(const std::vector<uint8_t>& v) {
  return std::as_bytes(std::span<const uint8_t>(v));
}

}  // namespace

Result<size_t> extract_weights(GraphDoc& doc, const fs::path& output_dir, const fs::path& weights,
                               const fs::path& manifest_path) {
  WeightsManifest manifest;
  uint64_t at = kWgwtHeaderSize;
  std::vector<std::string> names;
  for (const auto& [name, c] : doc.consts) {  // name order
    if (c.init.kind != DocInit::Kind::kInlineBytes) continue;
    uint64_t alternative = 0;
    const auto expected = raw_byte_length({c.dataType, c.shape}, &alternative);
    if (!expected) return fail("Const '", name, "' has a shape that overflows 64-bit sizes");
    if (c.init.bytes.size() != *expected && c.init.bytes.size() != alternative)
      return fail("Const '", name, "' has wrong byte count: expected ", *expected, ", got ",
                  c.init.bytes.size());
    if (!is_safe_file_stem(name))
      return fail("Const '", name, "' cannot be stored as a file: its name holds `/`");
    ManifestEntry e;
    e.dataType = c.dataType;
    e.has_type = true;
    e.shape = c.shape;
    e.byteOffset = at;
    e.byteLength = c.init.bytes.size();
    e.layout = "row-major";
    at = *checked_add(at, e.byteLength);
    manifest.tensors[name] = std::move(e);
    names.push_back(name);
  }
  std::error_code ec;
  fs::create_directories(output_dir / "tensors", ec);
  if (ec) return fail("failed to create `", (output_dir / "tensors").string(), "`: ", ec.message());
  for (const std::string& name : names)
    CPPNN_RETURN_IF_ERROR(write_file_atomically(output_dir / "tensors" / (name + ".bin"),
                                                as_bytes(doc.consts.at(name).init.bytes)));
  CPPNN_RETURN_IF_ERROR(write_file_atomically(manifest_path, print_manifest(manifest)));
  auto out = AtomicFile::create(weights);
  if (!out) return out.error();
  CPPNN_RETURN_IF_ERROR(out->write(wgwt_header()));
  for (const std::string& name : names)
    CPPNN_RETURN_IF_ERROR(out->write(as_bytes(doc.consts.at(name).init.bytes)));
  CPPNN_RETURN_IF_ERROR(out->commit());
  for (const std::string& name : names) {
    DocInit& init = doc.consts.at(name).init;
    init = DocInit{};
    init.kind = DocInit::Kind::kWeights;
    init.ref = name;
  }
  return names.size();
}

Result<size_t> inline_weights(GraphDoc& doc, const fs::path& weights,
                              const fs::path& manifest_path) {
  auto manifest = read_manifest_file(manifest_path, /*strict=*/true);
  if (!manifest) return manifest.error();
  auto blob = MappedFile::open(weights);
  if (!blob) return blob.error();
  const std::span<const std::byte> file = (*blob)->bytes();
  CPPNN_RETURN_IF_ERROR(check_wgwt_header(file, weights.string()));
  std::map<std::string, std::span<const std::byte>> slices;
  for (const auto& [name, c] : doc.consts) {
    if (c.init.kind != DocInit::Kind::kWeights) continue;
    const auto it = manifest->tensors.find(c.init.ref);
    if (it == manifest->tensors.end())
      return fail("Weight reference '", c.init.ref, "' not found in manifest");
    const ManifestEntry& e = it->second;
    const auto end = checked_add(e.byteOffset, e.byteLength);
    if (e.byteOffset < kWgwtHeaderSize || !end || *end > file.size())
      return fail("Weight reference '", c.init.ref,
                  "' extends beyond weights file (offset=", e.byteOffset, ", length=", e.byteLength,
                  ", file_size=", file.size(), ")");
    // The reference copies any length; a graph whose bytes do not fit the declaration would
    // then fail only when loaded, so the mismatch is refused here, before anything is written.
    uint64_t alternative = 0;
    const auto expected = raw_byte_length({c.dataType, c.shape}, &alternative);
    if (!expected) return fail("Const '", name, "' has a shape that overflows 64-bit sizes");
    if (e.byteLength != *expected && e.byteLength != alternative)
      return fail("Const '", name, "' (weight reference '", c.init.ref,
                  "'): the manifest's byteLength ", e.byteLength, " does not fit its declaration ",
                  to_string(MLOperandDescriptor{c.dataType, c.shape}), ", which needs ", *expected,
                  " bytes");
    slices[name] =
        file.subspan(static_cast<size_t>(e.byteOffset), static_cast<size_t>(e.byteLength));
  }
  for (const auto& [name, bytes] : slices) {
    DocInit& init = doc.consts.at(name).init;
    init = DocInit{};
    init.kind = DocInit::Kind::kInlineBytes;
    init.bytes.resize(bytes.size());
    if (!bytes.empty()) std::memcpy(init.bytes.data(), bytes.data(), bytes.size());
  }
  return slices.size();
}

}  // namespace cppnn::formats
