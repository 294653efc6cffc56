#include "src/formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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

namespace {

// madvise(MADV_DONTNEED) on the whole pages inside `bytes`: the mapping is read-only and private,
// so they are read back from the file when touched again (never zeros).
void release_mapped_pages(std::span<const std::byte> bytes) {
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + bytes.size()) / page * page;
  if (page > 0 && last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

ConstantData MappedFile::constant_view(std::shared_ptr<const MappedFile> self,
                                       std::span<const std::byte> bytes) {
  return ConstantData::mapped_view(std::move(self), bytes, &release_mapped_pages);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace cppnn::formats
