#include "src/export/coreml/mil_types.h"

#include <string>

#include "cppnn/errors.h"

namespace cppnn::coreml_export {

mil::DataType mil_type_of(MLOperandDataType type) {
  switch (type) {
    case MLOperandDataType::kFloat32:
      return mil::FLOAT32;
    case MLOperandDataType::kFloat16:
      return mil::FLOAT16;
    case MLOperandDataType::kInt32:
      return mil::INT32;
    case MLOperandDataType::kInt8:
      return mil::INT8;
    case MLOperandDataType::kUint8:
      return mil::UINT8;
    case MLOperandDataType::kUint32:
    case MLOperandDataType::kInt64:
    case MLOperandDataType::kUint64:
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4:
      break;
  }
  throw NotSupportedError("coreml: MIL (iOS17) has no " + std::string(data_type_name(type)) +
                          " tensors to compute with");
}

MilType mil_type_of(const MLOperandDescriptor& desc) {
  return {mil_type_of(desc.dataType), std::vector<int64_t>(desc.shape.begin(), desc.shape.end())};
}

const char* mil_dtype_name(mil::DataType type) {
  switch (type) {
    case mil::FLOAT32:
      return "fp32";
    case mil::FLOAT16:
      return "fp16";
    case mil::INT32:
      return "int32";
    case mil::INT8:
      return "int8";
    case mil::UINT8:
      return "uint8";
    case mil::INT16:
      return "int16";
    case mil::UINT16:
      return "uint16";
    case mil::BOOL:
      return "bool";
    default:
      break;
  }
  throw NotSupportedError("coreml: no MIL dtype name for element type " + std::to_string(type));
}

unsigned mil_type_bytes(mil::DataType type) {
  switch (type) {
    case mil::FLOAT32:
    case mil::INT32:
      return 4;
    case mil::FLOAT16:
    case mil::INT16:
    case mil::UINT16:
      return 2;
    case mil::INT8:
    case mil::UINT8:
    case mil::BOOL:
      return 1;
    default:
      break;
  }
  throw NotSupportedError("coreml: no element size for element type " + std::to_string(type));
}

mil::ValueType value_type_of(const MilType& type) {
  mil::ValueType v;
  mil::TensorType* t = v.mutable_tensortype();
  t->set_datatype(type.type);
  t->set_rank(static_cast<int64_t>(type.shape.size()));
  for (int64_t d : type.shape)
    t->add_dimensions()->mutable_constant()->set_size(static_cast<uint64_t>(d));
  return v;
}

}  // namespace cppnn::coreml_export
