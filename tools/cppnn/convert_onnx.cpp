// `cppnn convert-onnx MODEL.onnx [-o OUT]` (webnn-graph-format.md §8 "convert-onnx"): an ONNX
// model imported by onnx_to_graph and written as .webnn text or GraphJson, its large constants
// as `@weights("<name>")` in a SafeTensors sidecar (default) or a headerless `.weights` blob +
// manifest (§7.3), or all inline. The files are written together (commit_together): all of them
// or none. Exit: 0 ok, 1 bad input, 2 usage error (bad flag values too) or internal error.
#include "tools/cppnn/convert_onnx.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx_import.h"
#include "cppnn/weights.h"
#include "src/core/atomic_file.h"
#include "src/formats/graph_save.h"
#include "src/formats/manifest.h"
#include "src/formats/weights_save.h"
#include "src/import/onnx/keep_dynamic.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/progress.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;
using convert_onnx::ArgumentError;

const char kHelp[] =
    "usage: cppnn convert-onnx MODEL.onnx [-o OUT] [--weights W] [--manifest M]\n"
    "                          [--weights-format safetensors|manifest] [--inline-weights]\n"
    "                          [--override-dim NAME=VALUE]... [--override-dims-file F]\n"
    "                          [--input-shape NAME=D0,D1,...]... [--input-value "
    "NAME=V0,V1,...]...\n"
    "                          [--max-inline-bytes N] [--keep-dynamic NAME=MAX]...\n\n"
    "Imports an ONNX model (also --input MODEL) and writes it as a WebNN graph file: OUT\n"
    "(-o/--output; default <model stem>.webnn in the current directory) is GraphJson when it\n"
    "ends in .json, else .webnn text. Constants over N bytes (default 65536) and large\n"
    "initializers become @weights(\"<name>\"), written to:\n"
    "  - a SafeTensors sidecar W (default <OUT stem>.safetensors beside OUT);\n"
    "  - with --manifest M, --weights-format manifest, or a --weights W not ending in\n"
    "    .safetensors: a headerless blob W (default <OUT stem>.weights) indexed by the manifest\n"
    "    M (default <OUT stem>.manifest.json): offsets from 0, keyed by name, layout null;\n"
    "  - with --inline-weights every constant is written inline and no sidecar is written.\n"
    "Free dimensions: --override-dim NAME=VALUE (repeatable, alias --dim) beats\n"
    "--override-dims-file F (a JSON object of integers, or {\"freeDimensionOverrides\": {...}});\n"
    "with neither, <model stem>.dims.json beside the model is read when it exists. Unresolved\n"
    "names fall back to batch_size/batch/n/b = 1 and sequence_length/seq_len/seq/s/t = 128.\n"
    "--input-shape NAME=D0,D1,... (repeatable) gives an input's whole shape; --input-value\n"
    "NAME=V0,V1,... (repeatable) fixes an input's value at conversion (it leaves the graph:\n"
    "for axes, shapes or k that WebNN needs when the graph is built). --optimize is\n"
    "accepted (constant folding always runs). Unused --override-dim and --input-shape names\n"
    "are warned about. --keep-dynamic NAME=MAX (repeatable) keeps the free dimension NAME\n"
    "dynamic as dyn(\"NAME\", MAX): dispatch then takes any size from 1 to MAX, sizes computed\n"
    "from it become symbolic (docs/dynamic-dimensions.md). The graph and its sidecar files\n"
    "are written together, all or none; an output that is an input (the model, a dims file)\n"
    "is refused.\n"
    "Exit status: 0 success, 1 bad input, 2 usage (a bad flag value too) or internal error.\n";

struct Args {
  std::optional<std::string> model, output, weights, manifest, weights_format, dims_file;
  std::vector<std::string> override_dims, input_shapes, input_values, keep_dynamic;
  bool inline_weights = false;
  uint64_t max_inline_bytes = 65536;
};

int usage(const std::string& message) {
  return report_usage_error("convert-onnx", message);
}

