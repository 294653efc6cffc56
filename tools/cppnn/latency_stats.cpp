// Latency statistics.
#include "tools/cppnn/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace cppnn::tool {

LatencyStats latency_stats(std::vector<double> ms) {
  LatencyStats s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  s.min = ms.front();
  s.max = ms.back();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  s.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / double(n);
  // Nearest rank: the smallest value with at least 90% of the values at or below it.
  const size_t rank = size_t(std::ceil(0.9 * double(n)));
  s.p90 = ms[std::max<size_t>(rank, 1) - 1];
  return s;
}

std::string format_latency(const LatencyStats& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "min %.3f ms, median %.3f ms, mean %.3f ms, p90 %.3f ms, max %.3f ms (%zu runs)",
                s.min, s.median, s.mean, s.p90, s.max, s.count);
  return buf;
}

nlohmann::json latency_json(const LatencyStats& s) {
  return {{"count", s.count},  {"min_ms", s.min}, {"median_ms", s.median},
          {"mean_ms", s.mean}, {"p90_ms", s.p90}, {"max_ms", s.max}};
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace cppnn::tool
