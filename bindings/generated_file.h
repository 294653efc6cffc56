// Writing a file generated at build time (the Python stub, the TypeScript declarations): left
// alone when its content is unchanged (so nothing that depends on it rebuilds), else written to
// a temporary beside it and renamed over it, so a failed run never leaves half a file.
#pragma once

#include <string>
#include <string_view>

namespace cppnn::bindings {

// 0 on success; 1 after printing "<tool>: cannot write/replace <path>" to stderr.
int write_generated_file(const std::string& path, std::string_view text, std::string_view tool);

}  // namespace cppnn::bindings
