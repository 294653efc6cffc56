#include "tools/cppnn/onnx_standalone.h"

#include <cstring>
#include <stdexcept>

#ifdef CPPNN_HAVE_ORT
#include <onnxruntime_cxx_api.h>

#include "cppnn/int4.h"
#endif

namespace cppnn::tool {

#ifdef CPPNN_HAVE_ORT

bool standalone_ort_available() {
  return true;
}

namespace {

ONNXTensorElementDataType element_type(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    case MLOperandDataType::kFloat16:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    case MLOperandDataType::kInt32:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    case MLOperandDataType::kUint32:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32;
    case MLOperandDataType::kInt64:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    case MLOperandDataType::kUint64:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kInt4:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kUint4:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
  }
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

bool four_bit(MLOperandDataType t) {
  return t == MLOperandDataType::kInt4 || t == MLOperandDataType::kUint4;
}

size_t element_count(const MLOperandDescriptor& d) {
  size_t n = 1;
  for (uint32_t x : d.shape) n *= x;
  return n;
}

// int4/uint4 data is one value per byte in the ONNX file (opset 17 has no 4-bit type).
std::vector<std::byte> unpacked(const MLOperandDescriptor& d, std::span<const std::byte> packed) {
  const size_t n = element_count(d);
  std::vector<std::byte> out(n);
  if (d.dataType == MLOperandDataType::kInt4) {
    const auto v = unpack_int4(packed, n);
    std::memcpy(out.data(), v.data(), n);
  } else {
    const auto v = unpack_uint4(packed, n);
    std::memcpy(out.data(), v.data(), n);
  }
  return out;
}

std::vector<std::byte> packed(const MLOperandDescriptor& d, const std::vector<std::byte>& bytes) {
  if (d.dataType == MLOperandDataType::kInt4)
    return pack_int4({reinterpret_cast<const int8_t*>(bytes.data()), bytes.size()});
  return pack_uint4({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

Ort::Env& env() {
  static Ort::Env e(ORT_LOGGING_LEVEL_ERROR, "cppnn-standalone");
  return e;
}

}  // namespace

std::map<std::string, std::vector<std::byte>> run_onnx_file(
    const std::filesystem::path& path, const std::map<std::string, NamedBytes>& inputs,
    const std::map<std::string, MLOperandDescriptor>& outputs) {
  try {
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    Ort::Session session(env(), path.c_str(), options);
    Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
    std::vector<const char*> in_names, out_names;
    std::vector<Ort::Value> in_values;
    std::map<std::string, std::vector<std::byte>> result;
    std::vector<std::vector<std::byte>> staged;
    staged.reserve(inputs.size());
    for (const auto& [name, in] : inputs) {
      std::vector<int64_t> shape(in.descriptor.shape.begin(), in.descriptor.shape.end());
      std::span<const std::byte> bytes = in.bytes;
      if (four_bit(in.descriptor.dataType))
        bytes = staged.emplace_back(unpacked(in.descriptor, in.bytes));
      in_names.push_back(name.c_str());
      in_values.push_back(Ort::Value::CreateTensor(memory, const_cast<std::byte*>(bytes.data()),
                                                   bytes.size(), shape.data(), shape.size(),
                                                   element_type(in.descriptor.dataType)));
    }
    for (const auto& [name, desc] : outputs) out_names.push_back(name.c_str());
    std::vector<Ort::Value> values =
        session.Run(Ort::RunOptions{nullptr}, in_names.data(), in_values.data(), in_values.size(),
                    out_names.data(), out_names.size());
    size_t i = 0;
    for (const auto& [name, desc] : outputs) {
      const Ort::Value& value = values.at(i++);
      const auto info = value.GetTensorTypeAndShapeInfo();
      const size_t count = info.GetElementCount();
      if (info.GetElementType() != element_type(desc.dataType) || count != element_count(desc))
        throw std::runtime_error("output '" + name + "': ONNX Runtime computed " +
                                 std::to_string(count) + " elements of ONNX type " +
                                 std::to_string(info.GetElementType()) + ", the graph's is " +
                                 to_string(desc));
      std::vector<std::byte>& bytes = result[name];
      const size_t size = four_bit(desc.dataType) ? count : byte_length(desc);
      const auto* data = static_cast<const std::byte*>(value.GetTensorRawData());
      bytes.assign(data, data + size);
      if (four_bit(desc.dataType)) bytes = packed(desc, bytes);
    }
    return result;
  } catch (const Ort::Exception& e) {
    throw std::runtime_error(std::string("onnxruntime: ") + e.what());
  }
}

std::vector<OnnxFileInput> onnx_file_inputs(const std::filesystem::path& path) {
  try {
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    Ort::Session session(env(), path.c_str(), options);
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<OnnxFileInput> inputs;
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      OnnxFileInput in;
      in.name = session.GetInputNameAllocated(i, allocator).get();
      const Ort::TypeInfo type = session.GetInputTypeInfo(i);  // owns what info views
      const auto info = type.GetTensorTypeAndShapeInfo();
      for (MLOperandDataType t :
           {MLOperandDataType::kFloat32, MLOperandDataType::kFloat16, MLOperandDataType::kInt32,
            MLOperandDataType::kUint32, MLOperandDataType::kInt64, MLOperandDataType::kUint64,
            MLOperandDataType::kInt8, MLOperandDataType::kUint8})
        if (element_type(t) == info.GetElementType()) in.dataType = t;
      in.dims = info.GetShape();
      inputs.push_back(std::move(in));
    }
    return inputs;
  } catch (const Ort::Exception& e) {
    throw std::runtime_error(std::string("onnxruntime: ") + e.what());
  }
}

#else

std::vector<OnnxFileInput> onnx_file_inputs(const std::filesystem::path&) {
  throw std::runtime_error("this build has no ONNX Runtime");
}

bool standalone_ort_available() {
  return false;
}

std::map<std::string, std::vector<std::byte>> run_onnx_file(
    const std::filesystem::path&, const std::map<std::string, NamedBytes>&,
    const std::map<std::string, MLOperandDescriptor>&) {
  throw std::runtime_error("this build has no ONNX Runtime");
}

#endif

}  // namespace cppnn::tool
