// The public entry points of include/cppnn/onnx_import.h.

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "src/core/input_file.h"
#include "src/import/onnx/importer.h"
#include "src/passes/rewriter.h"

namespace cppnn {

std::string sanitize_onnx_name(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    const char ch = name[i];
    if (ch == ':' && i + 1 < name.size() && name[i + 1] == ':') {
      out += "__";
      ++i;
    } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_' || ch == '/') {
      out += ch;
    } else {
      out += '_';
    }
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) return std::string(1, '_') + out;
  return out;
}

OnnxImportResult import_onnx_bytes(MLGraphBuilder& builder, std::span<const std::byte> model,
                                   const OnnxImportOptions& options,
                                   const std::filesystem::path& base_dir) {
  if (model.size() > static_cast<size_t>(INT32_MAX))
    throw NotSupportedError("ONNX models over 2 GiB need external data");
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(model.data(), static_cast<int>(model.size())))
    throw DataError("not an ONNX model (the bytes do not parse as an onnx.ModelProto)");
  if (!proto.has_graph()) throw DataError("the ONNX model has no graph");
  return onnx_import::Importer(builder, options, base_dir).run(proto);
}

OnnxImportResult import_onnx(MLGraphBuilder& builder, const std::filesystem::path& model,
                             const OnnxImportOptions& options) {
  // A regular file, at most 2 GiB (protobuf's limit), read without blocking (input_file.h).
  auto content = read_input_file(model, static_cast<uint64_t>(INT32_MAX));
  if (!content) throw_error(content.error().kind, content.error().message);
  const auto bytes = std::as_bytes(std::span<const char>(content->data(), content->size()));
  const std::filesystem::path folder = model.has_parent_path() ? model.parent_path() : ".";
  try {
    return import_onnx_bytes(builder, bytes, options, folder);
  } catch (const Error& e) {
    throw_error(e.kind(), model.string() + ": " + e.what());
  }
}

Graph onnx_to_graph(const std::filesystem::path& model, const OnnxImportOptions& options,
                    OnnxImportResult* result) {
  // Recorded only to take the graph model: a builder without a backend (the spec's validation).
  MLGraphBuilder builder = passes::pass_builder();
  OnnxImportResult r = import_onnx(builder, model, options);
  Graph graph = builder.pruned_graph(r.outputs);
  if (result) *result = std::move(r);
  return graph;
}

}  // namespace cppnn
