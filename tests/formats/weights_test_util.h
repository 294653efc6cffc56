// Helpers for the external-weights tests (tests/formats/weights_*_test.cpp): a scratch folder per
// test, file writing, and hand-made SafeTensors archives for malformed-input cases.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace cppnn::formats::testing {

// A fresh folder under the system temp folder, removed with its contents at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "cppnn-weights-XXXXXX").string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = name.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // The names of the files in the folder, sorted.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::vector<std::byte> to_bytes(std::string_view s) {
  std::vector<std::byte> b(s.size());
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
  return b;
}

inline void write_file(const std::filesystem::path& p, std::span<const std::byte> bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}
inline void write_file(const std::filesystem::path& p, std::string_view text) {
  write_file(p, to_bytes(text));
}

inline std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return to_bytes(s);
}

// An archive from a header text (written as is, with its length) and a data buffer.
inline std::vector<std::byte> safetensors_bytes(std::string_view header,
                                                std::span<const std::byte> data = {}) {
  std::vector<std::byte> out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>(n >> (8 * i));
  auto h = to_bytes(header);
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// Little-endian bytes of a list of values.
template <class T>
std::vector<std::byte> le_bytes(std::initializer_list<T> values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  size_t i = 0;
  for (T v : values) {
    std::memcpy(out.data() + i, &v, sizeof(T));
    i += sizeof(T);
  }
  return out;
}

// The message of a failed Result, or "" when it succeeded.
template <class T>
std::string error_of(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().message;
}

}  // namespace cppnn::formats::testing
