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
    "                 [--output-dir D] [--iterations N] [--threads N] [--json]\n\n"
    "Builds GRAPH once on backend B (default: $CPPNN_BACKEND, else the first compiled-in one),\n"
    "binds its inputs, dispatches it and reads every output.\n"
    "  --input NAME=FILE    the value of input NAME: the tensor NAME of a .safetensors file,\n"
    "                       else a .npy file (dtype and shape must match the input)\n"
    "  --input FILE.safetensors   every input not given otherwise, by name from that file\n"
    "  --inputs random|zeros      the inputs given by neither: random values (floats in [-1, 1),\n"
    "                       signed integers in [-8, 8), unsigned in [0, 16); the same for the\n"
    "                       same --seed, default 0) or zeros. Without it, every input needs a "
    "value.\n"
    "  --output-dir D       write each output as D/<name>.npy (characters other than letters,\n"
    "                       digits, '_', '-' and '.' become '_'; names that end up alike get\n"
    "                       _2, _3 ...; each line shows the file); otherwise print each output's\n"
    "                       type, shape, min/max/mean and first values\n"
    "  --iterations N       then time N more rounds of dispatch + reading the outputs and print\n"
    "                       min, median, mean, p90, p99 and max latency and the throughput\n"
    "  --threads N          the context's thread count (MLContextOptions::numThreads; default:\n"
    "                       the backend's)\n"
    "  --json               print the summaries (and latency) as one JSON object\n";

bool has_extension(const std::string& file, std::initializer_list<const char*> exts) {
  std::string ext = fs::path(file).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* e : exts)
    if (ext == e) return true;
  return false;
}

bool is_safetensors(const std::string& file) {
  return has_extension(file, {".safetensors", ".safetensor"});
}

// One --input flag.
struct InputFlag {
  std::string text;  // as given, for messages
  std::string name;  // empty for a whole archive
  std::string file;
};