// Parses the command line (the flag table in cli_specs.cpp); an exit code when the command
// should stop.
std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("convert-onnx"), argv, kHelp, p)) return rc;
  if (p.has("experimental-dynamic-inputs"))
    return usage(
        "--experimental-dynamic-inputs is not supported: free dimensions are resolved "
        "when converting (--override-dim NAME=VALUE)");
  a.model = p.path;
  a.output = p.value("output");
  a.weights = p.value("weights");
  a.manifest = p.value("manifest");
  a.weights_format = p.value("weights-format");
  a.dims_file = p.value("override-dims-file");
  a.override_dims = p.all("override-dim");
  a.input_shapes = p.all("input-shape");
  a.input_values = p.all("input-value");
  a.keep_dynamic = p.all("keep-dynamic");
  a.inline_weights = p.has("inline-weights");
  try {
    if (auto v = p.value("max-inline-bytes"))
      a.max_inline_bytes = parse_unsigned_flag("max-inline-bytes", *v);
    if (a.weights_format)
      check_choice_flag("weights-format", *a.weights_format, {"safetensors", "manifest"});
    // The flag values, checked before anything is read.
    for (const std::string& s : a.override_dims) convert_onnx::parse_override_dim(s);
    for (const std::string& s : a.input_shapes) convert_onnx::parse_input_shape(s);
    for (const std::string& s : a.input_values) convert_onnx::parse_input_value(s);
    for (const std::string& s : a.keep_dynamic) convert_onnx::parse_override_dim(s);
  } catch (const UsageError& e) {
    return usage(e.what());
  } catch (const ArgumentError& e) {
    return usage(e.shown());
  }
  for (const auto* path : {&a.output, &a.weights, &a.manifest, &a.dims_file})
    if (*path && (*path)->empty()) return usage("an empty file name was given");
  if (a.inline_weights && (a.weights || a.manifest || a.weights_format))
    return usage("--inline-weights writes no sidecar: drop --weights/--manifest/--weights-format");
  return std::nullopt;
}

bool is_safetensors_name(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".safetensors" || ext == ".safetensor";
}

// Where the weights go.
struct WeightsPlan {
  enum class Kind { kInline, kSafeTensors, kManifest } kind = Kind::kSafeTensors;
  fs::path weights, manifest;
};

std::optional<WeightsPlan> plan_weights(const Args& a, const fs::path& out, std::string& error) {
  WeightsPlan p;
  if (a.inline_weights) {
    p.kind = WeightsPlan::Kind::kInline;
    return p;
  }
  const fs::path base = out.parent_path() / out.stem();
  bool manifest = a.manifest.has_value() || a.weights_format == "manifest";
  if (a.weights && !a.weights_format && !a.manifest) manifest = !is_safetensors_name(*a.weights);
  if (manifest && a.weights_format == "safetensors") {
    error = "--manifest needs --weights-format manifest";
    return std::nullopt;
  }
  if (manifest && a.weights && is_safetensors_name(*a.weights)) {
    error = "a manifest-addressed weights blob cannot be named " + *a.weights +
            " (a .safetensors name means a SafeTensors archive)";
    return std::nullopt;
  }
  p.kind = manifest ? WeightsPlan::Kind::kManifest : WeightsPlan::Kind::kSafeTensors;
  p.weights = a.weights ? fs::path(*a.weights)
                        : fs::path(base.string() + (manifest ? ".weights" : ".safetensors"));
  if (manifest)
    p.manifest = a.manifest ? fs::path(*a.manifest) : fs::path(base.string() + ".manifest.json");
  return p;
}

// The headerless blob (constants in name order from offset 0) and its manifest (layout null).
void write_manifest_weights(const Graph& g,
                            const std::vector<std::pair<OperandId, std::string>>& external,
                            AtomicFile& blob, formats::WeightsManifest& manifest) {
  std::vector<std::pair<std::string, OperandId>> sorted;
  for (const auto& [id, name] : external) sorted.emplace_back(name, id);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  uint64_t offset = 0;
  for (const auto& [name, id] : sorted) {
    const ConstantData& data = g.constant(id);
    throw_if_error(blob.write(std::span<const std::byte>(data.data(), data.size())));
    formats::ManifestEntry e;
    e.dataType = g.descriptor(id).dataType;
    e.has_type = true;
    e.shape = g.descriptor(id).shape;
    e.byteOffset = offset;
    e.byteLength = data.size();
    e.layout = std::nullopt;
    manifest.tensors.emplace(name, std::move(e));
    offset += data.size();
  }
}

