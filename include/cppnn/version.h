// cppnn version.
#pragma once

#define CPPNN_VERSION_MAJOR 0
#define CPPNN_VERSION_MINOR 1
#define CPPNN_VERSION_PATCH 0
#define CPPNN_VERSION_STRING "0.1.0"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {
// The library version string ("0.1.0").
const char* version() noexcept;
}  // namespace cppnn

#pragma GCC visibility pop