// The --input flags, their forms checked (usage errors name the flag).
std::vector<InputFlag> input_flags(const GraphArgs& a) {
  std::vector<InputFlag> out;
  std::set<std::string> named;
  for (const std::string& v : a.all("input")) {
    const size_t eq = v.find('=');
    InputFlag f{v, "", v};
    if (eq != std::string::npos) {
      f.name = v.substr(0, eq);
      f.file = v.substr(eq + 1);
      if (f.name.empty()) throw UsageError("--input " + v + ": the input NAME before '=' is empty");
      if (f.file.empty()) throw UsageError("--input " + v + ": no FILE after '='");
      if (!named.insert(f.name).second)
        throw UsageError("--input " + v + ": input '" + f.name + "' is given twice");
    } else if (!is_safetensors(v)) {
      throw UsageError("--input " + v +
                       ": expected NAME=FILE.npy, NAME=FILE.safetensors or FILE.safetensors");
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Runs `body`; a cppnn error it throws is rethrown with `--input TEXT: ` in front.
template <class F>
auto for_flag(const InputFlag& f, F body) {
  try {
    return body();
  } catch (const Error& e) {
    throw_error(e.kind(), "--input " + f.text + ": " + e.what());
  }
}

// The value of one input from a .npy or .safetensors file, checked against the graph. A .npy
// file of an input with dynamic dimensions (`dynamic`) may be smaller: its shape goes to `shape`
// and dispatch checks it (docs/dynamic-dimensions.md).
std::vector<std::byte> load_input(const std::string& name, const MLOperandDescriptor& desc,
                                  const InputFlag& f, bool dynamic = false,
                                  std::vector<uint32_t>* shape = nullptr) {
  return for_flag(f, [&] {
    if (is_safetensors(f.file)) {
      ConstantData d = ExternalWeights::open(f.file).load(name, desc, name);
      return std::vector<std::byte>(d.bytes().begin(), d.bytes().end());
    }
    auto npy = read_npy_file(f.file);
    throw_if_error(npy);
    const bool fits = dynamic && npy->shape.size() == desc.shape.size();
    if (fits && shape) *shape = npy->shape;
    if (npy->dataType != desc.dataType || (npy->shape != desc.shape && !fits))
      throw DataError("input '" + name + "': " + f.file + " holds " +
                      describe({npy->dataType, npy->shape}) + ", the graph expects " +
                      describe(desc));
    return std::move(npy->data);
  });
}

// True when input `name` of `graph` has a dynamic dimension.
bool has_dynamic_dims(const MLGraph& graph, const std::string& name) {
  for (OperandId id : graph.graph().inputs) {
    const OperandInfo& info = graph.graph().operand(id);
    if (info.name == name)
      for (const std::string& d : info.dim_names)
        if (!d.empty()) return true;
  }
  return false;
}

// The inputs' values; `descs` receives each input's descriptor as given (smaller than the
// graph's where a dynamic input's file is).
NamedBytes bind_inputs(const MLGraph& graph, const GraphArgs& a,
                       const std::vector<InputFlag>& flags,
                       std::map<std::string, MLOperandDescriptor>& descs) {
  std::map<std::string, const InputFlag*> files;
  std::vector<std::pair<const InputFlag*, ExternalWeights>> archives;
  for (const InputFlag& f : flags) {
    if (f.name.empty()) {
      archives.emplace_back(&f, for_flag(f, [&] { return ExternalWeights::open(f.file); }));
      continue;
    }
    if (!graph.inputs().contains(f.name)) {
      std::string known;
      for (const auto& [n, d] : graph.inputs()) known += (known.empty() ? "" : ", ") + n;
      throw DataError("--input " + f.text + ": the graph has no input '" + f.name +
                      "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }
    files.emplace(f.name, &f);
  }
  const std::optional<std::string> mode = a.value("inputs");
  if (mode) check_choice_flag("inputs", *mode, {"random", "zeros"});
  const uint64_t seed = a.value("seed") ? parse_unsigned_flag("seed", *a.value("seed")) : 0;
  NamedBytes out;
  uint64_t salt = 0;
  for (const auto& [name, desc] : graph.inputs()) {
    const uint64_t this_salt = salt++;
    descs[name] = desc;
    if (auto it = files.find(name); it != files.end()) {
      out.emplace(name, load_input(name, desc, *it->second, has_dynamic_dims(graph, name),
                                   &descs[name].shape));
      continue;
    }
    bool found = false;
    for (const auto& [flag, archive] : archives) {
      const auto names = archive.names();
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      out.emplace(name, load_input(name, desc, *flag));
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

// An element in --json output: integers as JSON integers (exact), finite floats as numbers,
// NaN and infinities as "nan", "inf", "-inf".
nlohmann::json value_json(const ExactNumber& v) {
  switch (v.kind) {
    case ExactNumber::Kind::kInt64:
      return v.i;
    case ExactNumber::Kind::kUint64:
      return v.u;
    case ExactNumber::Kind::kDouble:
      break;
  }
  return std::isfinite(v.d) ? nlohmann::json(v.d) : nlohmann::json(format_number(v.d));
}

// A file name for output `name`: characters other than [A-Za-z0-9_.-] become '_', and a name
// that would start with '.' (or be empty) gets a leading '_'.
std::string file_stem_for(const std::string& name) {
  // The mapping keeps a leading '.', so the prefix is decided from the name.
  std::string s = name.empty() || name[0] == '.' ? "_" : "";
  for (unsigned char c : name)
    s += (std::isalnum(c) && c < 0x80) || c == '_' || c == '-' || c == '.' ? char(c) : '_';
  return s;
}

// Output name -> file name in --output-dir, unique: outputs whose names are file names already
// keep them, the others get the first free of <stem>.npy, <stem>_2.npy, ...
std::map<std::string, std::string> output_file_names(const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  std::set<std::string> used;
  for (const std::string& n : names)
    if (file_stem_for(n) == n && used.insert(n + ".npy").second) out[n] = n + ".npy";
  for (const std::string& n : names) {
    if (out.contains(n)) continue;
    const std::string stem = file_stem_for(n);
    std::string file = stem + ".npy";
    for (int k = 2; used.contains(file); ++k) file = stem + "_" + std::to_string(k) + ".npy";
    used.insert(file);
    out[n] = file;
  }
  return out;
}

int run(const GraphArgs& a) {
  const uint64_t iterations =
      a.value("iterations") ? parse_unsigned_flag("iterations", *a.value("iterations")) : 0;
  MLContextOptions options{.backend = a.value("backend").value_or("")};
  if (auto t = a.value("threads"))
    options.numThreads = uint32_t(parse_unsigned_flag("threads", *t, 1, 1024));
  const std::vector<InputFlag> flags = input_flags(a);
  if (auto mode = a.value("inputs")) check_choice_flag("inputs", *mode, {"random", "zeros"});
  if (auto seed = a.value("seed")) parse_unsigned_flag("seed", *seed);
  MLContext context = MLContext::create(options);
  MLGraphBuilder builder(context);
  LoadedGraph loaded;
  load_graph_source(builder, a, loaded);
  MLGraph graph = builder.build(loaded.outputs);
  std::map<std::string, MLOperandDescriptor> input_descs;
  const NamedBytes input_values = bind_inputs(graph, a, flags, input_descs);
  GraphRunner runner(context, graph, input_values, input_descs);
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

  std::map<std::string, std::string> files;  // output name -> path in --output-dir
  if (auto dir = a.value("output-dir")) {
    std::error_code ec;
    fs::create_directories(*dir, ec);
    if (ec) throw DataError("--output-dir " + *dir + ": cannot create it: " + ec.message());
    std::vector<std::string> names;
    for (const auto& [name, bytes] : outputs) names.push_back(name);
    std::vector<fs::path> paths, inputs = loaded.files;
    for (const InputFlag& f : flags) inputs.push_back(f.file);
    for (const auto& [name, file] : output_file_names(names)) {
      files[name] = (fs::path(*dir) / file).string();
      paths.push_back(files[name]);
      if (file != file_stem_for(name) + ".npy")
        std::cerr << "note: output '" << name << "' is written as " << files[name] << " ("
                  << file_stem_for(name) << ".npy is another output's)\n";
    }
    throw_if_error(check_outputs(paths, inputs));
  }
  for (const auto& [name, bytes] : outputs) {
    const MLOperandDescriptor& desc = runner.output_desc(name);
    if (auto it = files.find(name); it != files.end()) {
      const std::string& path = it->second;
      throw_if_error(write_npy_file(path, {desc.dataType, desc.shape, bytes}));
      if (json)
        j["outputs"][name]["file"] = path;
      else
        std::cout << name << ": " << describe(desc) << " -> " << path << "\n";
      continue;
    }
    const TensorSummary s = summarize(desc, bytes);
    if (json) {
      nlohmann::json first = nlohmann::json::array();
      for (const ExactNumber& v : s.first) first.push_back(value_json(v));
      j["outputs"][name] = {{"dataType", std::string(data_type_name(desc.dataType))},
                            {"shape", desc.shape},
                            {"min", value_json(s.min)},
                            {"max", value_json(s.max)},
                            {"mean", s.mean},
                            {"nans", s.nans},
                            {"first", first}};
      continue;
    }
    std::cout << name << ": " << describe(desc) << "  min " << format_number(s.min) << "  max "
              << format_number(s.max) << "  mean " << format_number(s.mean);
    if (s.nans) std::cout << "  nan " << s.nans;
    std::cout << "\n  values:";
    for (const ExactNumber& v : s.first) std::cout << " " << format_number(v);
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
  if (json) std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 0;
}

}  // namespace

int run_run(const std::vector<std::string>& args) {
  GraphArgs a;
  if (auto rc = parse_command_line(
          find_command_spec("run"), args,
          std::string(kHelp) + "\n" + kGraphSourceHelp +
              "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n",
          a))
    return *rc;
  return run_command("run", [&] { return run(a); });
}

}  // namespace cppnn::tool
