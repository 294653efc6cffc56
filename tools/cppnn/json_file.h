// Writes a JSON document atomically (the runners' reports): parent folders created, a uniquely
// named temporary file beside the destination (src/core/atomic_file.h), renamed once complete.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace cppnn::tool {

// Writes `doc` (indent 1, invalid UTF-8 replaced) to `path`; the error message on failure.
std::optional<std::string> write_json_atomically(const std::filesystem::path& path,
                                                 const nlohmann::json& doc);

}  // namespace cppnn::tool
