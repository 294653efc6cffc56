// The C API's files (include/cppnn/cppnn.h "Files"): graph files with their weights
// (webnn-graph-format.md), saving and printing built graphs, and ONNX import.
#include <filesystem>
#include <optional>

#include "cppnn/formats.h"
#include "cppnn/onnx_import.h"
#include "cppnn/weights.h"
#include "src/capi/handles.h"
#include "src/core/input_file.h"

using cppnn::capi::guard;
using cppnn::capi::require;

namespace {

namespace fs = std::filesystem;

// An explicit weights path: relative paths are taken from the current directory.
std::optional<fs::path> optional_path(const char* p) {
  if (!p) return std::nullopt;
  return fs::absolute(p);
}

// Builds the graph `builder` recorded with `outputs` into a new handle.
cppnn_graph* build(cppnn::MLGraphBuilder& builder, const cppnn::MLNamedOperands& outputs) {
  return new cppnn_graph(builder.build(outputs));
}

}  // namespace

extern "C" {

cppnn_status cppnn_load_graph(cppnn_context* context, const char* path, const char* weights_path,
                              const char* manifest_path, cppnn_graph** out, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(path, __func__, "the path");
    require(out, __func__, "the result pointer");
    const std::string content = cppnn::read_input_file(path).value_or_throw();
    std::optional<cppnn::ExternalWeights> weights;  // opened on the first @weights constant
    const std::optional<fs::path> explicit_weights = optional_path(weights_path);
    const std::optional<fs::path> manifest = optional_path(manifest_path);
    cppnn::WeightLoader loader = [&](const std::string& name, const std::string& ref,
                                     const cppnn::MLOperandDescriptor& d) {
      if (!weights) weights = cppnn::ExternalWeights::for_graph(path, explicit_weights, manifest);
      return weights->load(ref, d, name);
    };
    cppnn::MLGraphBuilder builder(context->context);
    const cppnn::MLNamedOperands outputs = cppnn::load_graph_file(builder, content, path, loader);
    *out = build(builder, outputs);
  });
}

cppnn_status cppnn_graph_save(const cppnn_graph* graph, const char* path, const char* name,
                              uint64_t max_inline_bytes, cppnn_error** error) {
  return guard(error, [&] {
    require(graph, __func__, "the graph");
    require(path, __func__, "the path");
    cppnn::GraphFileOptions options;
    if (name) options.name = name;
    options.max_inline_bytes = max_inline_bytes;
    cppnn::save_graph_file(graph->graph.graph(), path, options);
  });
}

cppnn_status cppnn_graph_to_text(const cppnn_graph* graph, bool json, uint64_t max_inline_bytes,
                                 char** text, cppnn_error** error) {
  return guard(error, [&] {
    require(graph, __func__, "the graph");
    require(text, __func__, "the result pointer");
    cppnn::GraphFileOptions options;
    options.max_inline_bytes = max_inline_bytes;
    const std::string s = json ? cppnn::graph_to_graph_json(graph->graph.graph(), options)
                               : cppnn::graph_to_webnn_text(graph->graph.graph(), options);
    *text = cppnn::capi::copy_string(s);
  });
}

cppnn_status cppnn_import_onnx(cppnn_context* context, const char* path,
                               const cppnn_onnx_dimension* dimensions, size_t dimension_count,
                               cppnn_graph** out, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(path, __func__, "the path");
    require(out, __func__, "the result pointer");
    if (dimension_count > 0) require(dimensions, __func__, "the dimensions");
    cppnn::OnnxImportOptions options;
    for (size_t i = 0; i < dimension_count; ++i) {
      require(dimensions[i].name, __func__, "a dimension's name");
      options.freeDimensions[dimensions[i].name] = dimensions[i].value;
    }
    cppnn::MLGraphBuilder builder(context->context);
    const cppnn::OnnxImportResult result = cppnn::import_onnx(builder, path, options);
    *out = build(builder, result.outputs);
  });
}

}  // extern "C"
