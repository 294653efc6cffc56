#include "src/formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "src/core/input_file.h"

namespace cppnn::formats {
namespace {

ErrorInfo io_error(const std::filesystem::path& path, const char* what, int err) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("failed to read `", path.string(), "`: ", what,
                                                  ": ", std::strerror(err))};
}

}  // namespace

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::filesystem::path& path) {
  auto file = InputFile::open(path);  // regular files only, never blocking (src/core/input_file.h)
  if (!file) return file.error();
  if (file->size() > static_cast<uint64_t>(SIZE_MAX)) return io_error(path, "cannot map", EFBIG);
  const auto size = static_cast<size_t>(file->size());
  const std::byte* data = nullptr;
  if (size > 0) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->fd(), 0);
    if (p == MAP_FAILED) return io_error(path, "cannot map", errno);
    data = static_cast<const std::byte*>(p);
  }
  return std::shared_ptr<const MappedFile>(new MappedFile(path, data, size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace cppnn::formats
