// cppnn wpt: runs a WPT WebNN corpus suite (validation, conformance) against the library and checks
// the result against the list of known failures. Exit codes: 0 all cases passed (or are known
// failures), 1 an unexpected failure or a stale known-failure entry, 2 a usage or internal error,
// 77 skipped (no corpus).
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/progress.h"
#include "tools/cppnn/wpt_common.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

constexpr int kSkipped = 77;

void print_help(std::ostream& os) {
  os << "usage: cppnn wpt [--suite validation|conformance] [--backend NAME]\n"
        "                 [--corpus DIR|FILE...] [--report PATH] [--expectations FILE]\n"
        "                 [--filter TEXT] [--check-onnx] [--export-coreml DIR]\n"
        "                 [--export-tflite DIR] [--verbose]\n\n"
        "Runs a WPT WebNN corpus (shared/wpt/README.md) through the cppnn builder API.\n\n"
        "  --suite NAME          `validation` replays the validation traces through the builder;\n"
        "                        `conformance` builds each conformance case, dispatches it on a\n"
        "                        backend and compares the outputs under WPT's tolerances\n"
        "                        (default: validation)\n"
        "  --backend NAME        conformance: the backend (default: $CPPNN_BACKEND, else the\n"
        "                        first compiled-in backend)\n"
        "  --corpus DIR|FILE...  corpus directories (their *.json but index.json) or files, in "
        "any\n"
        "                        number (default: $CPPNN_WPT_DIR/<suite>, else\n"
        "                        ../shared/wpt/<suite> from the current directory or the source\n"
        "                        tree; where none exists the run reports itself skipped)\n"
        "  --report PATH         write a JSON report (passed, failed, skipped and known-failure\n"
        "                        counts, one entry per case; conformance entries add the metric,\n"
        "                        tolerance and max_error: largest ULP distance or absolute error)\n"
        "  --expectations FILE   known failures, one `<case id>  # <reason>` per line (default:\n"
        "                        tests/wpt/validation-expected-failures.txt, or\n"
        "                        tests/wpt/conformance-<backend>-expected-failures.txt)\n"
        "  --filter TEXT         run only the cases whose id contains TEXT\n"
        "  --check-onnx          conformance: also export each passing graph case to ONNX,\n"
        "                        check it with ONNX's checker (strict shape inference), write\n"
        "                        it with external data and run that file in a standalone ONNX\n"
        "                        Runtime session against the expected outputs\n"
        "  --export-coreml DIR   conformance: also write every graph case that builds as a CoreML\n"
        "                        package DIR/cNNNN.mlpackage with its inputs as .npy files, and\n"
        "                        DIR/index.json (features, expected outputs, tolerances, or the\n"
        "                        conversion error) for tests/coreml/check_packages.py\n"
        "  --export-tflite DIR   conformance: also write every graph case that builds and runs\n"
        "                        as a TFLite model DIR/cNNNN.tflite (save_tflite: the litert\n"
        "                        backend's own conversion) with its inputs and the backend's\n"
        "                        outputs as .npy files, and DIR/index.json (tensors, expected\n"
        "                        outputs, tolerances, or the error) for\n"
        "                        tests/tflite/check_interpreter.py\n"
        "  --verbose             also print known failures and skipped cases\n\n"
        "A case id is `<file> :: <test name>` (plus ` :: <variant>`). A failure that is not "
        "listed\n"
        "fails the run, and so does a listed case that passes. The last line reads\n"
        "`wpt-validation: N passed, N failed, N skipped` or\n"
        "`wpt-conformance-<backend>: N passed, N failed, N skipped`.\n"
        "Exit status: 0 success, 1 failures or bad input (an unreadable corpus, expectations or\n"
        "report file), 2 usage or internal error, 77 skipped (no corpus).\n";
}

struct Args {
  std::string suite = "validation";
  std::vector<std::string> corpus;
  std::optional<std::string> backend, report, expectations;
  std::string filter;
  bool verbose = false;
  bool check_onnx = false;
  std::optional<std::string> export_coreml;
  std::optional<std::string> export_tflite;
};

// Parses the arguments (the flag table in cli_specs.cpp); returns an exit code when the command
// should stop (help, bad usage).
std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  std::ostringstream help;
  print_help(help);
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("wpt"), argv, help.str(), p)) return rc;
  a.suite = p.value("suite").value_or("validation");
  a.corpus = p.all("corpus");
  a.backend = p.value("backend");
  a.report = p.value("report");
  a.expectations = p.value("expectations");
  a.filter = p.value("filter").value_or("");
  a.verbose = p.has("verbose");
  a.check_onnx = p.has("check-onnx");
  a.export_coreml = p.value("export-coreml");
  a.export_tflite = p.value("export-tflite");
  try {
    check_choice_flag("suite", a.suite, {"validation", "conformance"});
  } catch (const UsageError& e) {
    return report_usage_error("wpt", e.what());
  }
  if ((a.backend || a.check_onnx || a.export_coreml || a.export_tflite) && a.suite != "conformance")
    return report_usage_error("wpt",
                              "--backend, --check-onnx, --export-coreml and --export-tflite apply "
                              "to --suite conformance only");
  return std::nullopt;
}

