// Metrics 1 and 3 of docs/performance.md (../shared) for the ONNX Runtime backend.
//
// Metric 1: MLContext::dispatch() on the ORT backend against calling ONNX Runtime's C++ API
// directly (Session::Run on pre-created OrtValues) on the same converted model (written by
// save_onnx), with the same session options (1 intra-op thread, 1 inter-op thread), for (a) a
// 1-op add over 1000 float32, (b) a 10-op add/relu chain, (c) a MobileNet-style conv net.
// A and B alternate round by round after a warm-up; each round times a batch of runs; the
// figure is the median round (at least 30 rounds).
//
// Metric 3: build time. cppnn's own work (recording through MLGraphBuilder plus the conversion
// to ONNX) per op, against ORT's session creation for the same model, for the conv net and a
// synthetic 10,000-op graph.
//
//   ort_dispatch_bench [--rounds N] [--json PATH]
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cppnn/onnx.h"
#include "cppnn/webnn.h"

namespace {

namespace fs = std::filesystem;
using namespace cppnn;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::vector<float> random_floats(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
  return std::as_bytes(std::span(v));
}

// A graph under test: how to record it, and its input and output descriptors.
struct Workload {
  std::string name;
  std::function<MLNamedOperands(MLGraphBuilder&)> record;
};

Workload add_1op() {
  return {"add_1op", [](MLGraphBuilder& b) {
            MLOperandDescriptor d{MLOperandDataType::kFloat32, {1000}};
            MLOperand x = b.input("x", d);
            static const std::vector<float> c = random_floats(1000, 1);
            return MLNamedOperands{{"y", b.add(x, b.constant(d, bytes_of(c)))}};
          }};
}

Workload chain_10op() {
  return {"add_relu_chain_10op", [](MLGraphBuilder& b) {
            MLOperandDescriptor d{MLOperandDataType::kFloat32, {1000}};
            MLOperand x = b.input("x", d);
            static const std::vector<float> c = random_floats(1000, 2);
            MLOperand k = b.constant(d, bytes_of(c));
            for (int i = 0; i < 5; ++i) x = b.relu(b.add(x, k));
            return MLNamedOperands{{"y", x}};
          }};
}

// MobileNet-style: a strided 3x3 stem, depthwise-separable blocks with relu6, global average
// pooling and a classifier.
Workload conv_net() {
  return {"mobilenet_style_convnet", [](MLGraphBuilder& b) {
            unsigned seed = 10;
            auto weight = [&](std::vector<uint32_t> shape) {
              size_t n = 1;
              for (uint32_t s : shape) n *= s;
              // Generated once per seed, so recording times measure the builder only.
              static std::map<unsigned, std::vector<float>> cache;
              auto it = cache.find(seed);
              if (it == cache.end()) it = cache.emplace(seed, random_floats(n, seed, 0.2f)).first;
              ++seed;
              return b.constant({MLOperandDataType::kFloat32, shape}, bytes_of(it->second));
            };
            auto relu6 = [&](MLOperand x) {
              return b.clamp(x, {.minValue = MLNumber(0.0), .maxValue = MLNumber(6.0)});
            };
            MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, 3, 112, 112}});
            x = relu6(b.conv2d(x, weight({16, 3, 3, 3}),
                               {.padding = std::vector<uint32_t>{1, 1, 1, 1},
                                .strides = std::vector<uint32_t>{2, 2},
                                .bias = weight({16})}));
            uint32_t channels = 16;
            const uint32_t widths[] = {32, 64, 64, 128, 128, 256};
            const uint32_t strides[] = {1, 2, 1, 2, 1, 2};
            for (int i = 0; i < 6; ++i) {
              x = relu6(b.conv2d(x, weight({channels, 1, 3, 3}),
                                 {.padding = std::vector<uint32_t>{1, 1, 1, 1},
                                  .strides = std::vector<uint32_t>{strides[i], strides[i]},
                                  .groups = channels,
                                  .bias = weight({channels})}));
              x = relu6(
                  b.conv2d(x, weight({widths[i], channels, 1, 1}), {.bias = weight({widths[i]})}));
              channels = widths[i];
            }
            x = b.averagePool2d(x);
            x = b.reshape(x, {1, channels});
            x = b.gemm(x, weight({channels, 100}), {.c = weight({100})});
            return MLNamedOperands{{"y", b.softmax(x, 1)}};
          }};
}

