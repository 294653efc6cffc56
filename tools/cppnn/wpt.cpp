// cppnn wpt: runs a WPT WebNN corpus suite (validation) against the library and checks the result
// against the list of known failures. Exit codes: 0 all cases passed (or are known failures),
// 1 an unexpected failure or a stale known-failure entry (or bad usage), 2 an internal error,
// 77 skipped (no corpus).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "tools/cppnn/commands.h"
#include "tools/cppnn/wpt_common.h"

namespace cppnn::tool {
namespace {

constexpr int kSkipped = 77;

void print_help(std::ostream& os) {
  os << "usage: cppnn wpt [--suite validation] [--corpus DIR] [--report PATH]\n"
        "                 [--expectations FILE] [--filter TEXT] [--verbose]\n\n"
        "Runs a WPT WebNN corpus (shared/wpt/README.md) through the cppnn builder API.\n\n"
        "  --suite NAME          the suite to run; `validation` replays the validation traces\n"
        "                        (default: validation)\n"
        "  --corpus DIR          the corpus directory (default: $CPPNN_WPT_DIR/<suite>, else\n"
        "                        ../shared/wpt/<suite> from the current directory or the source "
        "tree)\n"
        "  --report PATH         write a JSON report (passed, failed, skipped counts, one entry "
        "per\n"
        "                        case)\n"
        "  --expectations FILE   known failures, one `<case id>  # <reason>` per line (default:\n"
        "                        tests/wpt/<suite>-expected-failures.txt)\n"
        "  --filter TEXT         run only the cases whose id contains TEXT\n"
        "  --verbose             also print known failures and skipped cases\n\n"
        "A case id is `<file> :: <test name>` (plus ` :: <variant>`). A failure that is not "
        "listed\n"
        "fails the run, and so does a listed case that passes. The last line reads\n"
        "`wpt-<suite>: N passed, N failed, N skipped`.\n"
        "Exit status: 0 success, 1 failures, 2 internal error, 77 skipped (no corpus).\n";
}

struct Args {
  std::string suite = "validation";
  std::optional<std::string> corpus, report, expectations;
  std::string filter;
  bool verbose = false;
};

// Parses the arguments; returns an exit code when the command should stop (help, bad usage).
std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_help(std::cout);
      return 0;
    }
    if (arg == "--verbose" || arg == "-v") {
      a.verbose = true;
      continue;
    }
    std::string key = arg, value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    const bool known = key == "--suite" || key == "--corpus" || key == "--report" ||
                       key == "--expectations" || key == "--filter";
    if (!known) {
      std::cerr << "cppnn wpt: unknown argument \"" << arg << "\" (see cppnn wpt --help)\n";
      return 1;
    }
    if (!has_value) {
      if (i + 1 >= argv.size()) {
        std::cerr << "cppnn wpt: " << key << " needs a value\n";
        return 1;
      }
      value = argv[++i];
    }
    if (key == "--suite") a.suite = value;
    if (key == "--corpus") a.corpus = value;
    if (key == "--report") a.report = value;
    if (key == "--expectations") a.expectations = value;
    if (key == "--filter") a.filter = value;
  }
  if (a.suite != "validation") {
    std::cerr << "cppnn wpt: unknown suite \"" << a.suite << "\" (available: validation)\n";
    return 1;
  }
  return std::nullopt;
}

int run(const Args& a) {
  using namespace wpt;
  const auto start = std::chrono::steady_clock::now();
  const Corpus corpus = resolve_corpus(a.suite, a.corpus);
  if (corpus.dir.empty() && a.corpus) {
    std::cerr << "cppnn wpt: " << corpus.reason << "\n";
    return 1;
  }
  if (corpus.dir.empty()) {
    std::cout << "wpt-" << a.suite << ": skipped: " << corpus.reason << "\n"
              << closing_line(a.suite, {}) << "\n";
    if (a.report) write_report(*a.report, a.suite, {}, {}, elapsed_ms(start), corpus.reason);
    return kSkipped;
  }

  Expectations expectations;
  const fs::path expectations_file =
      a.expectations ? fs::path(*a.expectations) : default_expectations_file(a.suite);
  if (a.expectations || fs::exists(expectations_file))
    expectations = load_expectations(expectations_file);

  std::vector<CaseResult> cases;
  for (const fs::path& file : corpus_files(corpus.dir)) {
    std::vector<CaseResult> r = run_validation_file(file, a.filter);
    cases.insert(cases.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  const std::vector<std::string> unmatched = apply_expectations(cases, expectations);
  print_summary(std::cout, a.suite, cases, expectations, a.verbose);
  if (!unmatched.empty() && a.filter.empty()) {
    std::cout << "note: " << unmatched.size() << " entries of " << expectations.file.string()
              << " name no case of this corpus:\n";
    for (const std::string& id : unmatched) std::cout << "  " << id << "\n";
  }
  const double time_ms = elapsed_ms(start);
  if (a.report) write_report(*a.report, a.suite, corpus.dir, cases, time_ms);
  return count(cases).failed == 0 ? 0 : 1;
}

}  // namespace

int run_wpt(const std::vector<std::string>& argv) {
  Args a;
  if (std::optional<int> code = parse(argv, a)) return *code;
  try {
    return run(a);
  } catch (const wpt::RunnerError& e) {
    std::cerr << "cppnn wpt: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cppnn::tool
