// Per-operation profile reports of `cppnn bench` (see profile_report.h).
#include "tools/cppnn/profile_report.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

namespace cppnn::tool {
namespace {

// Indices of p.operations, most expensive first (ties in execution order).
std::vector<size_t> by_cost(const MLGraphProfile& p) {
  std::vector<size_t> order(p.operations.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return p.operations[a].seconds > p.operations[b].seconds;
  });
  return order;
}

double share_of(double seconds, double total) {
  return total > 0 ? 100.0 * seconds / total : 0.0;
}

}  // namespace

MLGraphProfile profile_since(const MLGraphProfile& before, const MLGraphProfile& after) {
  if (before.operations.size() != after.operations.size()) return after;
  for (size_t i = 0; i < before.operations.size(); ++i) {
    const MLOperationProfile &b = before.operations[i], &a = after.operations[i];
    if (b.name != a.name || b.op != a.op || b.kernel != a.kernel || b.runs > a.runs) return after;
  }
  MLGraphProfile d = after;
  d.dispatches -= std::min(before.dispatches, after.dispatches);
  d.seconds = std::max(0.0, after.seconds - before.seconds);
  for (size_t i = 0; i < d.operations.size(); ++i) {
    d.operations[i].runs -= before.operations[i].runs;
    d.operations[i].seconds = std::max(0.0, d.operations[i].seconds - before.operations[i].seconds);
  }
  const double last = before.events.empty() ? -1.0 : before.events.back().start_us;
  d.events.erase(std::remove_if(d.events.begin(), d.events.end(),
                                [&](const MLTraceEvent& e) { return e.start_us <= last; }),
                 d.events.end());
  return d;
}

void print_profile(std::FILE* out, const std::string& backend, const MLGraphProfile& p,
                   size_t top) {
  if (!p.available) {
    std::fprintf(out, "profile (%s): not available (this backend does not time operations)\n",
                 backend.c_str());
    return;
  }
  const double dispatches = p.dispatches ? double(p.dispatches) : 1.0;
  double total = 0;
  for (const MLOperationProfile& o : p.operations) total += o.seconds;
  std::fprintf(out,
               "profile (%s): %llu dispatches, %.3f ms per dispatch (%.3f ms in operations); "
               "per operation, most expensive first:\n",
               backend.c_str(), static_cast<unsigned long long>(p.dispatches),
               1e3 * p.seconds / dispatches, 1e3 * total / dispatches);
  std::fprintf(out, "  %6s %10s %5s %-9s %-22s %s\n", "share", "ms", "runs", "kernel", "op",
               "name");
  const std::vector<size_t> order = by_cost(p);
  double rest = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const MLOperationProfile& o = p.operations[order[k]];
    if (k >= top) {
      rest += o.seconds;
      continue;
    }
    std::fprintf(out, "  %5.1f%% %10.4f %5.3g %-9s %-22s %s\n", share_of(o.seconds, total),
                 1e3 * o.seconds / dispatches, double(o.runs) / dispatches, o.kernel.c_str(),
                 o.op.c_str(), o.name.c_str());
  }
  if (order.size() > top)
    std::fprintf(out, "  %5.1f%% %10.4f       (%zu more operations)\n", share_of(rest, total),
                 1e3 * rest / dispatches, order.size() - top);
  // Per op and kernel.
  std::map<std::pair<std::string, std::string>, std::pair<double, size_t>> per_op;
  for (const MLOperationProfile& o : p.operations) {
    auto& [seconds, count] = per_op[{o.op, o.kernel}];
    seconds += o.seconds;
    ++count;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, std::pair<double, size_t>>> rows(
      per_op.begin(), per_op.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::fprintf(out, "  per op:\n  %6s %10s %5s %-9s %s\n", "share", "ms", "ops", "kernel", "op");
  for (const auto& [key, value] : rows)
    std::fprintf(out, "  %5.1f%% %10.4f %5zu %-9s %s\n", share_of(value.first, total),
                 1e3 * value.first / dispatches, value.second, key.second.c_str(),
                 key.first.c_str());
  if (p.dropped_events)
    std::fprintf(out, "  (%llu runs past the trace's limit are counted but not in the trace)\n",
                 static_cast<unsigned long long>(p.dropped_events));
}

nlohmann::json profile_json(const MLGraphProfile& p) {
  if (!p.available) return nullptr;
  const double dispatches = p.dispatches ? double(p.dispatches) : 1.0;
  double total = 0;
  for (const MLOperationProfile& o : p.operations) total += o.seconds;
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i : by_cost(p)) {
    const MLOperationProfile& o = p.operations[i];
    ops.push_back({{"name", o.name},
                   {"op", o.op},
                   {"kernel", o.kernel},
                   {"runs", o.runs},
                   {"ms", 1e3 * o.seconds / dispatches},
                   {"share", share_of(o.seconds, total) / 100.0}});
  }
  return {{"dispatches", p.dispatches},
          {"ms_per_dispatch", 1e3 * p.seconds / dispatches},
          {"operations", std::move(ops)}};
}

}  // namespace cppnn::tool
