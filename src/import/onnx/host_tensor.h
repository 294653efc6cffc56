// A tensor whose value the importer knows while converting (an initializer, a Constant node, or
// a folded result): descriptor plus little-endian bytes. Unlike an MLOperand it may be empty (a
// zero dimension), which ONNX shape computations produce and WebNN operands cannot hold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/graph_model.h"

namespace cppnn::onnx_import {

struct HostTensor {
  MLOperandDescriptor desc;
  ConstantData data;  // element_count(desc.shape) elements of desc.dataType (no 4-bit types)

  // Number of elements (0 when a dimension is 0).
  uint64_t elements() const;
  // Every element converted to int64 (floats truncated toward zero, NaN -> 0).
  std::vector<int64_t> to_int64() const;
  // Every element converted to double.
  std::vector<double> to_double() const;

  // A tensor of `type` holding `values` (cast by the spec's cast algorithm) with `shape`.
  static HostTensor of_int64(const std::vector<int64_t>& values, std::vector<uint32_t> shape,
                             MLOperandDataType type = MLOperandDataType::kInt64);
  static HostTensor of_double(const std::vector<double>& values, std::vector<uint32_t> shape,
                              MLOperandDataType type = MLOperandDataType::kFloat32);
  // A tensor of `desc` whose bytes are `bytes` (size checked against desc).
  static HostTensor of_bytes(const MLOperandDescriptor& desc, std::vector<std::byte> bytes);
};

// Bytes per element of a (non 4-bit) data type.
size_t element_size(MLOperandDataType type);

}  // namespace cppnn::onnx_import
