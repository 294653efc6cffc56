#include "src/formats/weights_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace cppnn::formats {

Result<std::string> read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return ErrorInfo{ErrorKind::kDataError,
                     str_cat("failed to read `", path.string(), "`: it is a folder")};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ErrorInfo{ErrorKind::kDataError,
                     str_cat("failed to read `", path.string(), "`: ", std::strerror(errno))};
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad())
    return ErrorInfo{ErrorKind::kDataError, str_cat("failed to read `", path.string(), "`")};
  return os.str();
}

bool is_safe_file_stem(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char c : name)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

}  // namespace cppnn::formats

namespace cppnn::formats {

bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > text.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += len;
  }
  return true;
}

}  // namespace cppnn::formats
