// `cppnn convert-onnx MODEL.onnx [-o OUT]` (webnn-graph-format.md §8 "convert-onnx"): an ONNX
// model imported by onnx_to_graph and written as .webnn text or GraphJson, its large constants
// as `@weights("<name>")` in a SafeTensors sidecar (default) or a headerless `.weights` blob +
// manifest (§7.3), or all inline. Every file is written atomically; nothing is left on failure.
// Exit: 0 ok, 1 bad input, 2 usage error or internal error.
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
#include "src/formats/manifest.h"
#include "src/formats/weights_atomic_file.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/progress.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;
using convert_onnx::ArgumentError;

constexpr int kUsage = 2;

const char kHelp[] =
    "usage: cppnn convert-onnx MODEL.onnx [-o OUT] [--weights W] [--manifest M]\n"
    "                          [--weights-format safetensors|manifest] [--inline-weights]\n"
    "                          [--override-dim NAME=VALUE]... [--override-dims-file F]\n"
    "                          [--input-shape NAME=D0,D1,...]... [--input-value "
    "NAME=V0,V1,...]...\n"
    "                          [--max-inline-bytes N]\n\n"
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
    "accepted (constant folding always runs).\n"
    "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";

struct Args {
  std::optional<std::string> model, output, weights, manifest, weights_format, dims_file;
  std::vector<std::string> override_dims, input_shapes, input_values;
  bool inline_weights = false;
  uint64_t max_inline_bytes = 65536;
};

int usage(const std::string& message) {
  std::cerr << "Error: convert-onnx: " << message << " (see cppnn convert-onnx --help)\n";
  return kUsage;
}

// Parses the command line; an exit code when the command should stop.
std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  const std::map<std::string, std::string> aliases = {
      {"-o", "--output"}, {"--dim", "--override-dim"}, {"-i", "--input"}};
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kHelp;
      return 0;
    }
    if (arg == "--inline-weights") {
      a.inline_weights = true;
      continue;
    }
    if (arg == "--optimize") continue;
    if (arg == "--experimental-dynamic-inputs")
      return usage(
          "--experimental-dynamic-inputs is not supported: free dimensions are resolved "
          "when converting (--override-dim NAME=VALUE)");
    if (arg.empty() || arg[0] != '-') {
      if (a.model) return usage("more than one model given: " + *a.model + ", " + arg);
      a.model = arg;
      continue;
    }
    std::string key = arg, value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (auto it = aliases.find(key); it != aliases.end()) key = it->second;
    static const std::set<std::string> kValued = {"--input",
                                                  "--output",
                                                  "--weights",
                                                  "--manifest",
                                                  "--weights-format",
                                                  "--override-dim",
                                                  "--override-dims-file",
                                                  "--input-shape",
                                                  "--input-value",
                                                  "--max-inline-bytes"};
    if (!kValued.contains(key)) return usage("unknown argument \"" + arg + "\"");
    if (!has_value) {
      if (i + 1 >= argv.size()) return usage(key + " needs a value");
      value = argv[++i];
    }
    auto once = [&](std::optional<std::string>& slot) -> std::optional<int> {
      if (slot) return usage(key + " given twice");
      slot = value;
      return std::nullopt;
    };
    std::optional<int> rc;
    if (key == "--input") {
      if (a.model) return usage("more than one model given: " + *a.model + ", " + value);
      a.model = value;
    } else if (key == "--output") {
      rc = once(a.output);
    } else if (key == "--weights") {
      rc = once(a.weights);
    } else if (key == "--manifest") {
      rc = once(a.manifest);
    } else if (key == "--weights-format") {
      rc = once(a.weights_format);
    } else if (key == "--override-dims-file") {
      rc = once(a.dims_file);
    } else if (key == "--override-dim") {
      a.override_dims.push_back(value);
    } else if (key == "--input-shape") {
      a.input_shapes.push_back(value);
    } else if (key == "--input-value") {
      a.input_values.push_back(value);
    } else if (key == "--max-inline-bytes") {
      size_t used = 0;
      try {
        a.max_inline_bytes = std::stoull(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || value.empty() || value[0] == '-')
        return usage("--max-inline-bytes takes a byte count, got '" + value + "'");
    }
    if (rc) return rc;
  }
  if (!a.model) return usage("no ONNX model given");
  if (a.weights_format && *a.weights_format != "safetensors" && *a.weights_format != "manifest")
    return usage("--weights-format must be safetensors or manifest, got '" + *a.weights_format +
                 "'");
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

