// cppnn onnx-tests: runs ONNX's backend test data (Debian libonnx-testdata) through the ONNX
// importer on one backend and checks the results against tests/onnx/expectations.txt. Exit
// codes: 0 every case passed or is listed, 1 a failure or a stale entry, 2 a usage or internal
// error, 77 skipped (no data directory).
#include "tools/cppnn/onnx_tests.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/json_file.h"
#include "tools/cppnn/progress.h"

namespace cppnn::tool {
namespace {

using namespace onnx_tests;
using Json = nlohmann::json;

constexpr int kSkipped = 77;
constexpr const char* kDefaultData = "/usr/share/libonnx-testdata/data";
const std::vector<std::string> kDefaultSuites = {"node", "pytorch-converted", "pytorch-operator",
                                                 "simple"};

void print_help(std::ostream& os) {
  os << "usage: cppnn onnx-tests [--backend NAME] [--suite S1,S2,...] [--filter TEXT]\n"
        "                        [--data DIR] [--expectations FILE] [--report FILE]\n"
        "                        [--timeout SECONDS] [--in-process] [-v]\n\n"
        "Runs ONNX's backend test data (the Debian package libonnx-testdata) through the ONNX\n"
        "importer: each case's model.onnx is imported with its test data's input shapes, built\n"
        "and dispatched on a backend, and every output is compared with output_<i>.pb like\n"
        "numpy.testing.assert_allclose(rtol=1e-3, atol=1e-7) (NaN matches NaN, infinities\n"
        "exactly; integers, bools, data types and shapes exactly).\n\n"
        "  --backend NAME       the MLContext backend: reference, ort (default: $CPPNN_BACKEND,\n"
        "                       else the first compiled-in backend)\n"
        "  --suite LIST         comma-separated suites: node, pytorch-converted,\n"
        "                       pytorch-operator, simple (default: all four)\n"
        "  --filter TEXT        run only the cases whose `<suite>/<name>` contains TEXT\n"
        "  --data DIR           the data root (default: " +
            std::string(kDefaultData) +
            "; where it\n"
            "                       does not exist the run reports itself skipped, exit 77)\n"
            "  --expectations FILE  listed cases, `[backends] test_name: category: reason` per\n"
            "                       line; categories not-expressible, unsupported, precision,\n"
            "                       backend (default: tests/onnx/expectations.txt)\n"
            "  --report FILE        write a JSON report (default:\n"
            "                       reports/onnx-tests-<backend>.json)\n"
            "  --timeout SECONDS    fail a case that runs longer (default 300; 0: none)\n"
            "  --in-process         run the cases in this process (for a debugger); by default\n"
            "                       they run in worker processes, so that a crash or a hang\n"
            "                       fails only its case\n"
            "  -v, --verbose        a line per case\n\n"
            "A listed case that fails is skipped; one that passes is a stale entry and fails.\n"
            "The last line reads `onnx-tests-<backend>: N passed, N failed, N skipped`.\n"
            "Exit status: 0 success, 1 failures or bad input (an unreadable expectations or "
            "report\n"
            "file), 2 usage or internal error, 77 skipped (no data).\n";
}

struct Args {
  std::optional<std::string> backend, report, expectations, data;
  std::vector<std::string> suites = kDefaultSuites;
  bool suites_given = false;
  std::string filter;
  bool verbose = false;
  bool isolate = true;
  double timeout_s = 300;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// Parses the arguments (the flag table in cli_specs.cpp); returns an exit code when the command
// should stop (help, bad usage).
std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  std::ostringstream help;
  print_help(help);
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("onnx-tests"), argv, help.str(), p)) return rc;
  a.backend = p.value("backend");
  a.filter = p.value("filter").value_or("");
  a.data = p.value("data");
  a.expectations = p.value("expectations");
  a.report = p.value("report");
  a.verbose = p.has("verbose");
  a.isolate = !p.has("in-process");
  try {
    if (auto t = p.value("timeout")) a.timeout_s = parse_number_flag("timeout", *t, 0);
    if (auto suites = p.value("suite")) {
      a.suites = split_list(*suites);
      a.suites_given = true;
      if (a.suites.empty())
        throw UsageError("--suite " + *suites + ": needs at least one suite name");
    }
  } catch (const UsageError& e) {
    return report_usage_error("onnx-tests", e.what());
  }
  return std::nullopt;
}

