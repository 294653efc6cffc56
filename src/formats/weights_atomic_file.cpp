#include "src/formats/weights_atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cppnn::formats {
namespace {

ErrorInfo write_error(const std::filesystem::path& path, const char* what, int err) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("failed to write `", path.string(), "`: ", what,
                                                  ": ", std::strerror(err))};
}

std::filesystem::path folder_of(const std::filesystem::path& dest) {
  return dest.has_parent_path() ? dest.parent_path() : std::filesystem::path(".");
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::filesystem::path& dest) {
  if (!dest.has_filename())
    return ErrorInfo{ErrorKind::kDataError, str_cat("failed to write `", dest.string(),
                                                    "`: the path does not name a file")};
  std::string pattern =
      (folder_of(dest) / ("." + dest.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return write_error(dest, "cannot create a temporary file beside it", errno);
  // mkostemp makes the file private (0600); give it the destination's mode, or rw-r--r--.
  struct stat st {};
  ::fchmod(fd, ::stat(dest.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644);
  return AtomicFile(dest, std::filesystem::path(name.data()), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : dest_(std::move(other.dest_)), temp_(std::move(other.temp_)), fd_(other.fd_) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

Status AtomicFile::write(std::span<const std::byte> bytes) {
  if (fd_ < 0) return ErrorInfo{ErrorKind::kUnknownError, "atomic file: already closed"};
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      discard();
      return write_error(dest_, "write failed", err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return Ok{};
}

Status AtomicFile::write(std::string_view text) {
  return write(std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Status AtomicFile::append_file(const std::filesystem::path& source, uint64_t size) {
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return ErrorInfo{ErrorKind::kDataError,
                     str_cat("failed to open `", source.string(), "`: ", std::strerror(errno))};
  std::vector<std::byte> buffer(size_t{1} << 20);
  uint64_t left = size;
  while (left > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
    const ssize_t n = ::read(in, buffer.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      ::close(in);
      discard();
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("failed to read `", source.string(), "`: ",
                               err ? std::strerror(err) : "the file is shorter than expected")};
    }
    if (auto s = write(std::span<const std::byte>(buffer.data(), static_cast<size_t>(n))); !s) {
      ::close(in);
      return s;
    }
    left -= static_cast<uint64_t>(n);
  }
  ::close(in);
  return Ok{};
}

Status AtomicFile::commit() {
  if (fd_ < 0) return ErrorInfo{ErrorKind::kUnknownError, "atomic file: already closed"};
  if (::fsync(fd_) != 0) {
    const int err = errno;
    discard();
    return write_error(dest_, "fsync failed", err);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    discard();
    return write_error(dest_, "close failed", err);
  }
  if (::rename(temp_.c_str(), dest_.c_str()) != 0) {
    const int err = errno;
    discard();
    return write_error(dest_, "rename failed", err);
  }
  temp_.clear();
  // Make the rename itself durable (best effort: some file systems refuse fsync on folders).
  const int dir = ::open(folder_of(dest_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Ok{};
}

Status write_file_atomically(const std::filesystem::path& dest, std::span<const std::byte> bytes) {
  auto file = AtomicFile::create(dest);
  if (!file) return file.error();
  CPPNN_RETURN_IF_ERROR(file->write(bytes));
  return file->commit();
}

Status write_file_atomically(const std::filesystem::path& dest, std::string_view text) {
  return write_file_atomically(dest,
                               std::as_bytes(std::span<const char>(text.data(), text.size())));
}

}  // namespace cppnn::formats
