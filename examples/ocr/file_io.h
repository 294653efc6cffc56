// Reading the OCR example's input files (images, fonts, graphs, keys) safely: only regular files,
// opened without blocking (a FIFO or a device never hangs the program), up to a size limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ocr {

// The whole content of the regular file `path`. Throws std::runtime_error
// "cannot read WHAT PATH: REASON" when it is missing, not a regular file (a directory, a FIFO,
// a device...), unreadable, or larger than `max_bytes`.
std::vector<unsigned char> read_regular_file(const std::string& path, const std::string& what,
                                             uint64_t max_bytes);

// Why `path` cannot be read as a regular file ("No such file or directory", "it is a
// directory", ...), or an empty string when it can.
std::string regular_file_problem(const std::string& path);

}  // namespace ocr
