#include "src/import/gguf/gguf_file.h"

#include <cstdio>

#include "src/formats/mapped_file.h"

namespace cppnn::gguf {

Result<std::shared_ptr<const GgufFile>> GgufFile::open(const std::filesystem::path& path) {
  auto mapped = formats::MappedFile::open(path);  // regular files only (src/core/input_file.h)
  if (!mapped) return mapped.error();
  const std::span<const std::byte> bytes = (*mapped)->bytes();
  return parse(bytes, std::move(*mapped), path.string());
}

const GgufValue* GgufFile::find(std::string_view key) const {
  auto it = key_index_.find(key);
  return it == key_index_.end() ? nullptr : &metadata_[it->second].value;
}

const GgufTensor* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

template <class T, class Convert>
Result<std::optional<T>> GgufFile::lookup(std::string_view key, Convert convert) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return std::optional<T>();
  auto r = convert(*v);
  if (!r) return error("key ", quoted_name(key), ": ", r.error().message);
  return std::optional<T>(T(std::move(*r)));
}

namespace {

// The value of a present key, or a DataError naming the missing key.
template <class T>
Result<T> required(const GgufFile& f, std::string_view key, Result<std::optional<T>> r) {
  if (!r) return r.error();
  if (!*r) return f.error("missing key ", quoted_name(key));
  return std::move(**r);
}

}  // namespace

Result<std::optional<uint64_t>> GgufFile::find_uint(std::string_view key) const {
  return lookup<uint64_t>(key, value_as_uint);
}
Result<std::optional<int64_t>> GgufFile::find_int(std::string_view key) const {
  return lookup<int64_t>(key, value_as_int);
}
Result<std::optional<double>> GgufFile::find_float(std::string_view key) const {
  return lookup<double>(key, value_as_float);
}
Result<std::optional<bool>> GgufFile::find_bool(std::string_view key) const {
  return lookup<bool>(key, value_as_bool);
}
Result<std::optional<std::string>> GgufFile::find_string(std::string_view key) const {
  return lookup<std::string>(key, value_as_string);
}
Result<std::optional<std::vector<std::string_view>>> GgufFile::find_string_array(
    std::string_view key) const {
  return lookup<std::vector<std::string_view>>(key, value_as_string_array);
}
Result<std::optional<std::vector<int64_t>>> GgufFile::find_int_array(std::string_view key) const {
  return lookup<std::vector<int64_t>>(key, value_as_int_array);
}
Result<std::optional<std::vector<double>>> GgufFile::find_float_array(std::string_view key) const {
  return lookup<std::vector<double>>(key, value_as_float_array);
}

Result<uint64_t> GgufFile::get_uint(std::string_view key) const {
  return required(*this, key, find_uint(key));
}
Result<int64_t> GgufFile::get_int(std::string_view key) const {
  return required(*this, key, find_int(key));
}
Result<double> GgufFile::get_float(std::string_view key) const {
  return required(*this, key, find_float(key));
}
Result<bool> GgufFile::get_bool(std::string_view key) const {
  return required(*this, key, find_bool(key));
}
Result<std::string> GgufFile::get_string(std::string_view key) const {
  return required(*this, key, find_string(key));
}
Result<std::vector<std::string_view>> GgufFile::get_string_array(std::string_view key) const {
  return required(*this, key, find_string_array(key));
}
Result<std::vector<int64_t>> GgufFile::get_int_array(std::string_view key) const {
  return required(*this, key, find_int_array(key));
}
Result<std::vector<double>> GgufFile::get_float_array(std::string_view key) const {
  return required(*this, key, find_float_array(key));
}

std::string quoted_name(std::string_view text) {
  constexpr size_t kMaxShown = 200;
  std::string out = "`";
  size_t shown = 0;
  for (char ch : text) {
    if (shown++ == kMaxShown) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '`') {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "`";
}

}  // namespace cppnn::gguf
