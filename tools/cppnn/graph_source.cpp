// Graph loading shared by info, run, dot, bench and convert.
#include "tools/cppnn/graph_source.h"

#include <algorithm>
#include <iostream>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx_import.h"
#include "src/formats/graph_convert.h"
#include "tools/cppnn/convert_onnx.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

// The graph's @weights constants, from the sidecar opened on first use.
class SidecarWeights : public formats::WeightsSource {
 public:
  SidecarWeights(const GraphArgs& a, LoadedGraph& out) : a_(a), out_(out) {}
  Result<ConstantData> load(const std::string& name, const std::string& ref,
                            const MLOperandDescriptor& desc) override {
    try {
      if (!out_.weights) {
        out_.weights = ExternalWeights::for_graph(a_.path, cli_path(a_, "weights"),
                                                  cli_path(a_, "weights-manifest"));
        out_.files.push_back(out_.weights->path());
      }
      return out_.weights->load(ref, desc, name);
    } catch (const Error& e) {
      return ErrorInfo{e.kind(), e.what()};
    }
  }

 private:
  const GraphArgs& a_;
  LoadedGraph& out_;
};

}  // namespace

const char kGraphSourceHelp[] =
    "GRAPH is a .webnn text or GraphJson file (detected from its first bytes), its @weights\n"
    "constants read from the sidecar found as webnn-graph-format.md §7.1 says, or from\n"
    "--weights FILE [--weights-manifest FILE] (relative to the current directory); or an ONNX\n"
    "model (.onnx) imported like convert-onnx, its free dimensions set with\n"
    "--override-dim NAME=VALUE (repeatable).\n";

bool is_onnx_path(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".onnx";
}

std::optional<fs::path> cli_path(const GraphArgs& a, const std::string& flag) {
  const std::optional<std::string> v = a.value(flag);
  if (!v) return std::nullopt;
  if (v->empty()) throw UsageError("--" + flag + " needs a file name");
  return fs::absolute(*v);
}

namespace {

void load(MLGraphBuilder& builder, const GraphArgs& a, LoadedGraph& out) {
  out.files = {a.path};
  if (is_onnx_path(a.path)) {
    if (a.value("weights") || a.value("weights-manifest"))
      throw UsageError("--weights/--weights-manifest apply to graph files, not ONNX models");
    OnnxImportOptions options;
    for (const std::string& s : a.all("override-dim")) {
      auto [name, value] = convert_onnx::parse_override_dim(s);
      options.freeDimensions[name] = value;
    }
    OnnxImportResult result = import_onnx(builder, a.path, options);
    for (const std::string& w : result.warnings) std::cerr << "warning: " << w << "\n";
    out.outputs = std::move(result.outputs);
    if (!result.graphName.empty()) out.name = result.graphName;
    return;
  }
  if (!a.all("override-dim").empty())
    throw UsageError("--override-dim applies to ONNX models only");
  auto content = read_graph_file(a.path);
  throw_if_error(content);
  formats::Warnings warnings;
  auto doc = formats::read_graph_doc(*content, a.path, &warnings);
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
  throw_if_error(doc);
  if (doc->name && !doc->name->empty()) out.name = *doc->name;
  SidecarWeights weights(a, out);
  auto outputs = formats::record_graph_doc(*doc, builder, &weights, a.path);
  throw_if_error(outputs);
  out.outputs = std::move(*outputs);
}

}  // namespace

void load_graph_source(MLGraphBuilder& builder, const GraphArgs& a, LoadedGraph& out) {
  out.name = fs::path(a.path).stem().string();
  try {
    load(builder, a, out);
  } catch (const Error& e) {
    // Every message names the file (the builder's own errors name only the node).
    const std::string message = e.what();
    if (message.find(a.path) != std::string::npos) throw;
    throw_error(e.kind(), a.path + ": " + message);
  }
}

}  // namespace cppnn::tool
