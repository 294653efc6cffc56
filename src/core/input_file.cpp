#include "src/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define CPPNN_HAVE_OPENAT2 1
#endif

#include "src/core/checked_math.h"

namespace cppnn {
namespace fs = std::filesystem;

namespace {

constexpr int kOpenFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a folder, not a regular file";
  if (S_ISFIFO(mode)) return "it is a FIFO, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  return "not a regular file";
}

// Checks that `fd` is a regular file and makes its reads blocking again; closes it on error.
Result<uint64_t> regular_file_size(int fd, const fs::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return read_error(path, std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return read_error(path, kind_of(st.st_mode));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return static_cast<uint64_t>(st.st_size);
}

// `relative` has no absolute root and no `..` part.
bool stays_lexically_inside(const fs::path& relative) {
  if (relative.empty() || relative.has_root_path()) return false;
  for (const auto& part : relative)
    if (part == "..") return false;
  return true;
}

// `inner` is `outer` or inside it (both canonical).
bool is_within(const fs::path& outer, const fs::path& inner) {
  auto o = outer.begin(), i = inner.begin();
  for (; o != outer.end(); ++o, ++i)
    if (i == inner.end() || *o != *i) return false;
  return true;
}

// Opens `relative` beneath `folder` with the kernel's RESOLVE_BENEATH (no escape through `..` or
// symlinks, race-free); -1 with errno ENOSYS where the kernel or a sandbox lacks openat2.
int open_beneath_kernel(const fs::path& folder, const fs::path& relative) {
#if defined(CPPNN_HAVE_OPENAT2) && defined(SYS_openat2)
  const int dir = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  struct open_how how {};
  how.flags = static_cast<uint64_t>(kOpenFlags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, dir, relative.c_str(), &how, sizeof how);
  const int err = errno;
  ::close(dir);
  errno = err;
  return static_cast<int>(fd);
#else
  (void)folder;
  (void)relative;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

ErrorInfo read_error(const fs::path& path, const std::string& what) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("failed to read `", path.string(), "`: ", what)};
}

Result<InputFile> InputFile::open(const fs::path& path) {
  if (path.empty()) return read_error(path, "empty path");
  const int fd = ::open(path.c_str(), kOpenFlags);
  if (fd < 0) return read_error(path, std::strerror(errno));
  auto size = regular_file_size(fd, path);
  if (!size) return size.error();
  return InputFile(path, fd, *size);
}

Result<InputFile> InputFile::open_beneath(const fs::path& folder, const fs::path& relative) {
  const fs::path shown = folder / relative;
  if (!stays_lexically_inside(relative))
    return read_error(shown, str_cat("the location `", relative.string(),
                                     "` must be a relative path inside `", folder.string(), "`"));
  int fd = open_beneath_kernel(folder, relative);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    // Without openat2: resolve every symlink and require the result inside the folder.
    std::error_code ec1, ec2;
    const fs::path real_folder = fs::canonical(folder, ec1);
    const fs::path real_file = fs::canonical(shown, ec2);
    if (ec1 || ec2) return read_error(shown, (ec1 ? ec1 : ec2).message());
    if (!is_within(real_folder, real_file)) {
      errno = EXDEV;
    } else {
      fd = ::open(real_file.c_str(), kOpenFlags);
    }
  }
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP)
      return read_error(shown, str_cat("it resolves outside `", folder.string(),
                                       "` (through a symlink); files an input names must stay "
                                       "inside its folder"));
    return read_error(shown, std::strerror(errno));
  }
  auto size = regular_file_size(fd, shown);
  if (!size) return size.error();
  return InputFile(shown, fd, *size);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InputFile::read_at(uint64_t offset, std::span<std::byte> out) const {
  const auto end = checked_add(offset, out.size());
  if (!end || *end > size_)
    return read_error(path_, str_cat("the range [", offset, ", +", out.size(), ") exceeds its ",
                                     size_, " bytes"));
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return read_error(path_, std::strerror(errno));
    if (n == 0) return read_error(path_, "the file is shorter than it was when opened");
    done += static_cast<size_t>(n);
  }
  return Ok{};
}

Result<std::string> InputFile::read_head(size_t max_bytes) const {
  std::string out(static_cast<size_t>(std::min<uint64_t>(max_bytes, size_)), '\0');
  CPPNN_RETURN_IF_ERROR(read_at(0, std::as_writable_bytes(std::span<char>(out))));
  return out;
}

Result<std::string> InputFile::read_all(uint64_t limit) const {
  if (size_ > limit)
    return read_error(path_, str_cat("the file has ", size_, " bytes, over the limit of ", limit));
  return read_head(static_cast<size_t>(size_));
}

Result<std::string> read_input_file(const fs::path& path, uint64_t limit) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  return file->read_all(limit);
}

}  // namespace cppnn
