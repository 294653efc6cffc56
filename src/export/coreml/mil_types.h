// MIL tensor types for the CoreML export: a MIL element type with a static shape, the mapping
// from WebNN operand types (float32, float16, int32 map one to one; int8/uint8 are MIL's int8 and
// uint8, which iOS17 carries through data movement and casts only; the other WebNN types have no
// MIL tensor form the export can compute with, see target.h), and the proto ValueType form.
#pragma once

#include <cstdint>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/descriptor.h"
#include "mil.pb.h"

namespace cppnn::coreml_export {

namespace mil = CoreML::Specification::MILSpec;

// A MIL tensor type: element type and static shape (empty: a scalar).
struct MilType {
  mil::DataType type = mil::FLOAT32;
  std::vector<int64_t> shape;
};

// The MIL element type of a WebNN operand type; NotSupportedError for uint32, int64, uint64,
// int4 and uint4 (MIL iOS17 has no arithmetic on them).
mil::DataType mil_type_of(MLOperandDataType type);

// The MIL tensor type of a WebNN operand descriptor.
MilType mil_type_of(const MLOperandDescriptor& desc);

// The name MIL's textual form and coremltools use for an element type ("fp32", "int32", ...):
// the values of cast's `dtype` parameter.
const char* mil_dtype_name(mil::DataType type);

// Bytes per element of a MIL element type the export writes (bool: 1).
unsigned mil_type_bytes(mil::DataType type);

// The proto ValueType of a tensor type (rank and constant dimensions).
mil::ValueType value_type_of(const MilType& type);

}  // namespace cppnn::coreml_export