// A synthetic graph of `ops` small elementwise operations (metric 3).
Workload synthetic(int ops) {
  return {"synthetic_" + std::to_string(ops) + "op", [ops](MLGraphBuilder& b) {
            MLOperandDescriptor d{MLOperandDataType::kFloat32, {16}};
            MLOperand x = b.input("x", d);
            static const std::vector<float> c = random_floats(16, 3);
            MLOperand k = b.constant(d, bytes_of(c));
            for (int i = 0; i < ops; ++i) x = (i % 2) ? b.relu(x) : b.add(x, k);
            return MLNamedOperands{{"y", x}};
          }};
}

const Ort::Env& env() {
  static Ort::Env e(ORT_LOGGING_LEVEL_ERROR, "bench");
  return e;
}

Ort::SessionOptions session_options() {
  Ort::SessionOptions o;
  o.SetIntraOpNumThreads(1);
  o.SetInterOpNumThreads(1);
  return o;
}

// The raw-ORT peer: the same model from its file, OrtValues created once.
struct RawOrt {
  Ort::Session session{nullptr};
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  std::vector<std::string> in_names, out_names;
  std::vector<const char*> in_c, out_c;
  std::vector<std::vector<std::byte>> buffers;
  std::vector<Ort::Value> in_values, out_values;

