// Chrome's trace event format for graph profiles (cppnn/profile.h).
#include "cppnn/profile.h"

#include <nlohmann/json.hpp>

namespace cppnn {

std::string chrome_trace_json(const MLGraphProfile& profile) {
  nlohmann::json events = nlohmann::json::array();
  for (const MLTraceEvent& e : profile.events) {
    if (e.operation >= profile.operations.size()) continue;
    const MLOperationProfile& op = profile.operations[e.operation];
    events.push_back({{"name", op.name},
                      {"cat", op.kernel},
                      {"ph", "X"},
                      {"ts", e.start_us},
                      {"dur", e.duration_us},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", {{"op", op.op}, {"kernel", op.kernel}}}});
  }
  nlohmann::json trace = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ms"},
      {"otherData",
       {{"dispatches", profile.dispatches}, {"dropped_events", profile.dropped_events}}}};
  // Labels come from files: invalid UTF-8 is replaced rather than thrown on.
  return trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace cppnn
