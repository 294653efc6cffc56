// MLOperandDescriptor and MLTensorDescriptor (webnn-spec.md §1, §3.2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/data_type.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// Data type and shape of an operand; an empty shape is a scalar.
struct MLOperandDescriptor {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;

  friend bool operator==(const MLOperandDescriptor&, const MLOperandDescriptor&) = default;
};

// "float32[2,3]" style rendering for messages.
std::string to_string(const MLOperandDescriptor& d);
// "[2,3]" style rendering of a shape.
std::string shape_to_string(const std::vector<uint32_t>& shape);

// Element count (1 for a scalar) with checked 64-bit arithmetic; nullopt-like -1 never returned:
// throws cppnn::TypeError on overflow.
uint64_t element_count(const std::vector<uint32_t>& shape);
// Byte length of a descriptor (int4/uint4 round up to whole bytes); throws TypeError on overflow.
uint64_t byte_length(const MLOperandDescriptor& d);

}  // namespace cppnn

#pragma GCC visibility pop
