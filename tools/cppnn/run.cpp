// `cppnn run GRAPH`: builds a graph once on a backend, binds its inputs (.npy files, tensors of
// a SafeTensors file, or generated random values / zeros), dispatches it and writes each output
// as D/<name>.npy or prints a summary; --iterations N times N more dispatch + read rounds.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cppnn/webnn.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_runner.h"
#include "tools/cppnn/graph_source.h"
#include "tools/cppnn/latency_stats.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/tensor_values.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

const char kHelp[] =
    "usage: cppnn run GRAPH [--backend B] [--input NAME=FILE.npy|FILE.safetensors]...\n"
    "                 [--input FILE.safetensors] [--inputs random|zeros] [--seed N]\n"
    "                 [--output-dir D] [--iterations N] [--json]\n\n"
    "Builds GRAPH once on backend B (default: $CPPNN_BACKEND, else the first compiled-in one),\n"
    "binds its inputs, dispatches it and reads every output.\n"
    "  --input NAME=FILE    the value of input NAME: a .npy file (dtype and shape must match the\n"
    "                       input), or the tensor NAME of a .safetensors file\n"
    "  --input FILE.safetensors   every input not given otherwise, by name from that file\n"
    "  --inputs random|zeros      the inputs given by neither: random values (floats in [-1, 1),\n"
    "                       signed integers in [-8, 8), unsigned in [0, 16); the same for the\n"
    "                       same --seed, default 0) or zeros. Without it, every input needs a "
    "value.\n"
    "  --output-dir D       write each output as D/<name>.npy ('/' in names becomes '_');\n"
    "                       otherwise print each output's type, shape, min/max/mean and first "
    "values\n"
    "  --iterations N       then time N more rounds of dispatch + reading the outputs and print\n"
    "                       min, median, mean, p90 and max latency\n"
    "  --json               print the summaries (and latency) as one JSON object\n";

uint64_t parse_count(const std::string& flag, const std::string& v) {
  uint64_t n = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw DataError("--" + flag + " takes a non-negative integer, got '" + v + "'");
  return n;
}

// The value of one input from a .npy or .safetensors file, checked against the graph.
std::vector<std::byte> load_input(const std::string& name, const MLOperandDescriptor& desc,
                                  const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".safetensors" || ext == ".safetensor") {
    ConstantData d = ExternalWeights::open(file).load(name, desc, name);
    return {d.bytes().begin(), d.bytes().end()};
  }
  auto npy = read_npy_file(file);
  if (!npy) throw_error(npy.error().kind, npy.error().message);
  if (npy->dataType != desc.dataType || npy->shape != desc.shape)
    throw DataError("input '" + name + "': " + file + " holds " +
                    describe({npy->dataType, npy->shape}) + ", the graph expects " +
                    describe(desc));
  return std::move(npy->data);
}

NamedBytes bind_inputs(const MLGraph& graph, const GraphArgs& a) {
  std::map<std::string, std::string> files;
  std::vector<std::string> archives;
  for (const std::string& v : all_values(a, "input")) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos) {
      archives.push_back(v);
      continue;
    }
    const std::string name = v.substr(0, eq);
    if (!graph.inputs().contains(name)) {
      std::string known;
      for (const auto& [n, d] : graph.inputs()) known += (known.empty() ? "" : ", ") + n;
      throw DataError("--input " + v + ": the graph has no input '" + name +
                      "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }
    if (!files.emplace(name, v.substr(eq + 1)).second)
      throw DataError("--input: input '" + name + "' given twice");
  }
  const std::optional<std::string> mode = a.value("inputs");
  if (mode && *mode != "random" && *mode != "zeros")
    throw DataError("--inputs must be random or zeros, got '" + *mode + "'");
  const uint64_t seed = a.value("seed") ? parse_count("seed", *a.value("seed")) : 0;
  NamedBytes out;
  uint64_t salt = 0;
  for (const auto& [name, desc] : graph.inputs()) {
    const uint64_t this_salt = salt++;
    if (auto it = files.find(name); it != files.end()) {
      out.emplace(name, load_input(name, desc, it->second));
      continue;
    }
    bool found = false;
    for (const std::string& archive : archives) {
      const auto names = ExternalWeights::open(archive).names();
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      out.emplace(name, load_input(name, desc, archive));
      found = true;
      break;
    }
    if (found) continue;
    if (!mode)
      throw DataError("input '" + name + "' (" + describe(desc) + ") has no value: give --input " +
                      name + "=FILE.npy or --inputs random|zeros");
    out.emplace(name, generated_bytes(desc, *mode == "random", seed, this_salt));
  }
  return out;
}

