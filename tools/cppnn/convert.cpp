// `cppnn convert PATH --to onnx|coreml|tflite|json|webnn -o OUT`: a .webnn text or GraphJson graph
// (with its weights sidecar, webnn-graph-format.md §7.1) loaded through the builder's validation,
// then written as an ONNX model (opset 17) plus `OUT.data` for its large constants (save_onnx), as
// a CoreML ML Program package folder OUT (save_coreml), as a TFLite model OUT (save_tflite); or
// rewritten as canonical GraphJson / .webnn text (format_graph_json / format_webnn_text, §4.2,
// §5.1), its @weights references and sidecar left as they are.
#include <algorithm>
#include <iostream>
#include <optional>

#include "cppnn/coreml.h"
#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx.h"
#include "cppnn/tflite.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "src/core/atomic_file.h"
#include "src/formats/graph_doc.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/graph_source.h"

namespace cppnn::tool {

namespace {

namespace fs = std::filesystem;

// --to json|webnn: the graph file in the other (canonical) form, written atomically.
int rewrite_graph_file(const GraphArgs& a, const std::string& to, const std::string& out) {
  auto content = read_graph_file(a.path);
  throw_if_error(content);
  FormatWarnings warnings;
  std::string text;
  try {
    text = to == "json" ? format_graph_json(*content, a.path, &warnings) + "\n"
                        : format_webnn_text(*content, a.path, &warnings);
  } catch (const Error& e) {
    throw_error(e.kind(), in_file({e.kind(), e.what()}, a.path).message);
  }
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
  throw_if_error(write_file_atomically(out, text));
  return 0;
}

// --to coreml replaces the folder OUT: refuse when an input lies inside it.
Status check_not_inside(const fs::path& folder, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(folder, ec);
  if (ec) return Ok{};
  for (const fs::path& in : inputs) {
    const fs::path p = fs::weakly_canonical(in, ec);
    if (ec) continue;
    auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    if (r == root.end())
      return formats::data_error("refusing to write `", folder.string(), "`: the input `",
                                 in.string(), "` is inside it");
  }
  return Ok{};
}

int convert(const GraphArgs& a) {
  const std::optional<std::string> to = a.value("to"), out = a.value("output");
  if (!to) throw UsageError("--to must be onnx, coreml, tflite, json or webnn");
  check_choice_flag("to", *to, {"onnx", "coreml", "tflite", "json", "webnn"});
  if (!out) throw UsageError("-o OUT is required");
  OnnxExportOptions options;
  if (auto t = a.value("external-threshold")) {
    try {
      options.externalDataThreshold = parse_unsigned_flag("external-threshold", *t);
    } catch (const UsageError&) {
      throw UsageError("--external-threshold takes a byte count, got '" + *t + "'");
    }
  }
  if (is_onnx_path(a.path))
    throw DataError(a.path +
                    ": convert reads .webnn text or GraphJson; ONNX models convert "
                    "with cppnn convert-onnx");
  std::vector<fs::path> outputs = {*out};
  if (*to == "onnx") outputs.push_back(*out + ".data");
  std::vector<fs::path> inputs = {a.path};
  if (auto w = cli_path(a, "weights")) inputs.push_back(*w);
  if (auto m = cli_path(a, "weights-manifest")) inputs.push_back(*m);
  throw_if_error(check_outputs(outputs, inputs));
  if (*to == "json" || *to == "webnn") return rewrite_graph_file(a, *to, *out);
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  LoadedGraph loaded;
  load_graph_source(builder, a, loaded);
  throw_if_error(check_outputs(outputs, loaded.files));  // the sidecar found by §7.1 too
  if (*to == "coreml") {
    throw_if_error(check_not_inside(*out, loaded.files));
    save_coreml(builder.pruned_graph(loaded.outputs), *out);
  } else if (*to == "tflite") {
    save_tflite(builder.pruned_graph(loaded.outputs), *out);
  } else
    save_onnx(builder.pruned_graph(loaded.outputs), *out, options);
  return 0;
}

}  // namespace

int run_convert(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn convert PATH --to onnx|coreml|tflite|json|webnn -o OUT [--weights FILE]\n"
      "                     [--weights-manifest FILE] [--external-threshold BYTES]\n\n"
      "Loads a .webnn text or GraphJson graph (auto-detected) with its external weights (the\n"
      "sidecar found as webnn-graph-format.md §7.1 says, or --weights/--weights-manifest,\n"
      "relative to the current directory), validates it like the builder API, and writes it as\n"
      "ONNX (opset 17, IR 8): OUT, plus OUT.data holding every constant of at least BYTES bytes\n"
      "(default 1024; 0 embeds them all).\n"
      "--to coreml writes OUT as a CoreML ML Program package folder (conventionally\n"
      "NAME.mlpackage: specification 8, MIL opset CoreML7 / iOS17, weights in its weight.bin);\n"
      "an existing package at OUT is replaced.\n"
      "--to tflite writes OUT as a TFLite model (schema 3, NHWC, builtin operators, one\n"
      "signature \"serving_default\" with the graph's input and output names) that LiteRT runs.\n"
      "--to json writes OUT as canonical GraphJson, --to webnn as canonical .webnn text; their\n"
      "@weights references and the weights sidecar stay as they are (pass --weights FILE when\n"
      "loading OUT if its name no longer finds the sidecar). ONNX models convert with\n"
      "`cppnn convert-onnx`. Files are written atomically; an output that is one of the inputs\n"
      "is refused.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("convert"), args, kHelp, a)) return *rc;
  return run_command("convert", [&] { return convert(a); });
}

}  // namespace cppnn::tool
