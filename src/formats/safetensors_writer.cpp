#include "src/formats/safetensors_writer.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "src/core/atomic_file.h"
#include "src/core/checked_math.h"
#include "src/formats/safetensors_header.h"
#include "src/formats/weights_io.h"
#include "src/formats/weights_provider.h"

namespace cppnn::formats {
namespace {

template <class... A>
ErrorInfo write_fail(const std::filesystem::path& dest, const A&... a) {
  return ErrorInfo{ErrorKind::kDataError,
                   str_cat("[safetensors] cannot write `", dest.string(), "`: ", a...)};
}

}  // namespace

Status write_safetensors_into(AtomicFile& file, std::vector<SafeTensorsTensor> tensors,
                              const std::map<std::string, std::string>& metadata) {
  const std::filesystem::path& dest = file.destination();
  std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) {
    const unsigned sa = st_dtype_size(a.dtype), sb = st_dtype_size(b.dtype);
    return sa != sb ? sa > sb : a.name < b.name;
  });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  for (const auto& [k, v] : metadata)
    if (!is_valid_utf8(k) || !is_valid_utf8(v))
      return write_fail(dest, "a metadata entry is not valid UTF-8");
  if (!metadata.empty()) {
    auto& meta = header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) meta[k] = v;
  }
  uint64_t offset = 0;
  std::set<std::string_view> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const SafeTensorsTensor& t = tensors[i];
    if (!names.insert(t.name).second)
      return write_fail(dest, "tensor `", t.name, "` is given twice");
    if (!is_valid_utf8(t.name)) return write_fail(dest, "a tensor name is not valid UTF-8");
    if (t.name == "__metadata__") return write_fail(dest, "`__metadata__` is not a tensor name");
    std::optional<uint64_t> size = st_dtype_size(t.dtype);
    for (uint64_t d : t.shape)
      if (size) size = checked_mul(*size, d);
    if (!size) return write_fail(dest, "tensor `", t.name, "`: the shape overflows 64-bit sizes");
    if (*size != t.bytes.size())
      return write_fail(dest, "tensor `", t.name, "`: ", st_dtype_name(t.dtype), " ",
                        st_shape_string(t.shape), " needs ", *size, " bytes, got ", t.bytes.size());
    nlohmann::ordered_json entry;
    entry["dtype"] = std::string(st_dtype_name(t.dtype));
    entry["shape"] = t.shape;
    entry["data_offsets"] = {offset, offset + *size};
    header[t.name] = std::move(entry);
    offset += *size;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::byte length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<std::byte>(uint64_t{text.size()} >> (8 * i));

  CPPNN_RETURN_IF_ERROR(file.write(std::span<const std::byte>(length, 8)));
  CPPNN_RETURN_IF_ERROR(file.write(text));
  for (const SafeTensorsTensor& t : tensors) CPPNN_RETURN_IF_ERROR(file.write(t.bytes));
  return Ok{};
}

Status write_safetensors_file(const std::filesystem::path& dest,
                              std::vector<SafeTensorsTensor> tensors,
                              const std::map<std::string, std::string>& metadata) {
  auto file = AtomicFile::create(dest);
  if (!file) return file.error();
  CPPNN_RETURN_IF_ERROR(write_safetensors_into(*file, std::move(tensors), metadata));
  return file->commit();
}

Status write_weights_safetensors(const std::filesystem::path& dest,
                                 std::span<const WeightToWrite> weights) {
  auto file = AtomicFile::create(dest);
  if (!file) return file.error();
  CPPNN_RETURN_IF_ERROR(write_weights_into(*file, weights));
  return file->commit();
}

Status write_weights_into(AtomicFile& file, std::span<const WeightToWrite> weights) {
  const std::filesystem::path& dest = file.destination();
  // Distinct names; a name given twice must carry the same declaration and bytes.
  std::map<std::string, const WeightToWrite*> by_name;
  for (const WeightToWrite& w : weights) {
    const auto expected = declared_byte_length(w.descriptor);
    if (!expected)
      return write_fail(dest, "weight `", w.name, "`: ", to_string(w.descriptor),
                        " overflows 64-bit sizes");
    if (*expected != w.bytes.size())
      return write_fail(dest, "weight `", w.name, "`: ", to_string(w.descriptor), " needs ",
                        *expected, " bytes, got ", w.bytes.size());
    auto [it, inserted] = by_name.emplace(w.name, &w);
    if (inserted) continue;
    const WeightToWrite& first = *it->second;
    if (!(first.descriptor == w.descriptor))
      return write_fail(dest, "weight `", w.name, "` is declared both ",
                        to_string(first.descriptor), " and ", to_string(w.descriptor));
    if (first.bytes.size() != w.bytes.size() ||
        (!w.bytes.empty() && std::memcmp(first.bytes.data(), w.bytes.data(), w.bytes.size()) != 0))
      return write_fail(dest, "weight `", w.name, "` is given twice with different bytes");
  }
  std::vector<SafeTensorsTensor> tensors;
  std::vector<std::vector<std::byte>> fixed;  // packed tensors whose padding nibble was cleared
  fixed.reserve(by_name.size());
  bool packed4 = false;
  for (const auto& [name, w] : by_name) {
    SafeTensorsTensor t{name, st_dtype_for(w->descriptor.dataType), {}, w->bytes};
    if (data_type_bits(w->descriptor.dataType) == 4) {
      packed4 = true;
      const uint64_t n = *declared_element_count(w->descriptor);
      t.shape = {n / 2 + n % 2};
      if (n % 2 == 1 && (static_cast<uint8_t>(w->bytes.back()) & 0xf0) != 0) {
        fixed.emplace_back(w->bytes.begin(), w->bytes.end());
        fixed.back().back() &= std::byte{0x0f};
        t.bytes = fixed.back();
      }
    } else {
      t.shape.assign(w->descriptor.shape.begin(), w->descriptor.shape.end());
    }
    tensors.push_back(std::move(t));
  }
  std::map<std::string, std::string> metadata;
  if (packed4)
    metadata.emplace(std::string(kPacked4MetadataKey), std::string(kPacked4MetadataVersion));
  return write_safetensors_into(file, std::move(tensors), metadata);
}

}  // namespace cppnn::formats
