// Checks on names and strings from untrusted sources (docs/security.md "Names"): every name and
// string that a graph file or an ONNX model brings in must be valid UTF-8 without NUL bytes, so
// that it round-trips through every format; API names must be valid UTF-8 (NUL allowed, as the
// spec's USVString and WPT unprintableNames say; the ONNX export replaces it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cppnn {

// Strict UTF-8 (RFC 3629): no overlong forms, surrogates or values past U+10FFFF.
bool is_valid_utf8(std::string_view text);

// Why `name` is not acceptable ("contains a NUL byte at offset 3", "is not valid UTF-8 at byte
// 5"), or nullopt when it is.
std::optional<std::string> name_problem(std::string_view name);

// Why `name` is not valid UTF-8 ("is not valid UTF-8 (at byte 5)"), or nullopt. The API's rule:
// WebNN names are USVStrings, which may hold NUL (WPT unprintableNames) but are Unicode.
std::optional<std::string> utf8_problem(std::string_view name);

// `text` for an error message: printable ASCII as is, other bytes as \xNN, quoted, at most
// `max_chars` shown.
std::string quoted_for_message(std::string_view text, size_t max_chars = 80);

}  // namespace cppnn
