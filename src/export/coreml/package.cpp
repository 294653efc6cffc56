#include "src/export/coreml/package.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "cppnn/errors.h"
#include "src/core/atomic_file.h"

namespace cppnn::coreml_export {
namespace {

namespace fs = std::filesystem;

// FNV-1a 64 of `bytes` from `seed`: a stable hash (the same on every machine).
uint64_t fnv1a(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// A UUID-formatted identifier (version 4 and variant bits set) from hashes of both files.
std::string identifier(std::string_view model, std::string_view weights, uint64_t salt) {
  uint64_t hi = fnv1a(weights, fnv1a(model, 0xcbf29ce484222325ull ^ salt));
  uint64_t lo =
      fnv1a(weights, fnv1a(model, 0x84222325cbf29ce4ull ^ (salt * 0x9e3779b97f4a7c15ull)));
  hi = (hi & ~0xf000ull) | 0x4000ull;
  lo = (lo & ~(3ull << 62)) | (2ull << 62);
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", unsigned(hi >> 32),
                unsigned((hi >> 16) & 0xffff), unsigned(hi & 0xffff), unsigned(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffull));
  return out;
}

fs::path folder_of(const fs::path& p) {
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
  throw DataError("failed to write `" + path.string() + "`: " + what);
}

// A fresh private folder beside `dest` named `.<name>.<kind>-XXXXXX`.
fs::path make_temp_folder(const fs::path& dest, const char* kind) {
  std::string pattern =
      (folder_of(dest) / ("." + dest.filename().string() + "." + kind + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    fail(dest, std::string("cannot create a temporary folder beside it: ") + std::strerror(errno));
  return pattern;
}

void write_file(const fs::path& path, std::string_view bytes) {
  Result<AtomicFile> f = AtomicFile::create(path);
  if (!f) throw DataError(f.error().message);
  if (Status s = f->write(bytes); !s) throw DataError(s.error().message);
  if (Status s = f->commit(); !s) throw DataError(s.error().message);
}

// Removes a temporary folder (best effort) unless released.
class TempFolder {
 public:
  explicit TempFolder(fs::path p) : path_(std::move(p)) {}
  ~TempFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

}  // namespace

std::string manifest_json(std::string_view model_bytes, std::string_view weight_bytes) {
  const std::string model = identifier(model_bytes, weight_bytes, 1),
                    weights = identifier(model_bytes, weight_bytes, 2);
  return "{\n"
         "    \"fileFormatVersion\": \"1.0.0\",\n"
         "    \"itemInfoEntries\": {\n"
         "        \"" +
         model +
         "\": {\n"
         "            \"author\": \"com.apple.CoreML\",\n"
         "            \"description\": \"CoreML Model Specification\",\n"
         "            \"name\": \"model.mlmodel\",\n"
         "            \"path\": \"com.apple.CoreML/model.mlmodel\"\n"
         "        },\n"
         "        \"" +
         weights +
         "\": {\n"
         "            \"author\": \"com.apple.CoreML\",\n"
         "            \"description\": \"CoreML Model Weights\",\n"
         "            \"name\": \"weights\",\n"
         "            \"path\": \"com.apple.CoreML/weights\"\n"
         "        }\n"
         "    },\n"
         "    \"rootModelIdentifier\": \"" +
         model +
         "\"\n"
         "}\n";
}

void write_package(const fs::path& path, std::string_view model_bytes,
                   std::string_view weight_bytes) {
  if (!path.has_filename()) fail(path, "the path does not name a folder");
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) fail(path, "it is a symbolic link");
  if (exists && !(S_ISDIR(st.st_mode) && fs::is_regular_file(path / "Manifest.json")))
    fail(path, "it exists and is not an .mlpackage folder");

  TempFolder temp(make_temp_folder(path, "tmp"));
  ::chmod(temp.path().c_str(), 0755);
  const fs::path data = temp.path() / "Data" / "com.apple.CoreML";
  std::error_code ec;
  fs::create_directories(data / "weights", ec);
  if (ec) fail(path, "cannot create its folders: " + ec.message());
  write_file(data / "model.mlmodel", model_bytes);
  write_file(data / "weights" / "weight.bin", weight_bytes);
  write_file(temp.path() / "Manifest.json", manifest_json(model_bytes, weight_bytes));

  if (!exists) {
    if (::rename(temp.path().c_str(), path.c_str()) != 0)
      fail(path, std::string("cannot rename the new package into place: ") + std::strerror(errno));
    temp.release();
    return;
  }
  // Replace the old package: move it aside (renaming over an empty folder), move the new one in,
  // then remove the old one; if the second rename fails the old package goes back.
  TempFolder old(make_temp_folder(path, "old"));
  if (::rename(path.c_str(), old.path().c_str()) != 0)
    fail(path, std::string("cannot move the old package aside: ") + std::strerror(errno));
  if (::rename(temp.path().c_str(), path.c_str()) != 0) {
    const int err = errno;
    if (::rename(old.path().c_str(), path.c_str()) == 0) old.release();
    fail(path, std::string("cannot rename the new package into place: ") + std::strerror(err));
  }
  temp.release();
}

}  // namespace cppnn::coreml_export
