// The SafeTensors container header (webnn-graph-format.md §7.2 "Container"): a u64 little-endian
// length N, N bytes of JSON, then the data buffer. Parsing checks everything the stock library
// checks, so every later range access is in bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/formats/safetensors_dtype.h"

namespace cppnn::formats {

// The largest header the reader accepts (the stock library's limit).
inline constexpr uint64_t kMaxSafeTensorsHeader = 100'000'000;

// One tensor of the archive: offsets are relative to the data buffer, [begin, end).
struct SafeTensorsEntry {
  StDtype dtype = StDtype::kU8;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;
};

// A parsed, validated header.
struct SafeTensorsHeader {
  uint64_t data_start = 0;                          // 8 + N: where the data buffer starts
  std::map<std::string, SafeTensorsEntry> tensors;  // by name
  std::map<std::string, std::string> metadata;      // "__metadata__"
};

// Parses and validates the header of the archive `file` (the whole file). Rejects (DataError
// "[safetensors] `<where>`: ..."): a file under 8 bytes; N over kMaxSafeTensorsHeader or past the
// end; a header that is not a JSON object starting with `{`; a duplicate tensor name;
// a tensor without a known dtype, a shape of non-negative integers or two data_offsets; a
// metadata value that is not a string; ranges that end before they begin, overlap, leave gaps or
// do not cover the data buffer exactly; a byte length other than numel x dtype size; overflow.
Result<SafeTensorsHeader> parse_safetensors_header(std::span<const std::byte> file,
                                                   std::string_view where);

// "[2, 3]" rendering of a stored shape.
std::string st_shape_string(const std::vector<uint64_t>& shape);

}  // namespace cppnn::formats