  RawOrt(const fs::path& model, const MLGraph& g) {
    session = Ort::Session(env(), model.c_str(), session_options());
    auto make = [&](const MLOperandDescriptor& d, std::vector<Ort::Value>& values) {
      buffers.emplace_back(byte_length(d));
      std::vector<int64_t> shape(d.shape.begin(), d.shape.end());
      values.push_back(Ort::Value::CreateTensor(memory, buffers.back().data(),
                                                buffers.back().size(), shape.data(), shape.size(),
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    };
    buffers.reserve(g.inputs().size() + g.outputs().size());
    for (const auto& [name, d] : g.inputs()) {
      in_names.push_back(name);
      make(d, in_values);
    }
    for (const auto& [name, d] : g.outputs()) {
      out_names.push_back(name);
      make(d, out_values);
    }
    for (auto& n : in_names) in_c.push_back(n.c_str());
    for (auto& n : out_names) out_c.push_back(n.c_str());
  }
  void run() {
    session.Run(Ort::RunOptions{nullptr}, in_c.data(), in_values.data(), in_values.size(),
                out_c.data(), out_values.data(), out_values.size());
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Metric 1 for one workload.
nlohmann::json dispatch_ratio(const Workload& w, int rounds, const fs::path& dir) {
  MLContext context = MLContext::create({.backend = "ort", .numThreads = 1});
  MLGraphBuilder builder(context);
  MLGraph graph = builder.build(w.record(builder));
  const fs::path model = dir / (w.name + ".onnx");
  save_onnx(graph, model);
  RawOrt raw(model, graph);

  MLNamedTensors inputs, outputs;
  for (const auto& [name, d] : graph.inputs()) {
    MLTensor t = context.createTensor(MLTensorDescriptor::of(d, false, true));
    context.writeTensor(t, bytes_of(random_floats(byte_length(d) / 4, 7)));
    inputs.emplace(name, t);
  }
  for (const auto& [name, d] : graph.outputs())
    outputs.emplace(name, context.createTensor(MLTensorDescriptor::of(d, true, false)));
  auto cppnn_run = [&] { context.dispatch(graph, inputs, outputs); };

  // A batch lasts about 20 ms.
  cppnn_run();
  const auto probe = Clock::now();
  for (int i = 0; i < 10; ++i) cppnn_run();
  const double per_run = seconds_since(probe) / 10;
  const int batch = std::max(1, static_cast<int>(0.02 / std::max(per_run, 1e-9)));

  // Rounds alternate A B and B A, so neither side always runs second.
  std::vector<double> a, b;
  auto time_batch = [&](auto&& run) {
    const auto t = Clock::now();
    for (int i = 0; i < batch; ++i) run();
    return seconds_since(t) / batch;
  };
  for (int r = -6; r < rounds; ++r) {  // 6 warm-up rounds
    double ta, tb;
    if (r % 2 == 0) {
      ta = time_batch(cppnn_run);
      tb = time_batch([&] { raw.run(); });
    } else {
      tb = time_batch([&] { raw.run(); });
      ta = time_batch(cppnn_run);
    }
    if (r >= 0) {
      a.push_back(ta);
      b.push_back(tb);
    }
  }
  const double ma = median(a), mb = median(b);
  std::printf("%-26s cppnn dispatch %10.2f us   raw ORT Run %10.2f us   ratio %.3f\n",
              w.name.c_str(), ma * 1e6, mb * 1e6, ma / mb);
  return {{"workload", w.name}, {"cppnn_us", ma * 1e6}, {"raw_ort_us", mb * 1e6},
          {"ratio", ma / mb},   {"rounds", rounds},     {"batch", batch}};
}

// Metric 3 for one workload: cppnn's own build work per op against ORT session creation.
nlohmann::json build_time(const Workload& w, const fs::path& dir) {
  MLContext context = MLContext::create({.backend = "ort", .numThreads = 1});
  std::vector<double> record, convert, session, ops;
  for (int r = 0; r < 5; ++r) {
    MLGraphBuilder builder(context);
    auto t = Clock::now();
    MLNamedOperands outs = w.record(builder);
    record.push_back(seconds_since(t));
    MLGraph graph = builder.build(outs);
    ops.push_back(static_cast<double>(graph.graph().operations.size()));
    t = Clock::now();
    const std::string bytes = to_onnx_bytes(graph.graph());
    convert.push_back(seconds_since(t));
    const fs::path model = dir / (w.name + "-build.onnx");
    std::ofstream(model, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    t = Clock::now();
    Ort::Session s(env(), bytes.data(), bytes.size(), session_options());
    session.push_back(seconds_since(t));
  }
  const double n = ops[0], own = median(record) + median(convert), ort = median(session);
  std::printf(
      "%-26s %6.0f ops: record %8.3f ms + convert %8.3f ms = %.3f us/op; "
      "ORT session %9.3f ms; own/ORT %.3f\n",
      w.name.c_str(), n, median(record) * 1e3, median(convert) * 1e3, own / n * 1e6, ort * 1e3,
      own / ort);
  return {{"workload", w.name},
          {"ops", n},
          {"record_ms", median(record) * 1e3},
          {"convert_ms", median(convert) * 1e3},
          {"own_us_per_op", own / n * 1e6},
          {"ort_session_ms", ort * 1e3},
          {"own_over_ort", own / ort}};
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 31;
  std::string json_path = "reports/bench-ort-dispatch.json";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(30, std::atoi(argv[++i]));
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::cerr << "usage: ort_dispatch_bench [--rounds N] [--json PATH]\n";
      return 1;
    }
  }
  const fs::path dir = fs::temp_directory_path() / "cppnn-ort-bench";
  fs::create_directories(dir);
  nlohmann::json report = {{"benchmark", "ort_dispatch"}, {"threads", 1}};
  std::printf("metric 1: dispatch latency, cppnn ORT backend vs raw ORT C API (median of %d)\n",
              rounds);
  int status = 0;
  auto guarded = [&](const Workload& w, auto&& measure) {
    try {
      return measure(w);
    } catch (const std::exception& e) {
      std::printf("%-26s failed: %s\n", w.name.c_str(), e.what());
      status = 2;
      return nlohmann::json{{"workload", w.name}, {"error", e.what()}};
    }
  };
  for (const Workload& w : {add_1op(), chain_10op(), conv_net()})
    report["dispatch"].push_back(
        guarded(w, [&](const Workload& x) { return dispatch_ratio(x, rounds, dir); }));
  std::printf("metric 3: build time, cppnn's own work vs ORT session creation\n");
  for (const Workload& w : {conv_net(), synthetic(10000)})
    report["build"].push_back(guarded(w, [&](const Workload& x) { return build_time(x, dir); }));
  fs::remove_all(dir);
  fs::create_directories(fs::path(json_path).parent_path());
  std::ofstream(json_path) << report.dump(2) << "\n";
  std::printf("report: %s\n", json_path.c_str());
  return status;
}
