// Pieces shared by the WPT runners of `cppnn wpt` (the corpus format is described in
// shared/wpt/README.md): corpus resolution, the known-failure list, case results and their
// accounting, the JSON report, and the conversion of recorded JSON arguments for the builder.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/dynamic_call.h"

namespace cppnn::tool::wpt {

using Json = nlohmann::json;
// JSON keeping the members of objects in file order (where the order carries meaning).
using OrderedJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

// A problem with the runner's own input (corpus file, expectations file, report path), as opposed
// to a failing case.
class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- cases --------------------------------------------------------------------------------------

enum class CaseStatus { kPassed, kFailed, kSkipped, kKnownFailure };
// "passed", "failed", "skipped", "known-failure".
std::string_view status_name(CaseStatus s);

struct CaseResult {
  std::string id;  // "<file> :: <name>" plus " :: <variant>"
  std::string file;
  std::string name;
  std::optional<std::string> variant;
  CaseStatus status = CaseStatus::kPassed;
  std::string message;  // why it failed or was skipped (or a note for a pass)
  double time_ms = 0;
  Json fields = Json::object();  // suite-specific members of the report entry (metric, ...)
};

std::string case_id(std::string_view file, std::string_view name,
                    const std::optional<std::string>& variant);

// Passed, failed (unexpected failures plus stale known-failure entries), skipped, known failures.
struct Totals {
  size_t passed = 0;
  size_t failed = 0;
  size_t skipped = 0;
  size_t known = 0;
};
Totals count(std::span<const CaseResult> cases);

// Milliseconds since `start`.
double elapsed_ms(std::chrono::steady_clock::time_point start);

// ---- corpus -------------------------------------------------------------------------------------

// Where a suite's corpus lives: --corpus if given, else $CPPNN_WPT_DIR/<suite>, else
// ../shared/wpt/<suite> from the current directory, else from the source tree. `dir` is empty
// when none exists; `reason` then says what was tried.
struct Corpus {
  fs::path dir;
  std::string reason;
};
Corpus resolve_corpus(std::string_view suite, const std::optional<std::string>& corpus_arg);

// The corpus files of a directory (*.json except index.json), sorted by name.
std::vector<fs::path> corpus_files(const fs::path& dir);

// Parses a JSON file; RunnerError when it cannot be read or parsed.
Json load_json(const fs::path& file);
OrderedJson load_ordered_json(const fs::path& file);

// ---- known failures -----------------------------------------------------------------------------

// The expected-failures file: one `<case id>  # <reason>` per line; blank lines and lines
// starting with '#' are comments.
struct Expectations {
  fs::path file;                               // empty: no file
  std::map<std::string, std::string> reasons;  // case id -> reason
};

// tests/wpt/<suite>-expected-failures.txt from the current directory, else the source tree's.
fs::path default_expectations_file(std::string_view suite);
// Reads an expectations file; RunnerError for an unreadable file or a line without a reason.
Expectations load_expectations(const fs::path& file);

// Turns listed failures into known failures and listed passes into failures (stale entries);
// returns the listed ids that no case of `cases` has.
std::vector<std::string> apply_expectations(std::vector<CaseResult>& cases,
                                            const Expectations& expectations);

// ---- output -------------------------------------------------------------------------------------

// One line per file, each unexpected failure with its message (all failures when `verbose`),
// the known-failure line and the closing line.
void print_summary(std::ostream& os, std::string_view suite, const std::vector<CaseResult>& cases,
                   const Expectations& expectations, bool verbose);
// "wpt-<suite>: N passed, N failed, N skipped".
std::string closing_line(std::string_view suite, const Totals& totals);

// The top of a report: suite, backend (omitted when empty) and corpus.
struct ReportHeader {
  std::string suite;
  std::string backend;
  std::string corpus;
};
// Writes the JSON report atomically (a temporary file renamed over `path`), creating the parent
// directory. `skip_reason` non-empty: the whole suite was skipped. RunnerError on failure.
void write_report(const fs::path& path, const ReportHeader& header,
                  const std::vector<CaseResult>& cases, double time_ms,
                  std::string_view skip_reason = {});

// ---- recorded arguments -------------------------------------------------------------------------

// A JSON number as an MLNumber (integers exactly; beyond 64 bits they arrive as doubles).
template <class J>
MLNumber number_from_json(const J& j) {
  switch (j.type()) {
    case J::value_t::number_integer:
      return MLNumber(j.template get<int64_t>());
    case J::value_t::number_unsigned:
      return MLNumber(j.template get<uint64_t>());
    case J::value_t::number_float:
      return MLNumber(j.template get<double>());
    default:
      break;
  }
  throw RunnerError("expected a JSON number, got " + j.dump());
}

// The number a JSON string stands for where a number is expected ("NaN", "Infinity",
// "-Infinity"), or nullopt.
std::optional<double> non_finite_number(std::string_view s);

// A recorded argument as a DynValue. `resolve(object)` may replace an object (an operand
// reference) by returning a value; other objects, arrays and scalars convert member-wise.
template <class J, class Resolve>
DynValue to_dyn(const J& j, Resolve&& resolve) {
  using V = typename J::value_t;
  switch (j.type()) {
    case V::null:
    case V::discarded:
      return DynValue();
    case V::boolean:
      return DynValue(j.template get<bool>());
    case V::number_integer:
    case V::number_unsigned:
    case V::number_float:
      return DynValue(number_from_json(j));
    case V::string:
      return DynValue(j.template get_ref<const std::string&>());
    case V::array: {
      DynValue::Array a;
      a.reserve(j.size());
      for (const J& e : j) a.push_back(to_dyn(e, resolve));
      return DynValue(std::move(a));
    }
    case V::object: {
      if (std::optional<DynValue> r = resolve(j)) return std::move(*r);
      DynValue::Object o;
      o.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) o.emplace_back(it.key(), to_dyn(*it, resolve));
      return DynValue(std::move(o));
    }
    case V::binary:
      break;
  }
  throw RunnerError("unsupported JSON value in a recorded argument");
}

