#include "src/formats/weights_tools.h"

#include <algorithm>
#include <system_error>

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

Status check_file_stem(const std::string& name) {
  if (!is_safe_file_stem(name))
    return fail("Tensor '", name, "' cannot be stored as a file: its name is empty, `.`, `..` or ",
                "holds `/`, `\\` or NUL");
  return Ok{};
}

// The accepted byte lengths of an entry's declaration (packed and, for 4-bit, one per byte).
Result<std::pair<uint64_t, uint64_t>> lengths_of(const std::string& name, const ManifestEntry& e) {
  uint64_t alternative = 0;
  const auto expected = raw_byte_length({e.dataType, e.shape}, &alternative);
  if (!expected) return fail("Tensor '", name, "' has a shape that overflows 64-bit sizes");
  return std::pair<uint64_t, uint64_t>{*expected, alternative};
}

}  // namespace

Status pack_weights(const fs::path& manifest_path, const fs::path& input_dir,
                    const fs::path& output) {
  auto manifest = read_manifest_file(manifest_path, /*strict=*/true);
  if (!manifest) return manifest.error();
  if (manifest->format != kManifestFormat)
    return fail("Invalid manifest format: ", manifest->format);
  if (manifest->version != kManifestVersion)
    return fail("Unsupported manifest version: ", manifest->version);
  std::vector<std::pair<const std::string*, const ManifestEntry*>> order;
  for (const auto& [name, e] : manifest->tensors) order.emplace_back(&name, &e);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->byteOffset < b.second->byteOffset;  // ties stay in name order
  });
  uint64_t at = kWgwtHeaderSize;
  std::vector<fs::path> files;
  for (const auto& [name, e] : order) {
    if (e->byteOffset != at)
      return fail("Tensor '", *name, "' has unexpected byte_offset: expected ", at, ", got ",
                  e->byteOffset);
    auto lengths = lengths_of(*name, *e);
    if (!lengths) return lengths.error();
    if (e->byteLength != lengths->first && e->byteLength != lengths->second)
      return fail("Tensor '", *name, "' has incorrect byte_length: expected ", lengths->first,
                  ", got ", e->byteLength);
    CPPNN_RETURN_IF_ERROR(check_file_stem(*name));
    fs::path file = input_dir / (*name + ".bin");
    std::error_code ec;
    const bool regular = fs::is_regular_file(file, ec);
    const uint64_t size = regular ? fs::file_size(file, ec) : 0;
    if (!regular || ec) return fail("Failed to open tensor file: \"", file.string(), "\"");
    if (size != e->byteLength)
      return fail("Tensor file '", *name, "' has wrong size: expected ", e->byteLength,
                  " bytes, got ", size);
    const auto next = checked_add(at, e->byteLength);
    if (!next) return fail("Tensor '", *name, "': offsets overflow 64 bits");
    at = *next;
    files.push_back(std::move(file));
  }
  auto out = AtomicFile::create(output);
  if (!out) return out.error();
  CPPNN_RETURN_IF_ERROR(out->write(wgwt_header()));
  for (size_t i = 0; i < order.size(); ++i)
    CPPNN_RETURN_IF_ERROR(out->append_file(files[i], order[i].second->byteLength));
  return out->commit();
}

Result<std::vector<std::string>> unpack_weights(const fs::path& weights,
                                                const fs::path& manifest_path,
                                                const fs::path& output_dir) {
  auto manifest = read_manifest_file(manifest_path, /*strict=*/true);
  if (!manifest) return manifest.error();
  auto blob = MappedFile::open(weights);
  if (!blob) return blob.error();
  const std::span<const std::byte> file = (*blob)->bytes();
  CPPNN_RETURN_IF_ERROR(check_wgwt_header(file, weights.string()));
  const uint64_t body = file.size() - kWgwtHeaderSize;
  std::vector<std::string> names;
  for (const auto& [name, e] : manifest->tensors) {
    if (e.byteOffset < kWgwtHeaderSize)
      return fail("Tensor '", name, "' has byte_offset ", e.byteOffset,
                  ", inside the 8-byte WGWT header");
    const uint64_t start = e.byteOffset - kWgwtHeaderSize;
    const auto end = checked_add(start, e.byteLength);
    if (!end || *end > body)
      return fail("Tensor '", name, "' extends beyond weights file: offset=", e.byteOffset,
                  ", length=", e.byteLength, ", file_size=", file.size());
    CPPNN_RETURN_IF_ERROR(check_file_stem(name));
    names.push_back(name);
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) return fail("failed to create `", output_dir.string(), "`: ", ec.message());
  for (const auto& [name, e] : manifest->tensors) {
    const auto bytes =
        file.subspan(static_cast<size_t>(e.byteOffset), static_cast<size_t>(e.byteLength));
    CPPNN_RETURN_IF_ERROR(write_file_atomically(output_dir / (name + ".bin"), bytes));
  }
  return names;
}

Result<size_t> create_manifest(const fs::path& input_dir, const fs::path& output,
                               const std::string& endianness) {
  std::error_code ec;
  std::vector<fs::path> bins;
  for (fs::directory_iterator it(input_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".bin" && it->is_regular_file()) bins.push_back(it->path());
  if (ec) return fail("failed to list `", input_dir.string(), "`: ", ec.message());
  std::sort(bins.begin(), bins.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  WeightsManifest m;
  m.endianness = endianness;
  for (const fs::path& bin : bins) {
    const std::string name = bin.stem().string();
    if (!is_valid_utf8(name)) return fail("Tensor file `", bin.string(), "`: name is not UTF-8");
    const fs::path meta_path = input_dir / (name + ".meta.json");
    auto text = read_text_file(meta_path);
    if (!text)
      return fail("Failed to read metadata file: ", meta_path.string(), ": ", text.error().message);
    auto meta = parse_manifest_entry_strict(*text, meta_path.string());
    if (!meta)
      return fail("Failed to read metadata file: ", meta_path.string(), ": ", meta.error().message);
    auto lengths = lengths_of(name, *meta);
    if (!lengths) return lengths.error();
    const uint64_t size = fs::file_size(bin, ec);
    if (ec) return fail("failed to read `", bin.string(), "`: ", ec.message());
    if (size != lengths->first && size != lengths->second)
      return fail("Tensor '", name, "' file size mismatch: expected ", lengths->first, ", got ",
                  size);
    meta->byteLength = size;
    if (!meta->layout) meta->layout = "row-major";
    m.tensors[name] = std::move(*meta);
  }
  uint64_t at = kWgwtHeaderSize;
  for (auto& [name, e] : m.tensors) {  // contiguous offsets in name order
    e.byteOffset = at;
    const auto next = checked_add(at, e.byteLength);
    if (!next) return fail("Tensor '", name, "': offsets overflow 64 bits");
    at = *next;
  }
  CPPNN_RETURN_IF_ERROR(write_file_atomically(output, print_manifest(m)));
  return m.tensors.size();
}

}  // namespace cppnn::formats
