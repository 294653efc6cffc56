// TensorProto decoding: raw little-endian bytes, the typed repeated fields, and external data
// files (location/offset/length relative to the model's folder).
#include "src/import/onnx/tensor_proto.h"

#include <cstring>

#include "cppnn/errors.h"
#include "src/core/checked_math.h"
#include "src/core/input_file.h"

namespace cppnn::onnx_import {

using onnx::TensorProto_DataType;

std::optional<MLOperandDataType> webnn_type_of(int32_t t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
      return MLOperandDataType::kFloat32;
    case onnx::TensorProto_DataType_FLOAT16:
      return MLOperandDataType::kFloat16;
    case onnx::TensorProto_DataType_INT32:
      return MLOperandDataType::kInt32;
    case onnx::TensorProto_DataType_UINT32:
      return MLOperandDataType::kUint32;
    case onnx::TensorProto_DataType_INT64:
      return MLOperandDataType::kInt64;
    case onnx::TensorProto_DataType_UINT64:
      return MLOperandDataType::kUint64;
    case onnx::TensorProto_DataType_INT8:
      return MLOperandDataType::kInt8;
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_BOOL:
      return MLOperandDataType::kUint8;
    default:
      return std::nullopt;
  }
}

int32_t onnx_elem_type_of(MLOperandDataType type) {
  switch (type) {
    case MLOperandDataType::kFloat32:
      return onnx::TensorProto_DataType_FLOAT;
    case MLOperandDataType::kFloat16:
      return onnx::TensorProto_DataType_FLOAT16;
    case MLOperandDataType::kInt32:
      return onnx::TensorProto_DataType_INT32;
    case MLOperandDataType::kUint32:
      return onnx::TensorProto_DataType_UINT32;
    case MLOperandDataType::kInt64:
      return onnx::TensorProto_DataType_INT64;
    case MLOperandDataType::kUint64:
      return onnx::TensorProto_DataType_UINT64;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kInt4:
      return onnx::TensorProto_DataType_INT8;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kUint4:
      return onnx::TensorProto_DataType_UINT8;
  }
  return onnx::TensorProto_DataType_UNDEFINED;
}

std::string onnx_type_name(int32_t t) {
  if (onnx::TensorProto_DataType_IsValid(t))
    return onnx::TensorProto_DataType_Name(static_cast<TensorProto_DataType>(t));
  return "type " + std::to_string(t);
}

namespace {

std::vector<std::byte> read_external(const onnx::TensorProto& tensor,
                                     const std::filesystem::path& base_dir, uint64_t expected,
                                     const std::string& where) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto& kv : tensor.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      if (kv.key() == "offset") offset = std::stoull(kv.value());
      if (kv.key() == "length") length = std::stoull(kv.value());
    } catch (const std::exception&) {
      throw DataError(where + ": bad external data field '" + kv.key() + "'");
    }
  }
  // Confined to the model's folder: no absolute path, `..` or symlink out of it (input_file.h).
  const std::filesystem::path folder = base_dir.empty() ? std::filesystem::path(".") : base_dir;
  auto file = InputFile::open_beneath(folder, std::filesystem::path(location));
  if (!file) throw DataError(where + ": external data: " + file.error().message);
  const uint64_t len = length.value_or(expected);
  const auto end = checked_add(offset, len);
  if (!end || *end > file->size())
    throw DataError(where + ": external data range [" + std::to_string(offset) + ", +" +
                    std::to_string(len) + ") exceeds " + file->path().string() + " (" +
                    std::to_string(file->size()) + " bytes)");
  if (len != expected)
    throw DataError(where + ": external data length " + std::to_string(len) + " != expected " +
                    std::to_string(expected));
  std::vector<std::byte> bytes(len);
  if (auto s = file->read_at(offset, bytes); !s) throw DataError(where + ": " + s.error().message);
  return bytes;
}