// The case folders of the selected suites, sorted by name within each suite; RunnerError for a
// suite folder that does not exist.
std::vector<CaseDir> discover(const fs::path& root, const std::vector<std::string>& suites) {
  std::vector<CaseDir> cases;
  for (const std::string& suite : suites) {
    const fs::path dir = root / suite;
    if (suite.find('/') != std::string::npos || suite == "." || suite == ".." ||
        !fs::is_directory(dir))
      throw RunnerError("no suite \"" + suite + "\" in " + root.string());
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_directory()) dirs.push_back(entry.path());
    std::sort(dirs.begin(), dirs.end());
    for (fs::path& d : dirs) cases.push_back({suite, std::move(d)});
  }
  return cases;
}

// Listed failures become skipped; listed passes become stale-entry failures.
void apply(CaseResult& r, const Expectations& expectations, const std::string& backend) {
  const Expectation* e = expectations.find(r.name, backend);
  if (!e) return;
  r.category = e->category;
  r.reason = e->reason;
  if (r.status == CaseStatus::kFailed) {
    r.status = CaseStatus::kSkipped;
  } else if (r.status == CaseStatus::kPassed) {
    r.status = CaseStatus::kFailed;
    r.message = "stale entry: listed in " + expectations.file.string() + ":" +
                std::to_string(e->line) + " as " + std::string(category_name(e->category)) + " (" +
                e->reason + ") but passes now; remove the entry";
  }
}

struct Totals {
  size_t passed = 0, failed = 0, skipped = 0;
};
// The totals of `suite`'s cases (all cases when empty).
Totals count(const std::vector<CaseResult>& cases, const std::string& suite = "") {
  Totals t;
  for (const CaseResult& c : cases) {
    if (!suite.empty() && c.suite != suite) continue;
    if (c.status == CaseStatus::kPassed) ++t.passed;
    if (c.status == CaseStatus::kFailed) ++t.failed;
    if (c.status == CaseStatus::kSkipped) ++t.skipped;
  }
  return t;
}

std::string closing_line(const std::string& backend, const Totals& t) {
  return "onnx-tests-" + backend + ": " + std::to_string(t.passed) + " passed, " +
         std::to_string(t.failed) + " failed, " + std::to_string(t.skipped) + " skipped";
}

// The cases not listed as not-expressible for this run's backend.
size_t expressible(const std::vector<CaseResult>& cases) {
  return static_cast<size_t>(std::count_if(cases.begin(), cases.end(), [](const CaseResult& c) {
    return !(c.category == Category::kNotExpressible && !c.reason.empty());
  }));
}

std::string percent(size_t n, size_t of) {
  if (of == 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(n) / of);
  return buf;
}

double round3(double v) {
  return std::round(v * 1000) / 1000;
}

// Writes the JSON report atomically (temporary file renamed over `path`).
void write_report(const fs::path& path, const std::string& backend, const std::string& data,
                  const std::vector<CaseResult>& cases, double time_ms,
                  const std::string& skip_reason) {
  const Totals t = count(cases);
  const size_t e = expressible(cases);
  Json report = Json::object();
  report["backend"] = backend;
  report["data"] = data;
  report["passed"] = t.passed;
  report["failed"] = t.failed;
  report["skipped"] = t.skipped;
  report["expressible"] = e;
  report["pass_rate"] = e ? Json(static_cast<double>(t.passed) / e) : Json(nullptr);
  report["time_ms"] = round3(time_ms);
  if (!skip_reason.empty()) report["skip_reason"] = skip_reason;
  Json list = Json::array();
  for (const CaseResult& c : cases) {
    Json j = Json::object();
    j["suite"] = c.suite;
    j["name"] = c.name;
    j["status"] = status_name(c.status);
    j["category"] = c.category ? Json(category_name(*c.category)) : Json(nullptr);
    j["reason"] = c.reason.empty() ? Json(nullptr) : Json(c.reason);
    j["message"] = c.message;
    const bool finite = c.max_abs_error && std::isfinite(*c.max_abs_error);
    j["max_abs_error"] = finite ? Json(*c.max_abs_error) : Json(nullptr);
    j["time_ms"] = round3(c.time_ms);
    if (!c.fixed_inputs.empty()) j["fixed_inputs"] = c.fixed_inputs;
    list.push_back(std::move(j));
  }
  report["cases"] = std::move(list);
  if (auto error = write_json_atomically(path, report)) throw RunnerError(*error);
}

fs::path report_path(const Args& a, const std::string& backend) {
  return a.report ? fs::path(*a.report) : fs::path("reports") / ("onnx-tests-" + backend + ".json");
}

void print_case(std::ostream& os, const CaseResult& c) {
  os << "  " << status_name(c.status) << ": " << c.suite << "/" << c.name;
  if (c.category) os << " [" << category_name(*c.category) << "]";
  os << " (" << static_cast<long long>(std::llround(c.time_ms)) << " ms)\n";
  if (!c.reason.empty()) os << "      listed: " << c.reason << "\n";
  if (!c.message.empty()) os << "      " << c.message << "\n";
}

