// Latency statistics of `cppnn run --iterations` and `cppnn bench`: min, median, mean, p90
// (nearest rank) and max of a list of timings in milliseconds.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cppnn::tool {

struct LatencyStats {
  size_t count = 0;
  double min = 0, median = 0, mean = 0, p90 = 0, max = 0;
};

// The statistics of `ms` (all zero when empty).
LatencyStats latency_stats(std::vector<double> ms);
// "min 1.234 ms, median ..., mean ..., p90 ..., max ... (N runs)".
std::string format_latency(const LatencyStats& s);
// {"count", "min_ms", "median_ms", "mean_ms", "p90_ms", "max_ms"}.
nlohmann::json latency_json(const LatencyStats& s);

// Milliseconds since `start` on the steady clock.
double ms_since(std::chrono::steady_clock::time_point start);

}  // namespace cppnn::tool
