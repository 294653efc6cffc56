// save_onnx, to_onnx_bytes and check_onnx (include/cppnn/onnx.h).
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <optional>
#include <string>

#include "cppnn/errors.h"
#include "cppnn/onnx.h"
#include "src/core/atomic_file.h"
#include "src/export/onnx/convert.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

// Offsets of external tensors are aligned so that ORT can map large ones in place.
uint64_t aligned_offset(uint64_t offset, uint64_t size) {
  const uint64_t alignment = size >= 65536 ? 4096 : 64;
  return (offset + alignment - 1) / alignment * alignment;
}

// The value of a Result, or throws its error prefixed with `save_onnx: `.
template <class T>
T take(Result<T> r) {
  if (!r) throw_error(r.error().kind, "save_onnx: " + r.error().message);
  return std::move(*r);
}

void add_entry(onnx::TensorProto* t, const char* key, const std::string& value) {
  auto* e = t->add_external_data();
  e->set_key(key);
  e->set_value(value);
}

}  // namespace

void save_onnx(const Graph& graph, const fs::path& path, const OnnxExportOptions& options) {
  onnx_export::Conversion c =
      onnx_export::convert_graph(graph, {.external_threshold = options.externalDataThreshold});
  const fs::path data_path = fs::path(path.string() + ".data");
  // Both files are written through atomic temporaries and land together (atomic_file.h).
  std::optional<AtomicFile> data;
  if (!c.externals.empty()) {
    data.emplace(take(AtomicFile::create(data_path)));
    uint64_t offset = 0;
    static const std::byte kZeros[4096] = {};
    for (const auto& ext : c.externals) {
      const uint64_t start = aligned_offset(offset, ext.bytes.size());
      take(data->write(std::span<const std::byte>(kZeros, static_cast<size_t>(start - offset))));
      take(data->write(std::span<const std::byte>(ext.bytes.data(), ext.bytes.size())));
      onnx::TensorProto* t = c.model.mutable_graph()->mutable_initializer(ext.initializer);
      add_entry(t, "location", data_path.filename().string());
      add_entry(t, "offset", std::to_string(start));
      add_entry(t, "length", std::to_string(ext.bytes.size()));
      offset = start + ext.bytes.size();
    }
  }
  std::string bytes;
  if (!c.model.SerializeToString(&bytes))
    throw DataError("save_onnx: cannot serialize the model to " + path.string());
  AtomicFile model = take(AtomicFile::create(path));
  take(model.write(bytes));
  if (data)
    take(commit_together({&model, &*data}));
  else
    take(model.commit());
}

std::string to_onnx_bytes(const Graph& graph) {
  onnx_export::Conversion c = onnx_export::convert_graph(graph, {.external_threshold = 0});
  std::string bytes;
  c.model.SerializeToString(&bytes);
  return bytes;
}

void check_onnx(const Graph& graph) {
  onnx_export::Conversion c = onnx_export::convert_graph(graph, {.external_threshold = 0});
  try {
    onnx::checker::check_model(c.model);
    onnx::ShapeInferenceOptions strict{/*check_type=*/true, /*error_mode=*/1,
                                       /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(c.model, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    throw OperationError(std::string("onnx checker: ") + e.what());
  }
}

}  // namespace cppnn
