// The GGUF reader (the GGUF specification, ggml's docs/gguf.md; versions 2 and 3, little-endian):
// a mapped file's header, metadata and tensor infos, every size and offset checked, tensor data
// served as views into the mapping (never copied). Every failure is a DataError whose message
// starts with "GGUF `<file>`: " and names the key or tensor it is about.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/core/result.h"
#include "src/import/gguf/gguf_kind.h"
#include "src/import/gguf/gguf_value.h"

namespace cppnn::gguf {

// The alignment of the data section and of every tensor offset when the file has no
// `general.alignment` (GGUF's GGUF_DEFAULT_ALIGNMENT).
inline constexpr uint32_t kDefaultAlignment = 32;
// The most dimensions a tensor may have (ggml's GGML_MAX_DIMS).
inline constexpr uint32_t kMaxDims = 4;
// The deepest nesting of arrays in metadata (an array of arrays is depth 2).
inline constexpr uint32_t kMaxArrayDepth = 8;

// One metadata entry, in file order.
struct GgufKeyValue {
  std::string_view key;  // a view into the file: valid UTF-8, no NUL, not empty
  GgufValue value;
};

// One tensor of the file.
struct GgufTensor {
  std::string name;            // valid UTF-8, no NUL, not empty, unique in the file
  std::vector<uint64_t> dims;  // ggml order: dims[0] (ne[0]) varies fastest (the row length)
  GgufKind kind = GgufKind::kF32;
  uint64_t offset = 0;                // relative to the data section, a multiple of the alignment
  uint64_t element_count = 0;         // product of dims
  uint64_t byte_size = 0;             // element_count / block * block_bytes of the kind
  std::span<const std::byte> data;    // the tensor's bytes in the mapping
  std::shared_ptr<const void> owner;  // keeps `data` valid (for ConstantData::view)
};

// A parsed GGUF file. Immutable; shares ownership of its bytes.
class GgufFile {
 public:
  // Maps `path` read-only (src/formats/mapped_file.h) and parses it; errors name `path`.
  static Result<std::shared_ptr<const GgufFile>> open(const std::filesystem::path& path);
  // Parses `bytes`, kept valid by `keep_alive` (may be null when the caller keeps the bytes alive
  // longer than the result); `name` names the file in messages.
  static Result<std::shared_ptr<const GgufFile>> parse(std::span<const std::byte> bytes,
                                                       std::shared_ptr<const void> keep_alive,
                                                       std::string name);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // file offset of the data section
  uint64_t file_size() const { return bytes_.size(); }
  const std::shared_ptr<const void>& owner() const { return owner_; }

  // Metadata in file order, and lookup by key (nullptr when absent).
  const std::vector<GgufKeyValue>& metadata() const { return metadata_; }
  const GgufValue* find(std::string_view key) const;

  // Typed getters: a DataError naming the key when it is absent or has the wrong type
  // (gguf_value.h says which types each accepts and the range checks).
  Result<uint64_t> get_uint(std::string_view key) const;
  Result<int64_t> get_int(std::string_view key) const;
  Result<double> get_float(std::string_view key) const;
  Result<bool> get_bool(std::string_view key) const;
  Result<std::string> get_string(std::string_view key) const;
  // Views into the mapping: valid while this GgufFile lives.
  Result<std::vector<std::string_view>> get_string_array(std::string_view key) const;
  Result<std::vector<int64_t>> get_int_array(std::string_view key) const;
  Result<std::vector<double>> get_float_array(std::string_view key) const;

  // The same, but nullopt when the key is absent (still an error when it has the wrong type).
  Result<std::optional<uint64_t>> find_uint(std::string_view key) const;
  Result<std::optional<int64_t>> find_int(std::string_view key) const;
  Result<std::optional<double>> find_float(std::string_view key) const;
  Result<std::optional<bool>> find_bool(std::string_view key) const;
  Result<std::optional<std::string>> find_string(std::string_view key) const;
  Result<std::optional<std::vector<std::string_view>>> find_string_array(
      std::string_view key) const;
  Result<std::optional<std::vector<int64_t>>> find_int_array(std::string_view key) const;
  Result<std::optional<std::vector<double>>> find_float_array(std::string_view key) const;

  // Tensors in file order, and lookup by name (nullptr when absent).
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  const GgufTensor* find_tensor(std::string_view name) const;

  // A DataError "GGUF `<file>`: <pieces>" (for consumers reporting problems with this file).
  template <class... A>
  ErrorInfo error(const A&... a) const {
    return ErrorInfo{ErrorKind::kDataError, str_cat("GGUF `", name_, "`: ", a...)};
  }

  GgufFile() = default;  // use open() or parse()
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

 private:
  friend class GgufParser;
  template <class T, class Convert>
  Result<std::optional<T>> lookup(std::string_view key, Convert convert) const;

  std::string name_;
  std::span<const std::byte> bytes_;
  std::shared_ptr<const void> owner_;
  uint32_t version_ = 0;
  uint32_t alignment_ = kDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<GgufKeyValue> metadata_;
  std::unordered_map<std::string_view, size_t> key_index_;
  std::vector<GgufTensor> tensors_;
  std::unordered_map<std::string_view, size_t> tensor_index_;  // names: views into bytes_
};

// `text` for a message in backquotes, bytes outside printable ASCII as \xNN, at most 200 shown.
std::string quoted_name(std::string_view text);

}  // namespace cppnn::gguf
