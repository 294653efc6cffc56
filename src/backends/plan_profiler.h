// The per-operation timings of one compiled graph (MLContextOptions::profile, cppnn/profile.h),
// for backends that run a graph as a list of kernels (the reference plan, and the cpu backend
// through it): each kernel is registered once at compile time, each dispatch records when each
// ran. Thread-safe: dispatch and MLGraph::profile() may run on different threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cppnn/profile.h"

namespace cppnn {

class PlanProfiler {
 public:
  using Clock = std::chrono::steady_clock;

  // Registers a kernel (in execution order) running `op` as `kernel` ("fast" or "reference");
  // returns its entry.
  uint32_t add(std::string name, std::string op, std::string kernel);

  // One dispatch: start() holds the profiler until finish(); record() the run of one entry.
  void start() { mu_.lock(); }
  void record(uint32_t entry, Clock::time_point begin, Clock::time_point end);
  void finish(Clock::time_point begin, Clock::time_point end);

  // What was recorded so far (available set).
  MLGraphProfile snapshot() const;

 private:
  mutable std::mutex mu_;
  MLGraphProfile profile_;
};

// Merges `part` (one compiled form of a graph) into `into`: entries with the same name, op and
// kernel add up; events are re-indexed and kept in time order.
void merge_profile(MLGraphProfile& into, const MLGraphProfile& part);

}  // namespace cppnn
