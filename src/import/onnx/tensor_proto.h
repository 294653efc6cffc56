// ONNX TensorProto <-> host tensors, and ONNX element types <-> WebNN data types.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cppnn/data_type.h"
#include "onnx/onnx_pb.h"
#include "src/import/onnx/host_tensor.h"

namespace cppnn::onnx_import {

// The WebNN type of an ONNX element type (BOOL -> uint8); nullopt for types WebNN lacks
// (DOUBLE, STRING, INT16, UINT16, BFLOAT16, complex ...).
std::optional<MLOperandDataType> webnn_type_of(int32_t onnx_elem_type);
// The ONNX element type of a WebNN type.
int32_t onnx_elem_type_of(MLOperandDataType type);
// "FLOAT", "DOUBLE" ... for messages.
std::string onnx_type_name(int32_t onnx_elem_type);

// The value of `tensor` (raw_data, typed fields, or external data read from `base_dir`). Throws
// NotSupportedError for a type WebNN lacks, DataError for inconsistent or unreadable data;
// `where` names the tensor in messages.
HostTensor host_tensor_of(const onnx::TensorProto& tensor, const std::filesystem::path& base_dir,
                          const std::string& where);

}  // namespace cppnn::onnx_import
