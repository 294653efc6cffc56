// NumPy .npy files (format versions 1.0, 2.0 and 3.0; little-endian, C order) for the tensors of
// `cppnn run`: dtypes <f4 <f2 <i4 <u4 <i8 <u8 |i1 |u1 (and their '=' / '<' / '|' spellings),
// mapped to the WebNN operand types of the same layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"
#include "src/core/result.h"

namespace cppnn::tool {

// One array: its WebNN data type, shape (uint32 dimensions) and raw little-endian bytes.
struct NpyArray {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;
  std::vector<std::byte> data;
};

// Parses .npy bytes. A DataError naming `file_name` for a bad magic, an unsupported version or
// dtype (big-endian, Fortran order, object arrays ...), a malformed header dictionary, a shape
// whose byte size overflows, or a data length that does not match the header.
Result<NpyArray> parse_npy(std::span<const std::byte> bytes, std::string_view file_name);
// The .npy bytes of `array` (version 1.0 header, 2.0 when the header needs more than 65535
// bytes). A TypeError for int4/uint4 (no NumPy dtype) or data that does not match the shape.
Result<std::vector<std::byte>> format_npy(const NpyArray& array);

// The NumPy dtype string of a data type ("<f4"), empty for int4/uint4.
std::string_view npy_dtype(MLOperandDataType t);

// Reads / writes (atomically) a .npy file.
Result<NpyArray> read_npy_file(const std::string& path);
Status write_npy_file(const std::string& path, const NpyArray& array);

}  // namespace cppnn::tool