int run(const GraphArgs& a) {
  const uint64_t iterations =
      a.value("iterations") ? parse_count("iterations", *a.value("iterations")) : 0;
  MLContext context = MLContext::create({.backend = a.value("backend").value_or("")});
  MLGraphBuilder builder(context);
  LoadedGraph loaded;
  load_graph_source(builder, a, loaded);
  MLGraph graph = builder.build(loaded.outputs);
  GraphRunner runner(context, graph, bind_inputs(graph, a));
  const NamedBytes outputs = runner.run();
  std::vector<double> times;
  for (uint64_t i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    runner.run();
    times.push_back(ms_since(start));
  }
  const LatencyStats stats = latency_stats(times);
  const bool json = a.has("json");
  nlohmann::json j = {{"backend", context.backend()}, {"outputs", nlohmann::json::object()}};

  if (auto dir = a.value("output-dir")) {
    std::error_code ec;
    fs::create_directories(*dir, ec);
    if (ec) throw DataError("cannot create the output directory " + *dir + ": " + ec.message());
  }
  for (const auto& [name, bytes] : outputs) {
    const MLOperandDescriptor& desc = graph.outputs().at(name);
    if (auto dir = a.value("output-dir")) {
      std::string file_name = name;
      std::replace(file_name.begin(), file_name.end(), '/', '_');
      const std::string path = (fs::path(*dir) / (file_name + ".npy")).string();
      auto st = write_npy_file(path, {desc.dataType, desc.shape, bytes});
      if (!st) throw_error(st.error().kind, st.error().message);
      if (json)
        j["outputs"][name]["file"] = path;
      else
        std::cout << name << ": " << describe(desc) << " -> " << path << "\n";
      continue;
    }
    const TensorSummary s = summarize(desc, bytes);
    if (json) {
      nlohmann::json first = nlohmann::json::array();
      for (double v : s.first)
        first.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(format_number(v)));
      j["outputs"][name] = {{"dataType", std::string(data_type_name(desc.dataType))},
                            {"shape", desc.shape},
                            {"min", s.min},
                            {"max", s.max},
                            {"mean", s.mean},
                            {"nans", s.nans},
                            {"first", first}};
      continue;
    }
    std::cout << name << ": " << describe(desc) << "  min " << format_number(s.min) << "  max "
              << format_number(s.max) << "  mean " << format_number(s.mean);
    if (s.nans) std::cout << "  nan " << s.nans;
    std::cout << "\n  values:";
    for (double v : s.first) std::cout << " " << format_number(v);
    if (s.elements > s.first.size()) std::cout << " ...";
    std::cout << "\n";
  }
  if (iterations) {
    if (json)
      j["latency"] = latency_json(stats);
    else
      std::cout << "latency (" << context.backend()
                << ", dispatch + read): " << format_latency(stats) << "\n";
  }
  if (json) std::cout << j.dump(2) << "\n";
  return 0;
}

}  // namespace

int run_run(const std::vector<std::string>& args) {
  std::vector<std::string> flags = kGraphSourceFlags;
  flags.insert(flags.end(), {"backend", "input", "inputs", "seed", "output-dir", "iterations"});
  GraphArgs a;
  if (auto rc = parse_cli("run", args, {"json"}, flags,
                          std::string(kHelp) + "\n" + kGraphSourceHelp +
                              "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n",
                          a))
    return *rc;
  return run_reporting([&] { return run(a); });
}

}  // namespace cppnn::tool
