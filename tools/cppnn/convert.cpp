// `cppnn convert PATH --to onnx|json|webnn -o OUT`: a .webnn text or GraphJson graph (with its
// weights sidecar, webnn-graph-format.md §7.1) loaded through the builder's validation, then
// written as an ONNX model (opset 17) plus `OUT.data` for its large constants (save_onnx); or
// rewritten as canonical GraphJson / .webnn text (format_graph_json / format_webnn_text, §4.2,
// §5.1), its @weights references and sidecar left as they are.
#include <iostream>
#include <optional>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "src/formats/weights_atomic_file.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

namespace {

// --to json|webnn: the graph file in the other (canonical) form, written atomically.
int rewrite_graph_file(const GraphArgs& a, const std::string& to, const std::string& out) {
  try {
    auto content = read_file(a.path);
    if (!content) return report(content.error());
    FormatWarnings warnings;
    std::string text = to == "json" ? format_graph_json(*content, a.path, &warnings) + "\n"
                                    : format_webnn_text(*content, a.path, &warnings);
    for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
    auto file = formats::AtomicFile::create(out);
    if (!file) return report(file.error());
    auto st = file->write(text);
    if (st) st = file->commit();
    if (!st) return report(st.error());
    return 0;
  } catch (const Error& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return e.kind() == ErrorKind::kUnknownError ? 2 : 1;
  }
}

}  // namespace

int run_convert(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn convert PATH --to onnx|json|webnn -o OUT [--weights FILE]\n"
      "                     [--weights-manifest FILE] [--external-threshold BYTES]\n\n"
      "Loads a .webnn text or GraphJson graph (auto-detected) with its external weights (the\n"
      "sidecar found as webnn-graph-format.md §7.1 says, or --weights/--weights-manifest),\n"
      "validates it like the builder API, and writes it as ONNX (opset 17, IR 8): OUT, plus\n"
      "OUT.data holding every constant of at least BYTES bytes (default 1024; 0 embeds them\n"
      "all).\n"
      "--to json writes OUT as canonical GraphJson, --to webnn as canonical .webnn text; their\n"
      "@weights references and the weights sidecar stay as they are (pass --weights FILE when\n"
      "loading OUT if its name no longer finds the sidecar). ONNX models convert with\n"
      "`cppnn convert-onnx`. Files are written atomically.\n"
      "Exit: 0 ok, 1 bad input, 2 internal error.\n";
  std::vector<std::string> argv = args;
  for (std::string& arg : argv)
    if (arg == "-o") arg = "--output";  // the short form of --output
  GraphArgs a;
  if (auto rc = parse_graph_args(
          "convert", argv, {},
          {"to", "output", "weights", "weights-manifest", "external-threshold"}, kHelp, a))
    return *rc;
  const std::string to = a.value("to").value_or("");
  const std::optional<std::string> out = a.value("output");
  if (to != "onnx" && to != "json" && to != "webnn") {
    std::cerr << "Error: convert: --to must be onnx, json or webnn (see cppnn convert --help)\n";
    return 1;
  }
  if (!out) {
    std::cerr << "Error: convert: -o OUT is required\n";
    return 1;
  }
  if (to != "onnx") return rewrite_graph_file(a, to, *out);
  try {
    OnnxExportOptions options;
    if (auto t = a.value("external-threshold")) {
      size_t used = 0;
      options.externalDataThreshold = std::stoull(*t, &used);
      if (used != t->size()) throw std::invalid_argument(*t);
    }
    auto content = read_file(a.path);
    if (!content) return report(content.error());
    MLContext context = MLContext::create({.backend = "reference"});
    MLGraphBuilder builder(context);
    std::optional<ExternalWeights> weights;
    auto loader = [&](const std::string& name, const std::string& ref,
                      const MLOperandDescriptor& desc) {
      if (!weights) {
        std::optional<std::filesystem::path> file, manifest;
        if (auto w = a.value("weights")) file = *w;
        if (auto m = a.value("weights-manifest")) manifest = *m;
        weights = ExternalWeights::for_graph(a.path, file, manifest);
      }
      return weights->load(ref, desc, name);
    };
    FormatWarnings warnings;
    const MLNamedOperands outputs = load_graph_file(builder, *content, a.path, loader, &warnings);
    for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
    save_onnx(builder.pruned_graph(outputs), *out, options);
    return 0;
  } catch (const std::invalid_argument&) {
    std::cerr << "Error: convert: --external-threshold takes a byte count\n";
    return 1;
  } catch (const std::out_of_range&) {
    std::cerr << "Error: convert: --external-threshold is out of range\n";
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
