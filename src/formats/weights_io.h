// Small file helpers for the weight formats (webnn-graph-format.md §7, §8).
#pragma once

#include <filesystem>
#include <string>

#include "src/core/result.h"
#include "src/core/text_check.h"

namespace cppnn::formats {

// The whole file as bytes in a string; DataError "failed to read `<path>`: <reason>".
Result<std::string> read_text_file(const std::filesystem::path& path);

// True when `name` can be used as one file name component (`D/<name>.bin`): not empty, not `.`
// or `..`, no `/`, `\` or NUL. Weight names with path separators would escape the folder.
bool is_safe_file_stem(std::string_view name);

}  // namespace cppnn::formats

namespace cppnn::formats {

// True when `text` is well-formed UTF-8 (JSON strings must be; src/core/text_check.h).
using cppnn::is_valid_utf8;

}  // namespace cppnn::formats