template <class Field, class Store>
std::vector<std::byte> from_field(const Field& field, uint64_t count, size_t size,
                                  const std::string& where, Store store) {
  if (static_cast<uint64_t>(field.size()) != count)
    throw DataError(where + ": holds " + std::to_string(field.size()) + " values, its shape " +
                    std::to_string(count));
  std::vector<std::byte> bytes(count * size);
  for (uint64_t i = 0; i < count; ++i)
    store(field.Get(static_cast<int>(i)), bytes.data() + i * size);
  return bytes;
}

template <class T>
auto storer() {
  return [](auto v, std::byte* out) {
    const T t = static_cast<T>(v);
    std::memcpy(out, &t, sizeof(T));
  };
}

}  // namespace

HostTensor host_tensor_of(const onnx::TensorProto& tensor, const std::filesystem::path& base_dir,
                          const std::string& where) {
  const int32_t elem = tensor.data_type();
  const std::optional<MLOperandDataType> type = webnn_type_of(elem);
  if (!type)
    throw NotSupportedError(where + ": element type " + onnx_type_name(elem) +
                            " cannot be expressed in WebNN");
  if (tensor.segment().begin() != 0 || tensor.segment().end() != 0 || tensor.has_segment())
    throw NotSupportedError(where + ": segmented tensors are not supported");
  MLOperandDescriptor desc{*type, {}};
  uint64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || d > UINT32_MAX)
      throw DataError(where + ": dimension " + std::to_string(d) + " out of range");
    desc.shape.push_back(static_cast<uint32_t>(d));
    const auto next = checked_mul(count, static_cast<uint64_t>(d));
    if (!next) throw DataError(where + ": element count overflows");
    count = *next;
  }
  const size_t size = element_size(*type);
  const auto total = checked_mul(count, size);
  if (!total || *total > (uint64_t{1} << 40)) throw DataError(where + ": tensor too large");
  std::vector<std::byte> bytes;
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    bytes = read_external(tensor, base_dir, *total, where);
  } else if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    if (raw.size() != *total)
      throw DataError(where + ": raw_data holds " + std::to_string(raw.size()) + " bytes, " +
                      to_string(desc) + " needs " + std::to_string(*total));
    bytes.resize(raw.size());
    if (!raw.empty()) std::memcpy(bytes.data(), raw.data(), raw.size());
  } else {
    switch (elem) {
      case onnx::TensorProto_DataType_FLOAT:
        bytes = from_field(tensor.float_data(), count, size, where, storer<float>());
        break;
      case onnx::TensorProto_DataType_INT64:
        bytes = from_field(tensor.int64_data(), count, size, where, storer<int64_t>());
        break;
      case onnx::TensorProto_DataType_UINT32:
        bytes = from_field(tensor.uint64_data(), count, size, where, storer<uint32_t>());
        break;
      case onnx::TensorProto_DataType_UINT64:
        bytes = from_field(tensor.uint64_data(), count, size, where, storer<uint64_t>());
        break;
      case onnx::TensorProto_DataType_INT32:
        bytes = from_field(tensor.int32_data(), count, size, where, storer<int32_t>());
        break;
      case onnx::TensorProto_DataType_INT8:
        bytes = from_field(tensor.int32_data(), count, size, where, storer<int8_t>());
        break;
      case onnx::TensorProto_DataType_UINT8:
        bytes = from_field(tensor.int32_data(), count, size, where, storer<uint8_t>());
        break;
      case onnx::TensorProto_DataType_BOOL:
        bytes = from_field(tensor.int32_data(), count, size, where,
                           [](int32_t v, std::byte* out) { *out = std::byte{v != 0}; });
        break;
      case onnx::TensorProto_DataType_FLOAT16:
        bytes = from_field(tensor.int32_data(), count, size, where, storer<uint16_t>());
        break;
      default:
        throw NotSupportedError(where + ": unsupported element type " + onnx_type_name(elem));
    }
  }
  if (elem == onnx::TensorProto_DataType_BOOL)
    for (std::byte& b : bytes) b = std::byte{b != std::byte{0}};
  return HostTensor::of_bytes(desc, std::move(bytes));
}

}  // namespace cppnn::onnx_import
