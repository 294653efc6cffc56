// Packed 4-bit storage (int4/uint4 weights): two values per byte, the first in the low nibble.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// Packs signed values in -8..7 (int4) into ceil(n/2) bytes; an odd count leaves the last high
// nibble 0. Throws TypeError for a value out of range.
std::vector<std::byte> pack_int4(std::span<const int8_t> values);
// Packs unsigned values in 0..15 (uint4); throws TypeError for a value out of range.
std::vector<std::byte> pack_uint4(std::span<const uint8_t> values);
// Unpacks `count` int4 values (sign-extended); throws TypeError if `bytes` is too short.
std::vector<int8_t> unpack_int4(std::span<const std::byte> bytes, size_t count);
// Unpacks `count` uint4 values; throws TypeError if `bytes` is too short.
std::vector<uint8_t> unpack_uint4(std::span<const std::byte> bytes, size_t count);

}  // namespace cppnn

#pragma GCC visibility pop
