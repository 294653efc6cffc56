// `cppnn bench GRAPH`: per backend, the time to build the graph and the latency of dispatch +
// reading the outputs over N timed rounds after W warm-up rounds (random inputs, seed 0).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "src/core/atomic_file.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_runner.h"
#include "tools/cppnn/graph_source.h"
#include "tools/cppnn/latency_stats.h"
#include "tools/cppnn/profile_report.h"

namespace cppnn::tool {
namespace {

const char kHelp[] =
    "usage: cppnn bench GRAPH [--backend B]... [--iterations N] [--warmup N] [--threads N]\n"
    "                   [--profile] [--profile-top N] [--trace FILE] [--json]\n\n"
    "Benchmarks GRAPH on each backend B (repeatable or comma-separated; default: every\n"
    "compiled-in backend): the time of MLGraphBuilder::build(), then W warm-up rounds (default\n"
    "1) and N timed rounds (default 10) of dispatch + reading every output, on random inputs\n"
    "(seed 0). --threads N sets the context's thread count (MLContextOptions::numThreads).\n"
    "Prints one line per backend (build time; latency min, median, mean, p90, p99, max; and\n"
    "the throughput in inferences/s), or with --json one object {graph, name, iterations,\n"
    "warmup, threads, backends: [{backend, build_ms, latency: {count, min_ms, median_ms,\n"
    "mean_ms, p90_ms, p99_ms, max_ms, total_ms, throughput_per_s}} or {backend, error}]}.\n"
    "A backend that fails is reported and the others still run; the exit status is then 1.\n\n"
    "--profile times every operation of the timed rounds (MLContextOptions::profile; cpu and\n"
    "reference) and prints, per backend, the operations most expensive first (share, ms per\n"
    "dispatch, runs per dispatch, kernel: fast or reference, op, label; the first N of\n"
    "--profile-top, default 25) and the time per op and kernel; with --json each backend gets\n"
    "a \"profile\" object. --trace FILE (one backend) also writes the timed rounds as a Chrome\n"
    "trace (JSON) that Perfetto (ui.perfetto.dev) and chrome://tracing open.\n";

struct BackendResult {
  std::string backend;
  double build_ms = 0;
  LatencyStats latency;
  MLGraphProfile profile;  // of the timed rounds, with --profile or --trace
  std::string error;
};

BackendResult bench_one(const GraphArgs& a, const std::string& backend, uint64_t iterations,
                        uint64_t warmup, uint32_t threads, bool profile) {
  BackendResult r{.backend = backend};
  try {
    MLContext context =
        MLContext::create({.backend = backend, .numThreads = threads, .profile = profile});
    MLGraphBuilder builder(context);
    LoadedGraph loaded;
    load_graph_source(builder, a, loaded);
    auto start = std::chrono::steady_clock::now();
    MLGraph graph = builder.build(loaded.outputs);
    r.build_ms = ms_since(start);
    GraphRunner runner(context, graph, generated_inputs(graph, true, 0));
    for (uint64_t i = 0; i < warmup; ++i) runner.run();
    const MLGraphProfile after_warmup = profile ? graph.profile() : MLGraphProfile{};
    std::vector<double> times;
    for (uint64_t i = 0; i < iterations; ++i) {
      start = std::chrono::steady_clock::now();
      runner.run();
      times.push_back(ms_since(start));
    }
    r.latency = latency_stats(times);
    if (profile) r.profile = profile_since(after_warmup, graph.profile());
  } catch (const Error& e) {
    r.error = std::string(e.name()) + ": " + e.what();
  }
  return r;
}

int bench(const GraphArgs& a) {
  const uint64_t iterations =
      a.value("iterations") ? parse_unsigned_flag("iterations", *a.value("iterations"), 1) : 10;
  const uint64_t warmup =
      a.value("warmup") ? parse_unsigned_flag("warmup", *a.value("warmup"), 0) : 1;
  const uint32_t threads =
      a.value("threads") ? uint32_t(parse_unsigned_flag("threads", *a.value("threads"), 1, 1024))
                         : 0;
  std::vector<std::string> backends;
  for (const std::string& v : all_values(a, "backend")) {
    size_t start = 0;
    for (;;) {
      const size_t comma = v.find(',', start);
      const std::string b = v.substr(start, comma - start);
      if (!b.empty()) backends.push_back(b);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (backends.empty()) backends = compiled_backends();
  const auto known = compiled_backends(/*with_test_only=*/true);
  for (const std::string& b : backends)
    if (std::find(known.begin(), known.end(), b) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw DataError("--backend " + b + ": not compiled in (backends: " + list + ")");
    }
  const std::optional<std::string> trace = a.value("trace");
  const bool profile = a.has("profile") || trace.has_value();
  const size_t top =
      a.value("profile-top") ? parse_unsigned_flag("profile-top", *a.value("profile-top"), 1) : 25;
  if (trace && backends.size() != 1)
    throw DataError("--trace writes one backend's trace: name one --backend");
  // Load once up front so that a bad file is reported once, as bad input.
  std::string name;
  {
    MLContext context = MLContext::create({.backend = "reference"});
    MLGraphBuilder builder(context);
    LoadedGraph loaded;
    load_graph_source(builder, a, loaded);
    (void)builder.pruned_graph(loaded.outputs);
    name = loaded.name;
  }
  std::vector<BackendResult> results;
  for (const std::string& b : backends)
    results.push_back(bench_one(a, b, iterations, warmup, threads, profile));
  if (trace && results[0].error.empty()) {
    if (!results[0].profile.available)
      throw DataError("--trace: the " + results[0].backend + " backend does not time operations");
    if (Status st = write_file_atomically(*trace, chrome_trace_json(results[0].profile)); !st)
      throw DataError("--trace: " + st.error().message);
  }

  bool failed = false;
  if (a.has("json")) {
    nlohmann::json list = nlohmann::json::array();
    for (const BackendResult& r : results) {
      if (!r.error.empty()) {
        list.push_back({{"backend", r.backend}, {"error", r.error}});
        failed = true;
        continue;
      }
      list.push_back(
          {{"backend", r.backend}, {"build_ms", r.build_ms}, {"latency", latency_json(r.latency)}});
      if (profile) list.back()["profile"] = profile_json(r.profile);
    }
    nlohmann::json j = {{"graph", a.path},  {"name", name},       {"iterations", iterations},
                        {"warmup", warmup}, {"threads", threads}, {"backends", list}};
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return failed ? 1 : 0;
  }
  std::printf("%s: %llu runs after %llu warm-up; times in ms\n", name.c_str(),
              static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(warmup));
  std::printf("%-10s %10s %10s %10s %10s %10s %10s %10s %12s\n", "backend", "build", "min",
              "median", "mean", "p90", "p99", "max", "inferences/s");
  for (const BackendResult& r : results) {
    if (!r.error.empty()) {
      std::printf("%-10s failed: %s\n", r.backend.c_str(), r.error.c_str());
      failed = true;
      continue;
    }
    std::printf("%-10s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %12.1f\n",
                r.backend.c_str(), r.build_ms, r.latency.min, r.latency.median, r.latency.mean,
                r.latency.p90, r.latency.p99, r.latency.max, r.latency.throughput);
  }
  if (profile)
    for (const BackendResult& r : results)
      if (r.error.empty()) print_profile(stdout, r.backend, r.profile, top);
  std::fflush(stdout);
  return failed ? 1 : 0;
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("bench"), args,
                                   std::string(kHelp) + "\n" + kGraphSourceHelp +
                                       "Exit status: 0 success, 1 bad input or a failed backend, 2 "
                                       "usage or internal error.\n",
                                   a))
    return *rc;
  return run_command("bench", [&] { return bench(a); });
}

}  // namespace cppnn::tool
