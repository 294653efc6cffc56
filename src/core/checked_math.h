// Checked 64-bit size arithmetic (overflow is reported, never wrapped).
#pragma once

#include <cstdint>
#include <optional>

namespace cppnn {

// a*b, or nullopt on uint64 overflow.
inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
// a+b, or nullopt on uint64 overflow.
inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace cppnn
