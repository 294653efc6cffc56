// Per-operation timings of a compiled graph (see plan_profiler.h).
#include "src/backends/plan_profiler.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace cppnn {
namespace {

double microseconds(PlanProfiler::Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
}

double seconds_between(PlanProfiler::Clock::time_point begin, PlanProfiler::Clock::time_point end) {
  return std::chrono::duration<double>(end - begin).count();
}

}  // namespace

uint32_t PlanProfiler::add(std::string name, std::string op, std::string kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  profile_.available = true;
  profile_.operations.push_back(
      {.name = std::move(name), .op = std::move(op), .kernel = std::move(kernel)});
  return static_cast<uint32_t>(profile_.operations.size() - 1);
}

void PlanProfiler::record(uint32_t entry, Clock::time_point begin, Clock::time_point end) {
  MLOperationProfile& p = profile_.operations[entry];
  ++p.runs;
  p.seconds += seconds_between(begin, end);
  if (profile_.events.size() < MLGraphProfile::kMaxTraceEvents) {
    profile_.events.push_back(
        {entry, microseconds(begin), microseconds(end) - microseconds(begin)});
  } else {
    ++profile_.dropped_events;
  }
}

void PlanProfiler::finish(Clock::time_point begin, Clock::time_point end) {
  ++profile_.dispatches;
  profile_.seconds += seconds_between(begin, end);
  mu_.unlock();
}

MLGraphProfile PlanProfiler::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  MLGraphProfile copy = profile_;
  copy.available = true;
  return copy;
}

void merge_profile(MLGraphProfile& into, const MLGraphProfile& part) {
  if (!part.available) return;
  into.available = true;
  into.dispatches += part.dispatches;
  into.seconds += part.seconds;
  into.dropped_events += part.dropped_events;
  std::map<std::tuple<std::string, std::string, std::string>, uint32_t> index;
  for (uint32_t i = 0; i < into.operations.size(); ++i) {
    const MLOperationProfile& p = into.operations[i];
    index.emplace(std::tuple(p.name, p.op, p.kernel), i);
  }
  std::vector<uint32_t> remap(part.operations.size());
  for (uint32_t i = 0; i < part.operations.size(); ++i) {
    const MLOperationProfile& p = part.operations[i];
    auto [it, added] =
        index.emplace(std::tuple(p.name, p.op, p.kernel), uint32_t(into.operations.size()));
    if (added) {
      into.operations.push_back(p);
    } else {
      into.operations[it->second].runs += p.runs;
      into.operations[it->second].seconds += p.seconds;
    }
    remap[i] = it->second;
  }
  const size_t before = into.events.size();
  for (const MLTraceEvent& e : part.events)
    into.events.push_back({remap[e.operation], e.start_us, e.duration_us});
  std::inplace_merge(
      into.events.begin(), into.events.begin() + std::ptrdiff_t(before), into.events.end(),
      [](const MLTraceEvent& a, const MLTraceEvent& b) { return a.start_us < b.start_us; });
}

}  // namespace cppnn
