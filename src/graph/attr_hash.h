// A stable 64-bit hasher (FNV-1a over little-endian encodings) and attribute hashing through the
// options reflection, for Graph::content_hash().
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cppnn/op_type.h"

namespace cppnn {

// FNV-1a, fed with fixed-width little-endian values so results match across machines.
class Hasher {
 public:
  void add_bytes(std::span<const std::byte> b) {
    add(uint64_t{b.size()});
    for (std::byte x : b) step(static_cast<uint8_t>(x));
  }
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) step(static_cast<uint8_t>(v >> (8 * i)));
  }
  void add(const std::string& s) { add_bytes(std::as_bytes(std::span(s.data(), s.size()))); }
  void add(const std::vector<uint32_t>& v) {
    add(uint64_t{v.size()});
    for (uint32_t x : v) add(uint64_t{x});
  }
  uint64_t value() const { return h_; }

 private:
  void step(uint8_t b) {
    h_ ^= b;
    h_ *= 0x100000001b3ull;
  }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

// Hashes one op's attributes (params and every reflected option field).
void hash_attributes(Hasher& h, const OpAttributes& attrs);

}  // namespace cppnn
