// save_onnx, to_onnx_bytes and check_onnx (include/cppnn/onnx.h).
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <system_error>

#include "cppnn/errors.h"
#include "cppnn/onnx.h"
#include "src/export/onnx/convert.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

// Offsets of external tensors are aligned so that ORT can map large ones in place.
uint64_t aligned_offset(uint64_t offset, uint64_t size) {
  const uint64_t alignment = size >= 65536 ? 4096 : 64;
  return (offset + alignment - 1) / alignment * alignment;
}

// A file being written under a temporary name; removed unless committed.
class TempFile {
 public:
  explicit TempFile(fs::path final_path) : final_(std::move(final_path)) {
    temp_ = final_;
    temp_ += ".tmp-cppnn";
    out_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw DataError("save_onnx: cannot create " + temp_.string());
  }
  ~TempFile() {
    if (!committed_) {
      out_.close();
      std::error_code ec;
      fs::remove(temp_, ec);
    }
  }
  std::ofstream& stream() { return out_; }
  void close() {
    out_.flush();
    if (!out_) throw DataError("save_onnx: cannot write " + temp_.string());
    out_.close();
  }
  void commit() {
    std::error_code ec;
    fs::rename(temp_, final_, ec);
    if (ec) throw DataError("save_onnx: cannot rename to " + final_.string() + ": " + ec.message());
    committed_ = true;
  }

 private:
  fs::path final_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

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
  std::unique_ptr<TempFile> data;
  if (!c.externals.empty()) {
    data = std::make_unique<TempFile>(data_path);
    uint64_t offset = 0;
    static const char kZeros[4096] = {};
    for (const auto& ext : c.externals) {
      uint64_t start = aligned_offset(offset, ext.bytes.size());
      data->stream().write(kZeros, static_cast<std::streamsize>(start - offset));
      data->stream().write(reinterpret_cast<const char*>(ext.bytes.data()),
                           static_cast<std::streamsize>(ext.bytes.size()));
      onnx::TensorProto* t = c.model.mutable_graph()->mutable_initializer(ext.initializer);
      add_entry(t, "location", data_path.filename().string());
      add_entry(t, "offset", std::to_string(start));
      add_entry(t, "length", std::to_string(ext.bytes.size()));
      offset = start + ext.bytes.size();
    }
    data->close();
  }
  TempFile model(path);
  if (!c.model.SerializeToOstream(&model.stream()))
    throw DataError("save_onnx: cannot serialize the model to " + path.string());
  model.close();
  if (data) data->commit();
  try {
    model.commit();
  } catch (const DataError&) {
    std::error_code ec;
    if (data) fs::remove(data_path, ec);  // no data file without its model
    throw;
  }
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
