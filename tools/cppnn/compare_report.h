// The per-node report of `cppnn compare`: one row per compared value in topological order (ONNX
// node outputs against ONNX Runtime, or WebNN operation outputs of two backends), the first
// value outside the tolerance named as the first divergence, printed as text and optionally
// written as JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/cppnn/compare_values.h"

namespace cppnn::tool::compare {

// How a row's value was handled.
enum class RowStatus {
  kCompared,  // run-time value of both sides compared
  kFolded,    // folded to a constant at conversion, compared on the host
  kSkipped,   // not compared (`note` says why)
};

// One value of one node.
struct Row {
  size_t index = 0;                 // the node's (or operation's) position in topological order
  std::string op_type;              // ONNX op type (or WebNN method name)
  std::string node;                 // node label (or operation label / "#index")
  std::string output;               // value name
  std::vector<std::string> inputs;  // the values the node reads (first-divergence check)
  RowStatus status = RowStatus::kSkipped;
  std::string note;  // why skipped; extra facts
  int type = 0;      // ONNX element type
  std::vector<int64_t> shape;
  Tolerance tol;
  Errors errors;
  uint64_t elements = 0;
  double worst_got = 0, worst_want = 0;  // the worst element's values
  bool pass = true;                      // within tolerance (true for skipped rows)
};

// Fills a row's comparison from both sides' values (same element count).
void compare_row(Row& row, const std::vector<double>& got, const std::vector<double>& want);

// What was compared and how long each step took.
struct Report {
  std::string command_line;  // "MODEL on BACKEND against onnxruntime"
  std::string got_name = "cppnn", want_name = "ort";
  std::optional<double> atol, rtol;
  std::vector<std::pair<std::string, double>> timings_ms;
  std::vector<Row> rows;
};

// Prints the report (every row with `all`, else the rows outside the tolerance and skipped
// run-time values), the summary, the largest errors and the first divergence, the closing line
// last; writes the JSON report when `json` is given. Returns the exit status: 0 when every
// compared value is within tolerance, 1 otherwise (or when the JSON cannot be written).
int print_report(const Report& report, bool all, const std::optional<std::filesystem::path>& json);

}  // namespace cppnn::tool::compare
