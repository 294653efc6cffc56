// A read-only memory-mapped file (cppnn extension for external weights, webnn-graph-format.md §7):
// weight tensors are views into the mapping, kept alive by shared ownership of this object.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "cppnn/graph_model.h"
#include "src/core/result.h"

namespace cppnn::formats {

// The whole file mapped read-only (PROT_READ, MAP_PRIVATE). Unmapped when the last owner goes.
// The file must not be truncated while mapped (callers must not modify a sidecar in use, §7.1).
class MappedFile {
 public:
  // Maps `path`; a DataError naming the path when it cannot be opened, is not a regular file or
  // cannot be mapped. An empty file gives an empty span.
  static Result<std::shared_ptr<const MappedFile>> open(const std::filesystem::path& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }
  // A view of `bytes` (inside this mapping, which `self` owns) whose ConstantData::release_pages()
  // drops its whole pages from resident memory.
  static ConstantData constant_view(std::shared_ptr<const MappedFile> self,
                                    std::span<const std::byte> bytes);

 private:
  MappedFile(std::filesystem::path path, const std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cppnn::formats
