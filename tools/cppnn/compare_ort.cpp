#include "tools/cppnn/compare_ort.h"

#include <cstring>
#include <stdexcept>

#ifdef CPPNN_HAVE_ORT
#include <onnxruntime_cxx_api.h>
#include <onnxruntime_session_options_config_keys.h>
#endif

namespace cppnn::tool::compare {

#ifdef CPPNN_HAVE_ORT

bool ort_available() {
  return true;
}

std::map<std::string, OrtTensor> run_ort(std::span<const std::byte> model,
                                         const std::filesystem::path& base_dir,
                                         const std::map<std::string, OrtFeed>& inputs,
                                         const std::vector<std::string>& outputs) {
  try {
    static Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "cppnn-compare");
    Ort::SessionOptions options;
    // Every node's own kernel: no fusions or constant folding across nodes.
    options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
    const std::string folder = base_dir.empty() ? "." : base_dir.string();
    options.AddConfigEntry(kOrtSessionOptionsModelExternalInitializersFileFolderPath,
                           folder.c_str());
    Ort::Session session(env, model.data(), model.size(), options);
    Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
    std::vector<const char*> in_names, out_names;
    std::vector<Ort::Value> in_values;
    for (const auto& [name, in] : inputs) {
      in_names.push_back(name.c_str());
      in_values.push_back(Ort::Value::CreateTensor(
          memory, const_cast<std::byte*>(in.bytes.data()), in.bytes.size(), in.shape.data(),
          in.shape.size(), static_cast<ONNXTensorElementDataType>(in.type)));
    }
    for (const std::string& name : outputs) out_names.push_back(name.c_str());
    std::vector<Ort::Value> results =
        session.Run(Ort::RunOptions{nullptr}, in_names.data(), in_values.data(), in_values.size(),
                    out_names.data(), out_names.size());
    std::map<std::string, OrtTensor> out;
    for (size_t i = 0; i < results.size() && i < outputs.size(); ++i) {
      Ort::Value& v = results[i];
      if (!v || !v.IsTensor()) continue;
      auto info = v.GetTensorTypeAndShapeInfo();
      const auto type = info.GetElementType();
      if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) continue;
      OrtTensor t;
      t.type = static_cast<int>(type);
      t.shape = info.GetShape();
      const size_t bytes = v.GetTensorSizeInBytes();
      t.bytes.resize(bytes);
      if (bytes) std::memcpy(t.bytes.data(), v.GetTensorRawData(), bytes);
      out.emplace(outputs[i], std::move(t));
      v = Ort::Value{nullptr};  // released as it is copied
    }
    return out;
  } catch (const Ort::Exception& e) {
    throw std::runtime_error(std::string("onnxruntime: ") + e.what());
  }
}

#else

bool ort_available() {
  return false;
}

std::map<std::string, OrtTensor> run_ort(std::span<const std::byte>, const std::filesystem::path&,
                                         const std::map<std::string, OrtFeed>&,
                                         const std::vector<std::string>&) {
  throw std::runtime_error("this build has no ONNX Runtime");
}

#endif

}  // namespace cppnn::tool::compare
