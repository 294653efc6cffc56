// Peak resident memory of one dispatch on the reference backend against ONNX Runtime: the
// PaddleOCR v4 text detector (.deps/models/ch_PP-OCRv4_det_infer.onnx, scripts/fetch-models.sh)
// at 1x3xSIZExSIZE (default 640).
//
//   reference_memory_bench [--model PATH] [--size N] [--webnn PATH] [--json PATH] [--keep]
//
// The model is converted once with cppnn's importer (`cppnn convert-onnx`, found beside this
// program, with the dimension overrides of the Makefile's det.webnn rule) into a .webnn graph and
// its SafeTensors sidecar in a temporary folder (or --webnn names a converted graph). Then each
// side runs in a fresh child process (this program re-executed with a mode flag) whose VmHWM
// (/proc/self/status, reset by exec) covers exactly: process start, loading the model, building
// it (cppnn: load_graph_file with the weights mapped, build on the reference backend; ORT: the
// session over the original .onnx, 1 intra-op and 1 inter-op thread) and one dispatch of the same
// deterministic input. The parent prints both peaks and their ratio (target: the reference
// backend at most 2x ORT), the largest difference between the two outputs, and the reference
// backend's planned arena (src/passes/memory_plan.h) against one buffer per intermediate, and
// writes reports/bench-reference-memory.json. Exit status 1 when the ratio exceeds the target; 0
// with a note when the model is missing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/child_process.h"
#include "cppnn/formats.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "src/passes/memory_plan.h"

#ifdef CPPNN_HAVE_ORT
#include <onnxruntime_cxx_api.h>
#endif

