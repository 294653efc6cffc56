// Writing files (docs/security.md "Writing"): every file cppnn writes goes through AtomicFile.
// The bytes go to a uniquely named temporary beside the destination (mkostemp: O_EXCL, so a
// planted file or symlink is never followed), which is fsynced and renamed over the destination
// only on success; nothing is left behind on failure, and none on SIGINT/SIGTERM once
// remove_temporaries_on_signals() is installed. Several files written together commit with
// commit_together(): either every new file lands or every old one stays as it was.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace cppnn {

// One atomic write in progress. Destroying it without commit() removes the temporary file.
class AtomicFile {
 public:
  // Creates `.<name>.tmp-XXXXXX` beside `dest`; a DataError when the folder is not writable or
  // `dest` is a folder.
  static Result<AtomicFile> create(const std::filesystem::path& dest);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  // Appends bytes (retrying short writes).
  Status write(std::span<const std::byte> bytes);
  Status write(std::string_view text);
  // Appends `size` bytes read from the file at `source`; a DataError naming it when it is
  // shorter or not a regular file.
  Status append_file(const std::filesystem::path& source, uint64_t size);
  // fsync, close, rename over the destination, fsync the folder.
  Status commit();

  const std::filesystem::path& destination() const { return dest_; }
  const std::filesystem::path& temporary() const { return temp_; }

 private:
  friend Status commit_together(std::span<AtomicFile* const> files);
  AtomicFile(std::filesystem::path dest, std::filesystem::path temp, int fd)
      : dest_(std::move(dest)), temp_(std::move(temp)), fd_(fd) {}
  // fsync and close, keeping the temporary; on failure discards it.
  Status flush_and_close();
  void discard() noexcept;

  std::filesystem::path dest_, temp_;
  int fd_ = -1;
};

// Commits several files as one: each is flushed first, then renamed in order; when a rename
// fails, the destinations already replaced get their previous files back (kept as hard links
// until the end) and every temporary is removed.
Status commit_together(std::span<AtomicFile* const> files);
inline Status commit_together(std::initializer_list<AtomicFile*> files) {
  return commit_together(std::span<AtomicFile* const>(files.begin(), files.size()));
}

// Writes `bytes` to `dest` atomically.
Status write_file_atomically(const std::filesystem::path& dest, std::span<const std::byte> bytes);
Status write_file_atomically(const std::filesystem::path& dest, std::string_view text);

// A DataError when `output` is one of `inputs` (the same file, through any path or link): a
// tool must never overwrite what it reads. Paths that do not exist yet never match.
Status check_output_is_not_input(const std::filesystem::path& output,
                                 std::span<const std::filesystem::path> inputs);

// Installs SIGINT, SIGTERM and SIGHUP handlers (where the default action is set) that remove
// every live temporary of this process, then end it as the signal would. For programs, not
// libraries: the cppnn tool and the examples call it first thing.
void remove_temporaries_on_signals();

}  // namespace cppnn