// The corpus files named by --corpus (directories expand to their corpus files); RunnerError for
// a path that does not exist.
std::vector<fs::path> corpus_args(const std::vector<std::string>& args) {
  std::vector<fs::path> files;
  for (const std::string& arg : args) {
    if (fs::is_directory(arg)) {
      for (const fs::path& f : wpt::corpus_files(arg)) files.push_back(f);
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      throw wpt::RunnerError("the corpus " + arg + " does not exist");
    }
  }
  return files;
}

// A temporary directory, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "cppnn-wpt-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw wpt::RunnerError("cannot create a temporary directory");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The report's corpus: the --corpus arguments as absolute paths, space-separated.
std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) {
    if (!s.empty()) s += ' ';
    s += fs::absolute(i).lexically_normal().string();
  }
  return s;
}

int run(const Args& a) {
  using namespace wpt;
  const auto start = std::chrono::steady_clock::now();
  const bool conformance = a.suite == "conformance";
  std::optional<MLContext> context;
  std::string label = a.suite;  // "validation", "conformance-<backend>"
  ReportHeader header{a.suite, "", ""};
  if (conformance) {
    std::string backend = a.backend.value_or("");
    if (backend.empty()) {
      if (const char* env = std::getenv("CPPNN_BACKEND")) backend = env;
    }
    try {
      context = MLContext::create({.backend = backend});
    } catch (const Error& e) {
      std::cerr << "cppnn wpt: " << e.what() << "\n";
      return 1;
    }
    header.backend = context->backend();
    label += "-" + header.backend;
  }

  std::vector<fs::path> files;
  if (!a.corpus.empty()) {
    try {
      files = corpus_args(a.corpus);
    } catch (const RunnerError& e) {
      std::cerr << "cppnn wpt: " << e.what() << "\n";
      return 1;
    }
    header.corpus = join(a.corpus);
  } else {
    const Corpus corpus = resolve_corpus(a.suite, std::nullopt);
    if (corpus.dir.empty()) {
      std::cout << "wpt-" << label << ": skipped: " << corpus.reason << "\n"
                << closing_line(label, {}) << "\n";
      if (a.report) write_report(*a.report, header, {}, elapsed_ms(start), corpus.reason);
      return kSkipped;
    }
    files = corpus_files(corpus.dir);
    header.corpus = corpus.dir.string();
  }

  std::optional<OnnxExportCheck> onnx_check;
  std::optional<TempDir> onnx_dir;
  if (a.check_onnx) {
    onnx_dir.emplace();
    onnx_check = OnnxExportCheck{onnx_dir->path()};
    label += "-onnx-export";
  }
  std::optional<CoremlExport> coreml;
  if (a.export_coreml) {
    std::error_code ec;
    fs::create_directories(*a.export_coreml, ec);
    if (ec) {
      std::cerr << "cppnn wpt: cannot create " << *a.export_coreml << ": " << ec.message() << "\n";
      return 1;
    }
    coreml = CoremlExport{*a.export_coreml};
  }
  std::optional<TfliteExport> tflite;
  if (a.export_tflite) {
    std::error_code ec;
    fs::create_directories(*a.export_tflite, ec);
    if (ec) {
      std::cerr << "cppnn wpt: cannot create " << *a.export_tflite << ": " << ec.message() << "\n";
      return 1;
    }
    tflite = TfliteExport{*a.export_tflite, header.backend};
  }
  const CaseExports exports{onnx_check ? &*onnx_check : nullptr, coreml ? &*coreml : nullptr,
                            tflite ? &*tflite : nullptr};
  Expectations expectations;
  const fs::path expectations_file =
      a.expectations ? fs::path(*a.expectations) : default_expectations_file(label);
  if (a.expectations || fs::exists(expectations_file))
    expectations = load_expectations(expectations_file);
  if (a.report) {  // the report never replaces an input
    std::vector<fs::path> inputs = files;
    inputs.push_back(expectations_file);
    if (auto s = check_outputs({*a.report}, inputs); !s) throw RunnerError(s.error().message);
  }

  std::vector<CaseResult> cases;
  ProgressBar progress("wpt-" + label, files.size());  // stderr, terminals only
  for (const fs::path& file : files) {
    progress.update(size_t(&file - files.data()), file.filename().string());
    std::vector<CaseResult> r = conformance
                                    ? run_conformance_file(file, a.filter, *context, exports)
                                    : run_validation_file(file, a.filter);
    cases.insert(cases.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  progress.finish();
  const std::vector<std::string> unmatched = apply_expectations(cases, expectations);
  print_summary(std::cout, label, cases, expectations, a.verbose);
  if (!unmatched.empty() && a.filter.empty() && a.corpus.empty()) {
    std::cout << "note: " << unmatched.size() << " entries of " << expectations.file.string()
              << " name no case of this corpus:\n";
    for (const std::string& id : unmatched) std::cout << "  " << id << "\n";
  }
  if (coreml) write_coreml_index(*coreml, header.corpus);
  if (tflite) write_tflite_index(*tflite, header.corpus);
  const double time_ms = elapsed_ms(start);
  if (a.report) write_report(*a.report, header, cases, time_ms);
  return count(cases).failed == 0 ? 0 : 1;
}

}  // namespace

int run_wpt(const std::vector<std::string>& argv) {
  Args a;
  if (std::optional<int> code = parse(argv, a)) return *code;
  try {
    return run(a);
  } catch (const wpt::RunnerError& e) {  // a corpus, expectations or report file it cannot use
    std::cerr << "Error: cppnn wpt: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace cppnn::tool