// Gives every constant that goes to the sidecar a weight ref (unique names: the importer's
// refs, else the operand's name, else const_<i>) and clears the rest; returns {id, ref} of the
// external constants (one per distinct ref).
std::vector<std::pair<OperandId, std::string>> assign_weight_refs(Graph& g, bool inline_all,
                                                                  uint64_t max_inline_bytes) {
  std::vector<std::pair<OperandId, std::string>> external;
  std::set<std::string> used;
  for (const OperandInfo& info : g.operands)
    if (!inline_all && info.kind == OperandKind::kConstant && !info.weight_ref.empty())
      used.insert(info.weight_ref);
  std::set<std::string> listed;
  uint32_t const_index = 0;
  for (size_t i = 0; i < g.operands.size(); ++i) {
    OperandInfo& info = g.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const uint32_t index = const_index++;
    if (inline_all || info.scalar_fill) {
      info.weight_ref.clear();
      continue;
    }
    if (info.weight_ref.empty()) {
      if (g.constants.at(info.producer).size() <= max_inline_bytes) continue;
      std::string want = info.name.empty() ? "const_" + std::to_string(index) : info.name;
      std::string name = want;
      for (int n = 2; used.contains(name); ++n) name = want + "_" + std::to_string(n);
      used.insert(name);
      info.weight_ref = name;
    }
    if (listed.insert(info.weight_ref).second)
      external.emplace_back(OperandId{static_cast<uint32_t>(i)}, info.weight_ref);
  }
  return external;
}

// Throws the error of a failed Result/Status as its cppnn exception.
template <class R>
void check(const R& r) {
  if (!r) throw_error(r.error().kind, r.error().message);
}

// The headerless blob (constants in name order from offset 0) and its manifest (layout null).
void write_manifest_weights(const Graph& g,
                            const std::vector<std::pair<OperandId, std::string>>& external,
                            formats::AtomicFile& blob, formats::WeightsManifest& manifest) {
  std::vector<std::pair<std::string, OperandId>> sorted;
  for (const auto& [id, name] : external) sorted.emplace_back(name, id);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  uint64_t offset = 0;
  for (const auto& [name, id] : sorted) {
    const ConstantData& data = g.constant(id);
    check(blob.write(std::span<const std::byte>(data.data(), data.size())));
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

  // Big models (64 MiB and more) show their steps on a terminal: import, graph text, files.
  std::error_code size_error;
  std::optional<ProgressBar> progress;
  if (fs::file_size(model, size_error) >= (uint64_t{64} << 20) && !size_error)
    progress.emplace("convert-onnx " + model.filename().string(), 3);
  if (progress) progress->update(0, "importing");
  OnnxImportResult result;
  Graph g = onnx_to_graph(model, options, &result);
  if (progress) progress->update(1, "writing the graph");
  for (const std::string& w : result.warnings) std::cerr << "warning: " << w << "\n";
  const bool inline_all = plan->kind == WeightsPlan::Kind::kInline;
  const auto external = assign_weight_refs(g, inline_all, a.max_inline_bytes);

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

  auto graph_file = formats::AtomicFile::create(out);
  check(graph_file);
  check(graph_file->write(text));
  std::optional<formats::AtomicFile> blob, manifest_file;
  if (plan->kind == WeightsPlan::Kind::kManifest) {
    auto b = formats::AtomicFile::create(plan->weights);
    check(b);
    blob.emplace(std::move(*b));
    formats::WeightsManifest manifest;
    write_manifest_weights(g, external, *blob, manifest);
    auto m = formats::AtomicFile::create(plan->manifest);
    check(m);
    manifest_file.emplace(std::move(*m));
    check(manifest_file->write(formats::print_manifest(manifest) + "\n"));
  }
  // Commit: the SafeTensors archive (written atomically by itself), the blob and manifest, the
  // graph last; a later failure removes what an earlier step installed.
  std::vector<fs::path> installed;
  if (progress) progress->update(2, "writing the weights");
  try {
    if (plan->kind == WeightsPlan::Kind::kSafeTensors) {
      save_graph_weights(g, external, plan->weights);
      installed.push_back(plan->weights);
    }
    if (blob) {
      check(blob->commit());
      installed.push_back(plan->weights);
      check(manifest_file->commit());
      installed.push_back(plan->manifest);
    }
    check(graph_file->commit());
    if (progress) progress->finish();
  } catch (...) {
    std::error_code ec;
    for (const fs::path& p : installed) fs::remove(p, ec);
    throw;
  }
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
  try {
    return convert(a);
  } catch (const ArgumentError& e) {
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