namespace {

namespace fs = std::filesystem;
using namespace cppnn;
using namespace cppnn::bench;
using Clock = std::chrono::steady_clock;

constexpr double kTarget = 2.0;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The deterministic input image, 1x3xSIZExSIZE float32 in [-1, 1].
std::vector<float> input_image(uint32_t size) {
  return pattern_input(size_t{3} * size * size);
}

// The measured reference run: loads and builds `graph_file`, dispatches once, writes the output
// to `out`, prints "start_kb peak_kb build_ms dispatch_ms".
int measure_reference(const fs::path& graph_file, uint32_t size, const fs::path& out) {
  const long start_kb = peak_rss_kb();
  auto t = Clock::now();
  MLContext context = MLContext::create({.backend = "reference"});
  std::string text;
  {
    std::ifstream in(graph_file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ExternalWeights ew = ExternalWeights::for_graph(graph_file);
  MLGraphBuilder builder(context);
  MLNamedOperands outputs =
      load_graph_file(builder, text, graph_file.string(),
                      [&](const std::string& name, const std::string& ref,
                          const MLOperandDescriptor& d) { return ew.load(ref, d, name); });
  MLGraph graph = builder.build(outputs);
  const double build_ms = ms_since(t);
  MLNamedTensors inputs, results;
  const std::vector<float> image = input_image(size);
  for (const auto& [name, d] : graph.inputs()) {
    MLTensor x = context.createTensor(MLTensorDescriptor::of(d, false, true));
    context.writeTensor(x, std::as_bytes(std::span(image)));
    inputs.emplace(name, x);
  }
  for (const auto& [name, d] : graph.outputs())
    results.emplace(name, context.createTensor(MLTensorDescriptor::of(d, true, false)));
  t = Clock::now();
  context.dispatch(graph, inputs, results);
  const std::vector<float> y = context.readTensor<float>(results.begin()->second);
  const double dispatch_ms = ms_since(t);
  write_floats(out, y);
  std::printf("%ld %ld %.3f %.3f\n", start_kb, peak_rss_kb(), build_ms, dispatch_ms);
  return 0;
}

// The measured ORT run over the original model, same input and output protocol.
int measure_ort([[maybe_unused]] const fs::path& model, [[maybe_unused]] uint32_t size,
                [[maybe_unused]] const fs::path& out) {
#ifdef CPPNN_HAVE_ORT
  const long start_kb = peak_rss_kb();
  auto t = Clock::now();
  Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "reference_memory_bench");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  options.SetInterOpNumThreads(1);
  Ort::Session session(env, model.c_str(), options);
  Ort::AllocatorWithDefaultOptions allocator;
  const std::string in_name = session.GetInputNameAllocated(0, allocator).get();
  const std::string out_name = session.GetOutputNameAllocated(0, allocator).get();
  const double build_ms = ms_since(t);
  std::vector<float> image = input_image(size);
  const std::vector<int64_t> shape{1, 3, size, size};
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  Ort::Value x = Ort::Value::CreateTensor<float>(memory, image.data(), image.size(), shape.data(),
                                                 shape.size());
  const char* in_c = in_name.c_str();
  const char* out_c = out_name.c_str();
  t = Clock::now();
  std::vector<Ort::Value> y = session.Run(Ort::RunOptions{nullptr}, &in_c, &x, 1, &out_c, 1);
  const double dispatch_ms = ms_since(t);
  const size_t n = y[0].GetTensorTypeAndShapeInfo().GetElementCount();
  write_floats(out, std::span(y[0].GetTensorData<float>(), n));
  std::printf("%ld %ld %.3f %.3f\n", start_kb, peak_rss_kb(), build_ms, dispatch_ms);
  return 0;
#else
  std::fprintf(stderr, "reference_memory_bench: built without ONNX Runtime\n");
  return 3;
#endif
}

// One measured side: its child's figures.
struct Measured {
  long start_kb = 0, peak_kb = 0;
  double build_ms = 0, dispatch_ms = 0;
  std::vector<float> output;
};

// Runs this program in `mode` on `file` and reads its figures and output; nullopt on failure.
std::optional<Measured> measure_in_child(const std::string& self, const std::string& mode,
                                         const fs::path& file, uint32_t size, const fs::path& out) {
  const auto [status, text] =
      run_child({self, mode, file.string(), std::to_string(size), out.string()});
  Measured m;
  if (status != 0 || std::sscanf(text.c_str(), "%ld %ld %lf %lf", &m.start_kb, &m.peak_kb,
                                 &m.build_ms, &m.dispatch_ms) != 4) {
    std::fprintf(stderr, "reference_memory_bench: %s failed (status %d): %s\n", mode.c_str(),
                 status, text.c_str());
    return std::nullopt;
  }
  m.output = read_floats(out);
  return m;
}

// The memory plan of the graph as the reference backend compiles it.
passes::MemoryPlan plan_of(const fs::path& graph_file) {
  MLContext context = MLContext::create({.backend = "reference"});
  std::ifstream in(graph_file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ExternalWeights ew = ExternalWeights::for_graph(graph_file);
  MLGraphBuilder builder(context);
  MLNamedOperands outputs =
      load_graph_file(builder, text, graph_file.string(),
                      [&](const std::string& name, const std::string& ref,
                          const MLOperandDescriptor& d) { return ew.load(ref, d, name); });
  return passes::plan_memory(builder.build(outputs).graph());
}

nlohmann::json side_json(const Measured& m) {
  return {{"rss_start_kb", m.start_kb},
          {"rss_peak_kb", m.peak_kb},
          {"rss_peak_mib", m.peak_kb / 1024.0},
          {"load_build_ms", m.build_ms},
          {"dispatch_ms", m.dispatch_ms}};
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--measure-reference")
    return measure_reference(argv[2], static_cast<uint32_t>(std::stoul(argv[3])), argv[4]);
  if (argc == 5 && std::string(argv[1]) == "--measure-ort")
    return measure_ort(argv[2], static_cast<uint32_t>(std::stoul(argv[3])), argv[4]);
  fs::path model = ".deps/models/ch_PP-OCRv4_det_infer.onnx";
  std::optional<fs::path> webnn;
  std::string json_path = "reports/bench-reference-memory.json";
  uint32_t size = 640;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--model") {
      model = next();
    } else if (a == "--webnn") {
      webnn = next();
    } else if (a == "--size") {
      size = static_cast<uint32_t>(std::stoul(next()));
    } else if (a == "--json") {
      json_path = next();
    } else if (a == "--keep") {
      keep = true;
    } else {
      std::cerr << "usage: reference_memory_bench [--model PATH] [--size N] [--webnn PATH] "
                   "[--json PATH] [--keep]\n";
      return a == "--help" ? 0 : 1;
    }
  }
  if (!fs::exists(model)) {
    std::printf("reference_memory_bench: %s missing (scripts/fetch-models.sh); skipped\n",
                model.c_str());
    return 0;
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string pattern = (fs::temp_directory_path() / "cppnn-memory-bench-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return 2;
  const fs::path dir = pattern;
  auto cleanup = [&] {
    if (keep)
      std::printf("kept %s\n", dir.c_str());
    else
      fs::remove_all(dir);
  };
  if (!webnn) {
    // Converted like the Makefile's det.webnn rule (the weights go to det.safetensors beside).
    webnn = dir / "det.webnn";
    const std::string d = std::to_string(size);
    const auto [status, text] = run_child(
        {(fs::path(self).parent_path() / "cppnn").string(), "convert-onnx", model.string(), "-o",
         webnn->string(), "--override-dim", "p2o.DynamicDimension.0=1", "--override-dim",
         "p2o.DynamicDimension.1=" + d, "--override-dim", "p2o.DynamicDimension.2=" + d});
    if (status != 0) {
      std::fprintf(stderr, "reference_memory_bench: cppnn convert-onnx failed (status %d)%s\n",
                   status, status == 127 ? "; pass --webnn PATH to a converted graph" : "");
      cleanup();
      return 2;
    }
  }
  const std::optional<Measured> ref =
      measure_in_child(self, "--measure-reference", *webnn, size, dir / "reference.out");
  std::optional<Measured> ort;
#ifdef CPPNN_HAVE_ORT
  ort = measure_in_child(self, "--measure-ort", model, size, dir / "ort.out");
#endif
  const passes::MemoryPlan plan = plan_of(*webnn);
  cleanup();
  if (!ref) return 2;
  const double mib = 1024.0 * 1024.0;
  std::printf("model               %s at 1x3x%ux%u\n", model.filename().c_str(), size, size);
  std::printf("intermediates       planned arena %.1f MiB, one buffer each %.1f MiB (%.2fx)\n",
              double(plan.arena_bytes) / mib, double(plan.unplanned_bytes) / mib,
              double(plan.unplanned_bytes) / double(std::max<uint64_t>(plan.arena_bytes, 1)));
  std::printf(
      "reference backend   peak RSS %.1f MiB (start %.1f MiB; load+build %.0f ms, "
      "dispatch %.0f ms)\n",
      ref->peak_kb / 1024.0, ref->start_kb / 1024.0, ref->build_ms, ref->dispatch_ms);
  nlohmann::json report = {
      {"benchmark", "reference_memory"},
      {"model", model.filename().string()},
      {"input_shape", {1, 3, size, size}},
      {"reference", side_json(*ref)},
      {"arena_bytes", plan.arena_bytes},
      {"unplanned_bytes", plan.unplanned_bytes},
      {"target", kTarget},
  };
  int status = 0;
  if (ort) {
    const double ratio = double(ref->peak_kb) / double(ort->peak_kb);
    const double diff = max_abs_diff(ref->output, ort->output);
    std::printf(
        "ONNX Runtime        peak RSS %.1f MiB (start %.1f MiB; session %.0f ms, "
        "run %.0f ms)\n",
        ort->peak_kb / 1024.0, ort->start_kb / 1024.0, ort->build_ms, ort->dispatch_ms);
    std::printf(
        "ratio               %.3fx ORT's peak (target <= %.1f); outputs differ by at "
        "most %.3g\n",
        ratio, kTarget, diff);
    report["ort"] = side_json(*ort);
    report["ratio"] = ratio;
    report["max_abs_diff"] = diff;
    status = ratio <= kTarget ? 0 : 1;
  } else {
    std::printf("ONNX Runtime        not measured (built without it, or its run failed)\n");
  }
  if (fs::path(json_path).has_parent_path())
    fs::create_directories(fs::path(json_path).parent_path());
  std::ofstream(json_path) << report.dump(2) << "\n";
  std::printf("report: %s\n", json_path.c_str());
  return status;
}
