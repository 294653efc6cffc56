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
#include "tools/cppnn/exact_number.h"

namespace cppnn::tool {

// Element `i` of little-endian `bytes` of type `t` (int4/uint4: packed nibbles).
ExactNumber element_value(MLOperandDataType t, std::span<const std::byte> bytes, size_t i);

// Bytes for a tensor of `desc`: zeros, or values from a seeded 64-bit Mersenne Twister (the
// same seed gives the same bytes everywhere): floats uniform in [-1, 1), signed integers in
// [-8, 8), unsigned ones in [0, 16). `salt` varies the stream per input.
std::vector<std::byte> generated_bytes(const MLOperandDescriptor& desc, bool random, uint64_t seed,
                                       uint64_t salt);

// What is printed about an output tensor.
struct TensorSummary {
  uint64_t elements = 0;
  uint64_t nans = 0;               // NaN elements (left out of min/max/mean)
  ExactNumber min, max;            // over the other elements; 0 when there are none
  double mean = 0;                 // likewise
  std::vector<ExactNumber> first;  // the first values (at most `first_count`)
};
TensorSummary summarize(const MLOperandDescriptor& desc, std::span<const std::byte> bytes,
                        size_t first_count = 8);

// "float32 [1, 3, 224, 224]".
std::string describe(const MLOperandDescriptor& desc);
// A number as printed (shortest round-trip form, "nan", "inf"; integers exactly).
std::string format_number(double v);
std::string format_number(const ExactNumber& v);

}  // namespace cppnn::tool
