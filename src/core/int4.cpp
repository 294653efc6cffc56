#include "cppnn/int4.h"

#include <string>

#include "cppnn/errors.h"

namespace cppnn {
namespace {

// Packs 4-bit nibbles (already masked to 0..15), low nibble first.
template <class T>
std::vector<std::byte> pack_nibbles(std::span<const T> values) {
  std::vector<std::byte> out((values.size() + 1) / 2, std::byte{0});
  for (size_t i = 0; i < values.size(); ++i) {
    auto nibble = static_cast<uint8_t>(static_cast<uint8_t>(values[i]) & 0x0f);
    out[i / 2] |= std::byte(i % 2 ? nibble << 4 : nibble);
  }
  return out;
}

uint8_t nibble_at(std::span<const std::byte> bytes, size_t i) {
  auto b = static_cast<uint8_t>(bytes[i / 2]);
  return i % 2 ? static_cast<uint8_t>(b >> 4) : static_cast<uint8_t>(b & 0x0f);
}

void check_size(std::span<const std::byte> bytes, size_t count) {
  if (bytes.size() < count / 2 + count % 2)
    throw TypeError("unpack 4-bit: " + std::to_string(count) + " values need " +
                    std::to_string(count / 2 + count % 2) + " bytes, got " +
                    std::to_string(bytes.size()));
}

}  // namespace

std::vector<std::byte> pack_int4(std::span<const int8_t> values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] < -8 || values[i] > 7)
      throw TypeError("pack int4: value " + std::to_string(values[i]) + " at index " +
                      std::to_string(i) + " is outside -8..7");
  return pack_nibbles(values);
}

std::vector<std::byte> pack_uint4(std::span<const uint8_t> values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] > 15)
      throw TypeError("pack uint4: value " + std::to_string(values[i]) + " at index " +
                      std::to_string(i) + " is outside 0..15");
  return pack_nibbles(values);
}

std::vector<int8_t> unpack_int4(std::span<const std::byte> bytes, size_t count) {
  check_size(bytes, count);
  std::vector<int8_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint8_t n = nibble_at(bytes, i);
    out[i] = static_cast<int8_t>(n >= 8 ? static_cast<int>(n) - 16 : n);
  }
  return out;
}

std::vector<uint8_t> unpack_uint4(std::span<const std::byte> bytes, size_t count) {
  check_size(bytes, count);
  std::vector<uint8_t> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = nibble_at(bytes, i);
  return out;
}

}  // namespace cppnn
