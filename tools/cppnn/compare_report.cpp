#include "tools/cppnn/compare_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tools/cppnn/json_file.h"

namespace cppnn::tool::compare {
namespace {

std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

std::string precise(double v) {
  std::ostringstream os;
  os << std::setprecision(9) << v;
  return os.str();
}

std::string status_name(RowStatus s) {
  switch (s) {
    case RowStatus::kCompared:
      return "compared";
    case RowStatus::kFolded:
      return "folded";
    case RowStatus::kSkipped:
      return "skipped";
  }
  return "skipped";
}

bool compared(const Row& r) {
  return r.status != RowStatus::kSkipped;
}

// `max abs E, max rel E` or the reason a row was not compared.
std::string describe(const Row& r, const std::string& want_name) {
  std::string s =
      "[" + std::to_string(r.index) + "] " + r.op_type + " '" + r.node + "' -> '" + r.output + "'";
  if (r.type) s += " " + onnx_type_name(r.type) + " " + shape_string(r.shape);
  if (r.status == RowStatus::kSkipped) return s + ": not compared (" + r.note + ")";
  s += ": max abs " + num(r.errors.max_abs) + ", max rel " + num(r.errors.max_rel);
  if (r.status == RowStatus::kFolded) s += " (folded at conversion)";
  if (r.pass) return s + ", ok";
  s += ", " + std::to_string(r.errors.outside) + " of " + std::to_string(r.elements) +
       " elements outside atol " + num(r.tol.atol) + " + rtol " + num(r.tol.rtol) + " * |" +
       want_name + "|  DIVERGES";
  s += "\n      worst element (flat " + std::to_string(r.errors.worst) + "): got " +
       precise(r.worst_got) + ", " + want_name + " " + precise(r.worst_want);
  return s;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const Row& r) {
  nlohmann::json j = {{"index", r.index},
                      {"op_type", r.op_type},
                      {"node", r.node},
                      {"output", r.output},
                      {"status", status_name(r.status)},
                      {"pass", r.pass}};
  if (r.type) {
    j["type"] = onnx_type_name(r.type);
    j["shape"] = r.shape;
  }
  if (!r.note.empty()) j["note"] = r.note;
  if (compared(r)) {
    j["max_abs"] = number_or_null(r.errors.max_abs);
    j["max_rel"] = number_or_null(r.errors.max_rel);
    j["outside"] = r.errors.outside;
    j["elements"] = r.elements;
    j["atol"] = r.tol.atol;
    j["rtol"] = r.tol.rtol;
  }
  return j;
}

}  // namespace

void compare_row(Row& row, const std::vector<double>& got, const std::vector<double>& want) {
  row.elements = want.size();
  row.errors = compare_values(got, want, row.tol);
  row.pass = row.errors.outside == 0;
  if (!want.empty()) {
    row.worst_got = got[row.errors.worst];
    row.worst_want = want[row.errors.worst];
  }
}

int print_report(const Report& report, bool all, const std::optional<std::filesystem::path>& json) {
  const std::vector<Row>& rows = report.rows;
  std::cout << "compare: " << report.command_line;
  for (size_t i = 0; i < report.timings_ms.size(); ++i)
    std::cout << (i ? ", " : ": ") << report.timings_ms[i].first << " "
              << num(report.timings_ms[i].second) << " ms";
  std::cout << "\n";

  // The first diverging row; the nodes' divergence by value name.
  std::map<std::string, bool> value_pass;
  const Row* first = nullptr;
  size_t run_time = 0, folded = 0, skipped = 0, diverging = 0, shown = 0;
  constexpr size_t kShownDiverging = 20;
  for (const Row& r : rows) {
    if (compared(r)) value_pass[r.output] = r.pass;
    if (r.status == RowStatus::kCompared) ++run_time;
    if (r.status == RowStatus::kFolded) ++folded;
    if (r.status == RowStatus::kSkipped) ++skipped;
    if (!r.pass) {
      ++diverging;
      if (!first) first = &r;
    }
    const bool show = all || (!r.pass && shown < kShownDiverging);
    if (show) std::cout << "  " << describe(r, report.want_name) << "\n";
    if (!all && !r.pass) ++shown;
  }
  if (!all && shown < diverging)
    std::cout << "  ... " << diverging - shown
              << " more diverging values (--all lists every row)\n";
  if (!all && skipped > 0) {
    std::map<std::string, size_t> reasons;
    for (const Row& r : rows)
      if (r.status == RowStatus::kSkipped) ++reasons[r.note];
    for (const auto& [reason, count] : reasons)
      std::cout << "  " << count << " value" << (count == 1 ? "" : "s")
                << " not compared: " << reason << "\n";
  }
  std::cout << "summary: " << run_time + folded << " values compared (" << run_time
            << " at run time, " << folded << " folded at conversion), " << diverging
            << " outside the tolerance, " << skipped << " not compared\n";

  // The largest absolute errors.
  std::vector<const Row*> worst;
  for (const Row& r : rows)
    if (compared(r) && r.errors.max_abs != 0) worst.push_back(&r);
  std::stable_sort(worst.begin(), worst.end(), [](const Row* a, const Row* b) {
    const double x =
        std::isnan(a->errors.max_abs) ? std::numeric_limits<double>::infinity() : a->errors.max_abs;
    const double y =
        std::isnan(b->errors.max_abs) ? std::numeric_limits<double>::infinity() : b->errors.max_abs;
    return x > y;
  });
  if (worst.empty() && run_time + folded > 0)
    std::cout << "largest errors: none (every compared value identical)\n";
  if (!worst.empty()) {
    std::cout << "largest errors:";
    for (size_t i = 0; i < worst.size() && i < 5; ++i)
      std::cout << (i ? ";" : "") << " '" << worst[i]->node << "' (" << worst[i]->op_type
                << ") max abs " << num(worst[i]->errors.max_abs) << " max rel "
                << num(worst[i]->errors.max_rel);
    std::cout << "\n";
  }

  nlohmann::json doc;
  std::vector<std::string> diverged_inputs;
  if (first) {
    for (const std::string& in : first->inputs)
      if (auto it = value_pass.find(in); it != value_pass.end() && !it->second)
        diverged_inputs.push_back(in);
    std::string inputs_note;
    size_t checked = 0;
    for (const std::string& in : first->inputs) checked += value_pass.count(in);
    if (!diverged_inputs.empty()) {
      inputs_note = "some of its inputs diverge too:";
      for (const std::string& in : diverged_inputs) inputs_note += " '" + in + "'";
    } else if (checked == 0) {
      inputs_note = "its inputs are graph inputs or constants";
    } else {
      inputs_note = std::to_string(checked) + " compared input" + (checked == 1 ? "" : "s") +
                    " within tolerance";
    }
    std::cout << "first divergence: node '" << first->node << "' (" << first->op_type
              << "), output '" << first->output << "': max abs " << num(first->errors.max_abs)
              << ", max rel " << num(first->errors.max_rel) << " (" << inputs_note << ")\n";
    doc["first_divergence"] = {{"node", first->node},
                               {"op_type", first->op_type},
                               {"output", first->output},
                               {"index", first->index}};
  } else {
    doc["first_divergence"] = nullptr;
  }
  int rc = first ? 1 : 0;
  if (json) {
    doc["compare"] = report.command_line;
    doc["passed"] = first == nullptr;
    if (report.atol) doc["atol"] = *report.atol;
    if (report.rtol) doc["rtol"] = *report.rtol;
    nlohmann::json t = nlohmann::json::object();
    for (const auto& [name, ms] : report.timings_ms) t[name] = ms;
    doc["timings_ms"] = t;
    doc["summary"] = {
        {"compared", run_time}, {"folded", folded}, {"skipped", skipped}, {"diverging", diverging}};
    nlohmann::json list = nlohmann::json::array();
    for (const Row& r : rows) list.push_back(row_json(r));
    doc["rows"] = std::move(list);
    if (auto error = write_json_atomically(*json, doc)) {
      std::cerr << "Error: --report " << json->string() << ": " << *error << "\n";
      rc = 1;
    }
  }
  if (first)
    std::cout << "compare: FAILED: first diverging node '" << first->node << "' (" << first->op_type
              << ")\n";
  else
    std::cout << "compare: passed (every compared value within atol + rtol * |" << report.want_name
              << "|)\n";
  return rc;
}

}  // namespace cppnn::tool::compare
