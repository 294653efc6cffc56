// Reading untrusted files (docs/security.md "Reading"): every file cppnn reads goes through
// these calls. A file is opened without blocking (a FIFO or a device never hangs the reader), it
// must be a regular file, reads are bounded by a size limit checked before any allocation, and a
// file that an input names (ONNX external data) is opened beneath the input's folder, so neither
// `..`, an absolute path nor a symlink can lead outside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "src/core/result.h"

namespace cppnn {

// The largest file read whole into memory unless a caller gives its own limit (2 GiB: the
// protobuf and JSON limits of the formats cppnn reads whole).
inline constexpr uint64_t kMaxWholeFileBytes = uint64_t{2} << 30;

// An open regular file (read-only, close-on-exec), closed by the destructor.
class InputFile {
 public:
  // Opens `path`: a DataError "failed to read `path`: <why>" when it cannot be opened or is not
  // a regular file (a folder, FIFO, socket or device, named as such).
  static Result<InputFile> open(const std::filesystem::path& path);
  // Opens `relative` beneath `folder`: also a DataError when `relative` is empty or absolute, or
  // when it (through `..` or any symlink on the way) resolves outside `folder`.
  static Result<InputFile> open_beneath(const std::filesystem::path& folder,
                                        const std::filesystem::path& relative);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

  // Reads exactly `out.size()` bytes at `offset`; a DataError naming the file when it is shorter.
  Status read_at(uint64_t offset, std::span<std::byte> out) const;
  // Up to `max_bytes` from the start (fewer when the file is shorter).
  Result<std::string> read_head(size_t max_bytes) const;
  // The whole file; a DataError naming the file and both sizes when it is over `limit` bytes.
  Result<std::string> read_all(uint64_t limit = kMaxWholeFileBytes) const;

 private:
  InputFile(std::filesystem::path path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::filesystem::path path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// InputFile::open(path) and read_all(limit) in one call.
Result<std::string> read_input_file(const std::filesystem::path& path,
                                    uint64_t limit = kMaxWholeFileBytes);

// A DataError "failed to read `path`: <what>".
ErrorInfo read_error(const std::filesystem::path& path, const std::string& what);

}  // namespace cppnn
