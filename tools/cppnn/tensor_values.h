// Tensor contents for `cppnn run` and `cppnn bench`: generated inputs (deterministic random
// values or zeros) and the printed summary of an output (shape, type, min/max/mean, first
// values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cppnn/descriptor.h"

namespace cppnn::tool {

// An element's value exactly as stored: a float (float32/float16 as a double), a signed or an
// unsigned integer (int64/uint64 beyond 2^53 included, which a double would round).
struct ElementValue {
  enum class Kind : uint8_t { kFloat, kSigned, kUnsigned };
  Kind kind = Kind::kFloat;
  double f = 0;
  int64_t i = 0;
  uint64_t u = 0;

  double as_double() const;
  bool is_nan() const { return kind == Kind::kFloat && f != f; }
  // Orders two values of one tensor (of one kind).
  bool less_than(const ElementValue& other) const;
  // As printed: integers exactly, floats per format_number().
  std::string text() const;
};

// Element `i` of little-endian `bytes` of type `t` (int4/uint4: packed nibbles).
ElementValue element_value(MLOperandDataType t, std::span<const std::byte> bytes, size_t i);

// Bytes for a tensor of `desc`: zeros, or values from a seeded 64-bit Mersenne Twister (the
// same seed gives the same bytes everywhere): floats uniform in [-1, 1), signed integers in
// [-8, 8), unsigned ones in [0, 16). `salt` varies the stream per input.
std::vector<std::byte> generated_bytes(const MLOperandDescriptor& desc, bool random, uint64_t seed,
                                       uint64_t salt);

// What is printed about an output tensor.
struct TensorSummary {
  uint64_t elements = 0;
  uint64_t nans = 0;                // NaN elements (left out of min/max/mean)
  ElementValue min, max;            // over the other elements; 0 when there are none
  double mean = 0;                  // likewise
  std::vector<ElementValue> first;  // the first values (at most `first_count`)
};
TensorSummary summarize(const MLOperandDescriptor& desc, std::span<const std::byte> bytes,
                        size_t first_count = 8);

// "float32 [1, 3, 224, 224]".
std::string describe(const MLOperandDescriptor& desc);
// A number as printed (shortest round-trip form, "nan", "inf").
std::string format_number(double v);

}  // namespace cppnn::tool
