// Per-operation profiles of built graphs (cppnn extension): with MLContextOptions::profile set,
// backends that run operations one by one (cpu, reference) time every operation of every
// dispatch; MLGraph::profile() returns the totals and a bounded timeline that
// chrome_trace_json() turns into a trace Perfetto and chrome://tracing open.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// One operation of a compiled graph (after the backend's passes) and what it cost.
struct MLOperationProfile {
  // Its label (MLOperatorOptions.label), or "<op>#<index>" for an unlabelled operation.
  std::string name;
  // The operator ("matmul", "gemm", ...); an activation fused into an operation but run after
  // it is its own entry with the operation's name.
  std::string op;
  // "fast": the backend's own kernel; "reference": the reference kernel (single-threaded).
  std::string kernel;
  uint64_t runs = 0;   // times it ran
  double seconds = 0;  // summed over its runs
};

// One run of one operation on the timeline: `operation` indexes MLGraphProfile::operations;
// times in microseconds of the steady clock.
struct MLTraceEvent {
  uint32_t operation = 0;
  double start_us = 0;
  double duration_us = 0;
};

// The profile of one graph since it was built: every compiled form of it (a graph with dynamic
// dimensions has one per size; a form evicted from its cache takes its timings with it) merged by
// (name, op, kernel).
struct MLGraphProfile {
  // False when the context was created without MLContextOptions::profile or its backend cannot
  // time operations one by one (ort, litert): the rest is then empty.
  bool available = false;
  uint64_t dispatches = 0;                     // dispatches profiled
  double seconds = 0;                          // their execution time, summed
  std::vector<MLOperationProfile> operations;  // in execution order
  // The runs in time order, at most kMaxTraceEvents per compiled form (later ones are counted in
  // dropped_events, not kept).
  std::vector<MLTraceEvent> events;
  uint64_t dropped_events = 0;
  static constexpr uint64_t kMaxTraceEvents = uint64_t{1} << 18;
};

// `profile` as Chrome's trace event format (JSON, "X" complete events; name: the operation's
// name, category: its kernel, args: its op), for Perfetto or chrome://tracing.
std::string chrome_trace_json(const MLGraphProfile& profile);

}  // namespace cppnn

#pragma GCC visibility pop
