// Atomic file output for weight files and manifests (webnn-graph-format.md §7.2 "Writer", §8
// pack-weights): a uniquely named temporary file in the destination folder, fsynced and renamed
// over the destination only on success; nothing is left behind on failure.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

#include "src/core/result.h"

namespace cppnn::formats {

// One atomic write in progress. Destroying it without commit() removes the temporary file.
class AtomicFile {
 public:
  // Creates `.<name>.tmp-XXXXXX` beside `dest`; a DataError when the folder is not writable.
  static Result<AtomicFile> create(const std::filesystem::path& dest);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  // Appends bytes (retrying short writes).
  Status write(std::span<const std::byte> bytes);
  Status write(std::string_view text);
  // Appends `size` bytes read from the file at `source`; a DataError naming it when it is
  // shorter.
  Status append_file(const std::filesystem::path& source, uint64_t size);
  // fsync, close, rename over the destination, fsync the folder.
  Status commit();

 private:
  AtomicFile(std::filesystem::path dest, std::filesystem::path temp, int fd)
      : dest_(std::move(dest)), temp_(std::move(temp)), fd_(fd) {}
  void discard() noexcept;

  std::filesystem::path dest_, temp_;
  int fd_ = -1;
};

// Writes `bytes` to `dest` atomically.
Status write_file_atomically(const std::filesystem::path& dest, std::span<const std::byte> bytes);
Status write_file_atomically(const std::filesystem::path& dest, std::string_view text);

}  // namespace cppnn::formats