int convert(const Args& a) {
  const fs::path model = *a.model;
  const fs::path out = a.output ? fs::path(*a.output) : fs::path(model.stem().string() + ".webnn");
  std::string plan_error;
  const std::optional<WeightsPlan> plan = plan_weights(a, out, plan_error);
  if (!plan) return usage(plan_error);
  OnnxImportOptions options;
  std::optional<fs::path> fallback;
  options.freeDimensions = convert_onnx::resolve_overrides(
      model, a.override_dims, a.dims_file ? std::optional<fs::path>(*a.dims_file) : std::nullopt,
      &fallback);
  if (fallback) std::cerr << "Using dimension overrides from: " << fallback->string() << "\n";
  for (const std::string& s : a.input_shapes) {
    auto [name, shape] = convert_onnx::parse_input_shape(s);
    options.inputShapes[name] = std::move(shape);
  }
  for (const std::string& s : a.input_values) {
    auto [name, value] = convert_onnx::parse_input_value(s);
    options.inputValues[name] = std::move(value);
  }
  if (!fs::exists(model)) throw DataError("ONNX model not found: " + model.string());
  // No output may be an input, nor two outputs one file.
  std::vector<fs::path> outputs = {out}, inputs = {model};
  if (plan->kind != WeightsPlan::Kind::kInline) outputs.push_back(plan->weights);
  if (plan->kind == WeightsPlan::Kind::kManifest) outputs.push_back(plan->manifest);
  if (a.dims_file) inputs.push_back(*a.dims_file);
  if (fallback) inputs.push_back(*fallback);
  throw_if_error(check_outputs(outputs, inputs));

  // Big models (64 MiB and more) show their steps on a terminal: import, graph text, files.
  std::error_code size_error;
  std::optional<ProgressBar> progress;
  if (fs::file_size(model, size_error) >= (uint64_t{64} << 20) && !size_error)
    progress.emplace("convert-onnx " + model.filename().string(), 3);
  if (progress) progress->update(0, "importing");
  OnnxImportResult result;
  std::map<std::string, uint32_t> keep;  // --keep-dynamic (keep_dynamic.h)
  for (const std::string& s : a.keep_dynamic) keep.insert(convert_onnx::parse_override_dim(s));
  Graph g = keep.empty() ? onnx_to_graph(model, options, &result)
                         : onnx_import::onnx_to_dynamic_graph(model, options, keep, &result);
  if (progress) progress->update(1, "writing the graph");
  for (const std::string& w : result.warnings) std::cerr << "warning: " << w << "\n";
  const bool inline_all = plan->kind == WeightsPlan::Kind::kInline;
  const auto external = formats::assign_weight_refs(g, inline_all, a.max_inline_bytes);

  // The graph text first (it can fail on what the format cannot express), then the files.
  GraphFileOptions file_options;
  file_options.name = result.graphName;
  file_options.version = 2;  // webnn-graph-format.md §8: convert-onnx writes version 2 graphs
  file_options.max_inline_bytes = inline_all ? UINT64_MAX : a.max_inline_bytes;
  const bool json = out.extension() == ".json";
  FormatWarnings warnings;
  std::string text =
      json ? graph_to_graph_json(g, file_options) : graph_to_webnn_text(g, file_options, &warnings);
  if (json) text += "\n";
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";

  // Every file is written to a temporary beside its destination, then all are renamed
  // together (commit_together): either every new file lands, or every previous file stays.
  auto graph_file = AtomicFile::create(out);
  throw_if_error(graph_file);
  throw_if_error(graph_file->write(text));
  std::optional<AtomicFile> weights_file, manifest_file;
  if (progress) progress->update(2, "writing the weights");
  if (plan->kind != WeightsPlan::Kind::kInline) {
    auto w = AtomicFile::create(plan->weights);
    throw_if_error(w);
    weights_file.emplace(std::move(*w));
  }
  if (plan->kind == WeightsPlan::Kind::kSafeTensors) {
    throw_if_error(formats::save_graph_weights_into(*weights_file, g, external));
  } else if (plan->kind == WeightsPlan::Kind::kManifest) {
    formats::WeightsManifest manifest;
    write_manifest_weights(g, external, *weights_file, manifest);
    auto m = AtomicFile::create(plan->manifest);
    throw_if_error(m);
    manifest_file.emplace(std::move(*m));
    throw_if_error(manifest_file->write(formats::print_manifest(manifest) + "\n"));
  }
  std::vector<AtomicFile*> files;
  if (weights_file) files.push_back(&*weights_file);
  if (manifest_file) files.push_back(&*manifest_file);
  files.push_back(&*graph_file);
  throw_if_error(commit_together(files));
  if (progress) progress->finish();
  std::cerr << "\u2713 Converted ONNX model to: " << out.string() << "\n";
  if (plan->kind != WeightsPlan::Kind::kInline)
    std::cerr << "\u2713 Extracted weights to: " << plan->weights.string() << "\n";
  if (plan->kind == WeightsPlan::Kind::kManifest)
    std::cerr << "\u2713 Generated manifest: " << plan->manifest.string() << "\n";
  return 0;
}

}  // namespace

int run_convert_onnx(const std::vector<std::string>& argv) {
  Args a;
  if (std::optional<int> rc = parse(argv, a)) return *rc;
  return run_command("convert-onnx", [&] { return convert(a); });
}

}  // namespace cppnn::tool