// The bytes of a recorded buffer argument ({"arrayBuffer": n} or {"typedArray": name, "length",
// "byteLength", "values"?}) for a constant of `type`. Runs the spec's view type check (§3.2): an
// ArrayBuffer or a Uint8Array fits any type, otherwise the view must match the type (Float16Array
// or Uint16Array for float16); a mismatch throws cppnn::TypeError. The contents are `values`
// when recorded, zeros otherwise.
std::vector<std::byte> buffer_from_json(const Json& buffer, MLOperandDataType type);

// ---- suites (one file each) --------------------------------------------------------------------

// Replays the validation traces of one corpus file (wpt_validation.cpp), leaving out the cases
// whose id does not contain `filter`. A file that cannot be loaded gives one failed case.
std::vector<CaseResult> run_validation_file(const fs::path& file, std::string_view filter);

// The ONNX export check of `cppnn wpt --check-onnx`: after a graph case passes on the backend,
// its graph is converted and checked by ONNX's checker (strict shape inference), written with
// save_onnx into `dir` (external data included) and, when ORT is built in, run from that file in
// a standalone ORT session and compared with the expected outputs like the backend's.
struct OnnxExportCheck {
  fs::path dir;
};

// The CoreML export of `cppnn wpt --export-coreml DIR` (wpt_coreml.cpp): every graph case that
// builds is written with save_coreml as DIR/cNNNN.mlpackage, its inputs as .npy files, and an
// entry in DIR/index.json (features, expected outputs, tolerance) for
// tests/coreml/check_packages.py; a case that does not build or convert gets an entry with its
// error.
struct CoremlExport {
  fs::path dir;
  Json cases = Json::array();
};

// One built graph case into the CoreML export: `expected` is the case's expectedOutputs object
// and `tolerance` its tolerance (both as in the corpus). Never throws for a conversion failure:
// the entry records it.
void export_coreml_case(CoremlExport& x, const std::string& id, const MLGraph& graph,
                        const std::map<std::string, std::vector<std::byte>>& inputs,
                        const Json& expected, const Json& tolerance, bool exact);
// An entry for a case that has no graph to export (it did not build, or is not a graph case).
void record_coreml_failure(CoremlExport& x, const std::string& id, const std::string& error);
// Writes DIR/index.json (atomically).
void write_coreml_index(const CoremlExport& x, const std::string& corpus);

// The TFLite export of `cppnn wpt --export-tflite DIR` (wpt_tflite.cpp): every graph case that
// builds and runs on the backend is written with save_tflite (the litert backend's own pipeline
// and conversion, so the model it compiled) as DIR/cNNNN.tflite, with its inputs and the outputs
// the backend produced as .npy files (in the model's element types) and an entry in
// DIR/index.json (names, types, shapes, WPT's expected outputs and tolerance, the backend's WPT
// outcome) for tests/tflite/check_interpreter.py; a case that does not build, convert or run gets
// an entry with its error.
struct TfliteExport {
  fs::path dir;
  std::string backend;  // the backend whose outputs are written
  Json cases = Json::array();
};

// One graph case that built and ran: `inputs` the bytes it was dispatched with, `outputs` the
// bytes the backend produced (both by name, WebNN layout), `expected` the case's expectedOutputs
// object and `tolerance` its tolerance (both as in the corpus). Never throws for a conversion
// failure: the entry records it.
void export_tflite_case(TfliteExport& x, const std::string& id, const MLGraph& graph,
                        const std::map<std::string, std::vector<std::byte>>& inputs,
                        const std::map<std::string, std::vector<std::byte>>& outputs,
                        const Json& expected, const Json& tolerance, bool exact);
// An entry for a case that has no model to export (it did not build or run, or is not a graph
// case).
void record_tflite_failure(TfliteExport& x, const std::string& id, const std::string& error);
// The WPT outcome of the case of the last entry on the backend ("passed" / "failed" / ...).
void record_tflite_outcome(TfliteExport& x, std::string_view status, const std::string& message);
// Writes DIR/index.json (atomically).
void write_tflite_index(const TfliteExport& x, const std::string& corpus);

// The exports a conformance run makes besides running each case (each optional).
struct CaseExports {
  const OnnxExportCheck* onnx = nullptr;
  CoremlExport* coreml = nullptr;
  TfliteExport* tflite = nullptr;
};

// Runs the conformance cases of one corpus file (wpt_conformance.cpp) on `context`'s backend,
// leaving out the cases whose id does not contain `filter`. A file that cannot be loaded gives
// one failed case.
std::vector<CaseResult> run_conformance_file(const fs::path& file, std::string_view filter,
                                             MLContext& context, const CaseExports& exports = {});

}  // namespace cppnn::tool::wpt
