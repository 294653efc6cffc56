// Graph loading shared by info, run, dot, bench and convert.
#include "tools/cppnn/graph_source.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx_import.h"
#include "tools/cppnn/convert_onnx.h"

namespace cppnn::tool {

const char kGraphSourceHelp[] =
    "GRAPH is a .webnn text or GraphJson file (auto-detected), its @weights constants read from\n"
    "the sidecar found as webnn-graph-format.md §7.1 says or --weights FILE [--weights-manifest\n"
    "FILE]; or an ONNX model (.onnx) imported like convert-onnx, its free dimensions set with\n"
    "--override-dim NAME=VALUE (repeatable).\n";

bool is_onnx_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".onnx";
}

std::optional<int> parse_cli(const std::string& command, const std::vector<std::string>& args,
                             const std::vector<std::string>& switches,
                             const std::vector<std::string>& value_flags, const std::string& help,
                             GraphArgs& out) {
  std::optional<int> rc = parse_graph_args(command, args, switches, value_flags, help, out);
  if (rc && *rc != 0) return 2;
  return rc;
}

std::vector<std::string> all_values(const GraphArgs& a, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : a.values)
    if (k == name) out.push_back(v);
  return out;
}

void load_graph_source(MLGraphBuilder& builder, const GraphArgs& a, LoadedGraph& out) {
  namespace fs = std::filesystem;
  out.name = fs::path(a.path).stem().string();
  if (is_onnx_path(a.path)) {
    if (a.value("weights") || a.value("weights-manifest"))
      throw DataError("--weights/--weights-manifest apply to graph files, not ONNX models");
    if (!fs::exists(a.path)) throw DataError("ONNX model not found: " + a.path);
    OnnxImportOptions options;
    for (const std::string& s : all_values(a, "override-dim")) {
      auto [name, value] = convert_onnx::parse_override_dim(s);
      options.freeDimensions[name] = value;
    }
    OnnxImportResult result = import_onnx(builder, a.path, options);
    for (const std::string& w : result.warnings) std::cerr << "warning: " << w << "\n";
    out.outputs = std::move(result.outputs);
    out.name = result.graphName;
    return;
  }
  if (!all_values(a, "override-dim").empty())
    throw DataError("--override-dim applies to ONNX models only");
  auto content = read_file(a.path);
  if (!content) throw_error(content.error().kind, content.error().message);
  auto loader = [&](const std::string& name, const std::string& ref,
                    const MLOperandDescriptor& desc) {
    if (!out.weights) {
      std::optional<fs::path> file, manifest;
      if (auto w = a.value("weights")) file = *w;
      if (auto m = a.value("weights-manifest")) manifest = *m;
      out.weights = ExternalWeights::for_graph(a.path, file, manifest);
    }
    return out.weights->load(ref, desc, name);
  };
  FormatWarnings warnings;
  out.outputs = load_graph_file(builder, *content, a.path, loader, &warnings);
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
}

int run_reporting(const std::function<int()>& body) {
  try {
    return body();
  } catch (const convert_onnx::ArgumentError& e) {
    std::cerr << "Error: " << e.message << "\n";
    return 1;
  } catch (const Error& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return e.kind() == ErrorKind::kUnknownError ? 2 : 1;
  } catch (const std::exception& e) {
    std::cerr << "Error: internal: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cppnn::tool
