// Latency statistics of `cppnn run --iterations` and `cppnn bench`: min, median, mean, p90 and
// p99 (nearest rank), max of a list of timings in milliseconds, and the throughput they give.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cppnn::tool {

struct LatencyStats {
  size_t count = 0;
  double min = 0, median = 0, mean = 0, p90 = 0, p99 = 0, max = 0;
  double total = 0;       // the sum of the timings (ms)
  double throughput = 0;  // inferences per second: count / total (0 when empty)
};

// The statistics of `ms` (all zero when empty).
LatencyStats latency_stats(std::vector<double> ms);
// "min 1.234 ms, median ..., mean ..., p90 ..., p99 ..., max ... (N runs, X inferences/s)".
std::string format_latency(const LatencyStats& s);
// {"count", "min_ms", "median_ms", "mean_ms", "p90_ms", "p99_ms", "max_ms", "total_ms",
// "throughput_per_s"}.
nlohmann::json latency_json(const LatencyStats& s);

// Milliseconds since `start` on the steady clock.
double ms_since(std::chrono::steady_clock::time_point start);

}  // namespace cppnn::tool
