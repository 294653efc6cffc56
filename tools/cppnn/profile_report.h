// `cppnn bench --profile/--trace`: per-operation profiles (cppnn/profile.h) as a table, as JSON
// and as a Chrome trace file.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cppnn/profile.h"

namespace cppnn::tool {

// What `after` recorded beyond `before` (a snapshot of the same graph taken earlier): runs and
// times subtracted entry by entry, events after `before`'s last one. `after` unchanged when the
// two do not list the same operations.
MLGraphProfile profile_since(const MLGraphProfile& before, const MLGraphProfile& after);

// Prints `p` of `backend`: the time per dispatch, then the operations most expensive first (share,
// ms per dispatch, runs per dispatch, kernel, op, name; the first `top`, the rest summed), then the
// time per op and kernel.
void print_profile(std::FILE* out, const std::string& backend, const MLGraphProfile& p, size_t top);

// `p` as {dispatches, ms_per_dispatch, operations: [{name, op, kernel, runs, ms, share}]}.
nlohmann::json profile_json(const MLGraphProfile& p);

}  // namespace cppnn::tool
