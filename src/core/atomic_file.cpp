#include "src/core/atomic_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "src/core/input_file.h"

namespace cppnn {
namespace fs = std::filesystem;

namespace {

ErrorInfo write_error(const fs::path& path, const char* what, int err) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("failed to write `", path.string(), "`: ", what,
                                                  err ? ": " : "", err ? std::strerror(err) : "")};
}

fs::path folder_of(const fs::path& dest) {
  return dest.has_parent_path() ? dest.parent_path() : fs::path(".");
}

// The live temporaries of this process, for the signal handler: fixed slots of C strings so
// that the handler only reads atomics and calls unlink (both async-signal-safe).
std::array<std::atomic<char*>, 256> g_temporaries{};

void track(const fs::path& temp) {
  char* copy = ::strdup(temp.c_str());
  if (copy == nullptr) return;
  for (auto& slot : g_temporaries) {
    char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy)) return;
  }
  std::free(copy);  // more than 256 at once: those are only removed by the destructor
}

void untrack(const fs::path& temp) {
  for (auto& slot : g_temporaries) {
    char* p = slot.load();
    if (p != nullptr && temp == p && slot.compare_exchange_strong(p, nullptr)) {
      std::free(p);
      return;
    }
  }
}

// Holds SIGINT, SIGTERM and SIGHUP back for its scope (this thread), so that a temporary is
// created and tracked as one step: a signal in between would leave it behind.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    held_ = ::pthread_sigmask(SIG_BLOCK, &set, &old_) == 0;
  }
  ~SignalsHeld() {
    if (held_) ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_{};
  bool held_ = false;
};

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (auto& slot : g_temporaries)
    if (char* p = slot.load()) ::unlink(p);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void sync_folder(const fs::path& dest) {
  // Makes renames durable (best effort: some file systems refuse fsync on folders).
  const int dir = ::open(folder_of(dest).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const fs::path& dest) {
  if (!dest.has_filename())
    return ErrorInfo{ErrorKind::kDataError, str_cat("failed to write `", dest.string(),
                                                    "`: the path does not name a file")};
  struct stat st {};
  const bool exists = ::stat(dest.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return ErrorInfo{ErrorKind::kDataError, str_cat("failed to write `", dest.string(),
                                                    "`: it exists and is not a ", "regular file")};
  std::string pattern = folder_of(dest).string();
  pattern.append("/.").append(dest.filename().string()).append(".tmp-XXXXXX");
  int fd = -1;
  {
    const SignalsHeld held;  // a pending SIGTERM is delivered once the temporary is tracked
    fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) return write_error(dest, "cannot create a temporary file beside it", errno);
    track(pattern);
  }
  // mkostemp makes the file private (0600); give it the destination's mode, or rw-r--r--.
  ::fchmod(fd, exists ? (st.st_mode & 0777) : 0644);
  return AtomicFile(dest, fs::path(pattern), fd);
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
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    untrack(temp_);
  }
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

Status AtomicFile::append_file(const fs::path& source, uint64_t size) {
  auto in = InputFile::open(source);
  if (!in) {
    discard();
    return in.error();
  }
  std::vector<std::byte> buffer(size_t{1} << 20);
  uint64_t done = 0;
  while (done < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(size - done, buffer.size()));
    const std::span<std::byte> chunk(buffer.data(), want);
    if (auto s = in->read_at(done, chunk); !s) {
      discard();
      return s;
    }
    CPPNN_RETURN_IF_ERROR(write(chunk));
    done += want;
  }
  return Ok{};
}

Status AtomicFile::flush_and_close() {
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
  return Ok{};
}

Status AtomicFile::commit() {
  CPPNN_RETURN_IF_ERROR(flush_and_close());
  if (::rename(temp_.c_str(), dest_.c_str()) != 0) {
    const int err = errno;
    discard();
    return write_error(dest_, "rename failed", err);
  }
  untrack(temp_);
  temp_.clear();
  sync_folder(dest_);
  return Ok{};
}

Status commit_together(std::span<AtomicFile* const> files) {
  auto discard_all = [&] {
    for (AtomicFile* f : files) f->discard();
  };
  for (AtomicFile* f : files) {
    if (auto s = f->flush_and_close(); !s) {
      discard_all();
      return s;
    }
  }
  // Keep each previous destination as a hard link beside it until every rename is done.
  std::vector<fs::path> backups(files.size());
  auto drop_backups = [&] {
    for (const fs::path& b : backups)
      if (!b.empty()) {
        ::unlink(b.c_str());
        untrack(b);
      }
  };
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    if (::lstat(files[i]->dest_.c_str(), &st) != 0) continue;  // no previous file
    fs::path backup = files[i]->temp_;
    backup += ".old";
    if (::link(files[i]->dest_.c_str(), backup.c_str()) != 0) {
      const int err = errno;
      drop_backups();
      discard_all();
      return write_error(files[i]->dest_, "cannot keep the previous file while writing", err);
    }
    track(backup);
    backups[i] = backup;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (::rename(files[i]->temp_.c_str(), files[i]->dest_.c_str()) == 0) {
      untrack(files[i]->temp_);
      files[i]->temp_.clear();
      continue;
    }
    const int err = errno;
    // Put back what the earlier renames replaced (or remove what they created).
    for (size_t j = 0; j < i; ++j) {
      if (!backups[j].empty()) {
        ::rename(backups[j].c_str(), files[j]->dest_.c_str());
        untrack(backups[j]);
        backups[j].clear();
      } else {
        ::unlink(files[j]->dest_.c_str());
      }
    }
    drop_backups();
    discard_all();
    return write_error(files[i]->dest_, "rename failed (no file was changed)", err);
  }
  drop_backups();
  for (AtomicFile* f : files) sync_folder(f->dest_);
  return Ok{};
}

Status write_file_atomically(const fs::path& dest, std::span<const std::byte> bytes) {
  auto file = AtomicFile::create(dest);
  if (!file) return file.error();
  CPPNN_RETURN_IF_ERROR(file->write(bytes));
  return file->commit();
}

Status write_file_atomically(const fs::path& dest, std::string_view text) {
  return write_file_atomically(dest,
                               std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Status check_output_is_not_input(const fs::path& output, std::span<const fs::path> inputs) {
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return Ok{};
  for (const fs::path& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      return ErrorInfo{ErrorKind::kDataError, str_cat("refusing to write `", output.string(),
                                                      "`: it is the input `", in.string(), "`")};
  }
  return Ok{};
}

void remove_temporaries_on_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace cppnn
