#include "src/formats/manifest.h"

#include <nlohmann/json.hpp>

#include "src/formats/weights_io.h"

namespace cppnn::formats {
namespace {

using nlohmann::json;

ErrorInfo bad(std::string_view where, const std::string& path, const std::string& what) {
  return ErrorInfo{ErrorKind::kDataError,
                   str_cat(where, ": ", path.empty() ? "" : path + ": ", what)};
}

Result<json> parse_json(std::string_view text, std::string_view where) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return bad(where, "", e.what());
  }
}

// Reads a required member; nullptr (and an error) when missing.
const json* member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Result<uint64_t> get_u64(const json& obj, const char* key, std::string_view where,
                         const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return bad(where, path + key, "missing");
  if (!v->is_number_unsigned()) return bad(where, path + key, "expected a non-negative integer");
  return v->get<uint64_t>();
}

Result<std::vector<uint32_t>> get_shape(const json& v, std::string_view where,
                                        const std::string& path) {
  if (!v.is_array()) return bad(where, path, "expected an array of dimensions");
  std::vector<uint32_t> shape;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& d = v[i];
    if (!d.is_number_unsigned() || d.get<uint64_t>() > UINT32_MAX)
      return bad(where, str_cat(path, "[", i, "]"), "expected an integer in 0..4294967295");
    shape.push_back(static_cast<uint32_t>(d.get<uint64_t>()));
  }
  return shape;
}

Result<ManifestEntry> entry_strict(const json& e, std::string_view where, const std::string& path) {
  if (!e.is_object()) return bad(where, path, "expected an object");
  ManifestEntry out;
  const json* type = member(e, "dataType");
  if (!type) return bad(where, path + ".dataType", "missing");
  const auto parsed = type->is_string() ? parse_data_type(type->get<std::string>()) : std::nullopt;
  if (!parsed) return bad(where, path + ".dataType", "unknown data type " + type->dump());
  out.dataType = *parsed;
  out.has_type = true;
  const json* shape = member(e, "shape");
  if (!shape) return bad(where, path + ".shape", "missing");
  auto dims = get_shape(*shape, where, path + ".shape");
  if (!dims) return dims.error();
  out.shape = std::move(*dims);
  auto off = get_u64(e, "byteOffset", where, path + ".");
  if (!off) return off.error();
  auto len = get_u64(e, "byteLength", where, path + ".");
  if (!len) return len.error();
  out.byteOffset = *off;
  out.byteLength = *len;
  if (const json* layout = member(e, "layout"); layout && !layout->is_null()) {
    if (!layout->is_string()) return bad(where, path + ".layout", "expected a string or null");
    out.layout = layout->get<std::string>();
  }
  return out;
}

Result<ManifestEntry> entry_flexible(const json& e, std::string_view where,
                                     const std::string& path) {
  if (!e.is_object()) return bad(where, path, "expected an object");
  ManifestEntry out;
  auto off = get_u64(e, "byteOffset", where, path + ".");
  if (!off) return off.error();
  auto len = get_u64(e, "byteLength", where, path + ".");
  if (!len) return len.error();
  out.byteOffset = *off;
  out.byteLength = *len;
  // dataType and shape are informational here; keep them when they are usable.
  const json* type = member(e, "dataType");
  const json* shape = member(e, "shape");
  if (type && type->is_string() && shape) {
    const auto parsed = parse_data_type(type->get<std::string>());
    auto dims = get_shape(*shape, where, path + ".shape");
    if (parsed && dims) {
      out.dataType = *parsed;
      out.shape = std::move(*dims);
      out.has_type = true;
    }
  }
  return out;
}

}  // namespace

Result<WeightsManifest> parse_manifest_strict(std::string_view text, std::string_view where) {
  auto root = parse_json(text, where);
  if (!root) return root.error();
  if (!root->is_object()) return bad(where, "", "the manifest is not a JSON object");
  WeightsManifest m;
  const json* format = member(*root, "format");
  if (!format || !format->is_string()) return bad(where, "format", "missing or not a string");
  m.format = format->get<std::string>();
  const json* version = member(*root, "version");
  if (!version || !version->is_number_unsigned() || version->get<uint64_t>() > UINT32_MAX)
    return bad(where, "version", "missing or not a u32");
  m.version = static_cast<uint32_t>(version->get<uint64_t>());
  const json* endian = member(*root, "endianness");
  if (!endian || !endian->is_string()) return bad(where, "endianness", "missing or not a string");
  m.endianness = endian->get<std::string>();
  const json* tensors = member(*root, "tensors");
  if (!tensors || !tensors->is_object()) return bad(where, "tensors", "missing or not an object");
  for (const auto& [name, e] : tensors->items()) {
    auto entry = entry_strict(e, where, "tensors." + name);
    if (!entry) return entry.error();
    m.tensors[name] = std::move(*entry);
  }
  return m;
}

Result<ManifestEntry> parse_manifest_entry_strict(std::string_view text, std::string_view where) {
  auto root = parse_json(text, where);
  if (!root) return root.error();
  return entry_strict(*root, where, "");
}

Result<WeightsManifest> parse_manifest_flexible(std::string_view text, std::string_view where) {
  auto root = parse_json(text, where);
  if (!root) return root.error();
  if (!root->is_object()) return bad(where, "", "the manifest is not a JSON object");
  WeightsManifest m;
  const json* tensors = member(*root, "tensors");
  if (!tensors) return m;
  if (!tensors->is_object()) return bad(where, "tensors", "expected an object");
  for (const auto& [name, e] : tensors->items()) {
    auto entry = entry_flexible(e, where, "tensors." + name);
    if (!entry) return entry.error();
    m.tensors[name] = std::move(*entry);
  }
  return m;
}

Result<WeightsManifest> read_manifest_file(const std::filesystem::path& path, bool strict) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  const std::string where = str_cat("failed to parse manifest JSON at `", path.string(), "`");
  return strict ? parse_manifest_strict(*text, where) : parse_manifest_flexible(*text, where);
}

std::string print_manifest(const WeightsManifest& m) {
  nlohmann::ordered_json root;
  root["format"] = m.format;
  root["version"] = m.version;
  root["endianness"] = m.endianness;
  auto& tensors = root["tensors"] = nlohmann::ordered_json::object();
  for (const auto& [name, e] : m.tensors) {
    nlohmann::ordered_json entry;
    entry["dataType"] = std::string(data_type_name(e.dataType));
    entry["shape"] = e.shape;
    entry["byteOffset"] = e.byteOffset;
    entry["byteLength"] = e.byteLength;
    entry["layout"] = e.layout ? nlohmann::ordered_json(*e.layout) : nlohmann::ordered_json();
    tensors[name] = std::move(entry);
  }
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace cppnn::formats
