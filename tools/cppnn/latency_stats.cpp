// Latency statistics.
#include "tools/cppnn/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace cppnn::tool {
namespace {

// Nearest rank: the smallest value with at least `fraction` of the values at or below it.
double nearest_rank(const std::vector<double>& sorted, double fraction) {
  const size_t rank = size_t(std::ceil(fraction * double(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

LatencyStats latency_stats(std::vector<double> ms) {
  LatencyStats s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  s.min = ms.front();
  s.max = ms.back();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  s.total = std::accumulate(ms.begin(), ms.end(), 0.0);
  s.mean = s.total / double(n);
  s.p90 = nearest_rank(ms, 0.9);
  s.p99 = nearest_rank(ms, 0.99);
  s.throughput = s.total > 0 ? double(n) * 1000.0 / s.total : 0;
  return s;
}

std::string format_latency(const LatencyStats& s) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "min %.3f ms, median %.3f ms, mean %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms "
                "(%zu runs, %.1f inferences/s)",
                s.min, s.median, s.mean, s.p90, s.p99, s.max, s.count, s.throughput);
  return buf;
}

nlohmann::json latency_json(const LatencyStats& s) {
  return {{"count", s.count},  {"min_ms", s.min},     {"median_ms", s.median},
          {"mean_ms", s.mean}, {"p90_ms", s.p90},     {"p99_ms", s.p99},
          {"max_ms", s.max},   {"total_ms", s.total}, {"throughput_per_s", s.throughput}};
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace cppnn::tool