int run(const Args& a) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::string backend = a.backend.value_or("");
  if (backend.empty())
    if (const char* env = std::getenv("CPPNN_BACKEND")) backend = env;
  const fs::path root = a.data ? fs::path(*a.data) : fs::path(kDefaultData);
  // The report never replaces an input (the expectations file).
  if (auto s =
          check_outputs({report_path(a, backend)},
                        {a.expectations ? fs::path(*a.expectations) : default_expectations_file()});
      !s) {
    std::cerr << "Error: cppnn onnx-tests: " << s.error().message << "\n";
    return 1;
  }
  if (!fs::is_directory(root)) {
    try {  // the backend's name for the closing line (nothing runs, so in this process)
      backend = MLContext::create({.backend = backend}).backend();
    } catch (const Error& e) {
      std::cerr << "cppnn onnx-tests: " << e.what() << "\n";
      return 1;
    }
    const std::string reason = "no ONNX backend test data at " + root.string() +
                               " (install libonnx-testdata or pass --data DIR)";
    std::cout << "onnx-tests-" << backend << ": skipped: " << reason << "\n"
              << closing_line(backend, {}) << "\n";
    write_report(report_path(a, backend), backend, root.string(), {}, elapsed(), reason);
    return kSkipped;
  }
  std::vector<CaseDir> all;
  try {
    all = discover(root, a.suites);
  } catch (const RunnerError& e) {
    std::cerr << "cppnn onnx-tests: " << e.what() << "\n";
    return 1;
  }
  const fs::path expectations_file =
      a.expectations ? fs::path(*a.expectations) : default_expectations_file();
  Expectations expectations;
  if (a.expectations || fs::exists(expectations_file))
    expectations = load_expectations(expectations_file);

  // Every listed name must be a case, so the list cannot rot (checked on full runs only).
  std::set<std::string> names;
  for (const CaseDir& d : all) names.insert(d.dir.filename().string());
  if (a.filter.empty() && !a.suites_given) {
    size_t unknown = 0;
    for (const Expectation& e : expectations.entries) {
      if (names.contains(e.name)) continue;
      std::cerr << "cppnn onnx-tests: " << expectations.file.string() << ":" << e.line
                << ": unknown case " << e.name << "\n";
      ++unknown;
    }
    if (unknown) return 1;
  }
  std::vector<CaseDir> selected;
  for (const CaseDir& d : all)
    if ((d.suite + "/" + d.dir.filename().string()).find(a.filter) != std::string::npos)
      selected.push_back(d);

  std::vector<CaseResult> cases;
  ProgressBar progress("onnx-tests", selected.size());  // stderr, terminals only
  try {
    backend = run_cases(selected, {backend, a.isolate, a.timeout_s},
                        [&](CaseResult r, const std::string& name) {
                          apply(r, expectations, name);
                          if (a.verbose || r.status == CaseStatus::kFailed) {
                            progress.finish();
                            print_case(std::cout, r);
                          }
                          cases.push_back(std::move(r));
                          progress.update(cases.size(), name);
                        });
    progress.finish();
  } catch (const RunnerError& e) {
    std::cerr << "cppnn onnx-tests: " << e.what() << "\n";
    return 1;
  }
  for (const std::string& suite : a.suites) {
    const Totals t = count(cases, suite);
    std::cout << suite << ": " << t.passed << " passed, " << t.failed << " failed, " << t.skipped
              << " skipped\n";
  }
  const Totals t = count(cases);
  const size_t e = expressible(cases);
  size_t fixed_passed = 0;
  for (const CaseResult& c : cases)
    fixed_passed += !c.fixed_inputs.empty() && c.status == CaseStatus::kPassed;
  std::cout << "inputs fixed at conversion (axes, shapes, k ... fed as graph inputs): "
            << fixed_passed << " of the passed cases\n";
  std::cout << "expressible: " << e << " of " << cases.size() << " cases (" << cases.size() - e
            << " listed not-expressible), pass rate " << percent(t.passed, e) << " (" << t.passed
            << "/" << e << ")\n"
            << closing_line(backend, t) << "\n";
  write_report(report_path(a, backend), backend, fs::absolute(root).lexically_normal().string(),
               cases, elapsed(), "");
  return t.failed == 0 ? 0 : 1;
}

}  // namespace

int run_onnx_tests(const std::vector<std::string>& argv) {
  Args a;
  if (std::optional<int> code = parse(argv, a)) return *code;
  try {
    return run(a);
  } catch (const RunnerError& e) {  // an expectations or report file it cannot use
    std::cerr << "Error: cppnn onnx-tests: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "Error: cppnn onnx-tests: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace cppnn::tool
