#include "src/formats/weights_io.h"

#include "src/core/input_file.h"

namespace cppnn::formats {

Result<std::string> read_text_file(const std::filesystem::path& path) {
  return read_input_file(path);  // regular files only, bounded (src/core/input_file.h)
}

bool is_safe_file_stem(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char c : name)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

}  // namespace cppnn::formats
