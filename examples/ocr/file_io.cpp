// POSIX reads: open with O_NONBLOCK, fstat the descriptor (so the checked file is the one read),
// then read it in one buffer.
#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ocr {
namespace {

// Closes a descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<unsigned char> read_regular_file(const std::string& path, const std::string& what,
                                             uint64_t max_bytes) {
  auto fail = [&](const std::string& reason) {
    return std::runtime_error("cannot read " + what + " " + path + ": " + reason);
  };
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) throw fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("it is a directory");
  if (!S_ISREG(st.st_mode)) throw fail("not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    throw fail("the file has " + std::to_string(size) + " bytes, more than the limit of " +
               std::to_string(max_bytes));
  std::vector<unsigned char> data(static_cast<size_t>(size));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::read(f.fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(std::strerror(errno));
    if (n == 0) break;  // the file shrank while being read
    done += static_cast<size_t>(n);
  }
  data.resize(done);
  return data;
}

std::string regular_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
  return "";
}

}  // namespace ocr
