// Pieces of `cppnn onnx-tests`, the runner of ONNX's backend test data (Debian libonnx-testdata:
// <root>/<suite>/<case>/model.onnx + test_data_set_<k>/{input,output}_<i>.pb): the test tensors,
// the numpy-style comparison, the expectations file and one case's run. The data and comparison
// parts depend on nothing but protobuf and the data type enum, so unit tests can use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"

namespace cppnn {
class MLContext;
}

namespace cppnn::tool::onnx_tests {

namespace fs = std::filesystem;

// A problem with the runner's own input (expectations file, report path, data root), as opposed
// to a failing case.
class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A case fails with this message.
class CaseFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A case uses something WebNN cannot express (a double or string tensor, a sequence, ...).
class NotExpressible : public CaseFailure {
 public:
  using CaseFailure::CaseFailure;
};

// ---- test tensors (onnx_tests_data.cpp) ---------------------------------------------------------

// The WebNN type holding ONNX element type `onnx_type` (TensorProto::DataType): FLOAT, FLOAT16,
// INT32, UINT32, INT64, UINT64, INT8, UINT8, and BOOL as uint8 0/1; nullopt for the rest.
std::optional<MLOperandDataType> webnn_type_of(int32_t onnx_type);
// ONNX's name of an element type ("FLOAT", "DOUBLE", ...; "type <n>" when unknown).
std::string onnx_type_name(int32_t onnx_type);

// A decoded test tensor: its WebNN type, static shape and little-endian bytes.
struct TestTensor {
  std::string name;  // TensorProto.name (may be empty)
  int32_t onnx_type = 0;
  MLOperandDataType type = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;
  std::vector<std::byte> bytes;
};

// Decodes a serialized TensorProto (raw_data little-endian, or the typed fields float_data,
// int32_data, int64_data, uint64_data). NotExpressible for an element type WebNN lacks,
// CaseFailure naming `where` for a malformed tensor (bad dims, byte count, external data).
TestTensor decode_test_tensor(std::span<const std::byte> serialized, const std::string& where);
// Reads and decodes a `.pb` tensor file; CaseFailure naming the file when it cannot.
TestTensor read_test_tensor(const fs::path& file);

// What the runner needs from model.onnx: the graph inputs that are not initializers, in order,
// and the number of graph outputs.
struct ModelInfo {
  std::vector<std::string> inputs;
  size_t output_count = 0;
};
// Parses `model` (CaseFailure when unreadable or malformed); NotExpressible when an input or
// output is not a tensor (sequence, map, optional) or has an element type WebNN lacks.
ModelInfo read_model_info(const fs::path& model);

// ---- comparison (onnx_tests_compare.cpp) --------------------------------------------------------

// numpy.testing.assert_allclose's tolerances (ONNX backend tests: rtol 1e-3, atol 1e-7).
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

// The outcome of comparing one output.
struct Comparison {
  bool ok = true;
  double max_abs_error = 0;  // over float elements; +Inf for a NaN or Inf mismatch
  std::string message;       // the mismatch (empty when ok)
};

// Compares an output of type `type` and shape `shape` (`bytes` little-endian) with `expected`:
// types and shapes must match exactly (a 0-d tensor is not [1]); float32/float16 elements match
// when |a - e| <= atol + rtol * |e|, NaN matches NaN, +-Inf must match exactly; integer and
// bool elements must be equal. The message names `what`, the first mismatching index and the
// number of mismatches.
Comparison compare_output(const TestTensor& expected, MLOperandDataType type,
                          std::span<const uint32_t> shape, std::span<const std::byte> bytes,
                          const std::string& what, const Tolerance& tolerance = {});

// ---- expectations (onnx_tests_expectations.cpp) -------------------------------------------------

// Why a case is listed: WebNN cannot express it, not implemented yet, a precision difference,
// a backend bug.
enum class Category { kNotExpressible, kUnsupported, kPrecision, kBackend };
// "not-expressible", "unsupported", "precision", "backend".
std::string_view category_name(Category c);
std::optional<Category> parse_category(std::string_view s);

// One line of the expectations file.
struct Expectation {
  std::string name;                   // the case (test directory) name
  std::vector<std::string> backends;  // empty: every backend
  Category category = Category::kUnsupported;
  std::string reason;
  int line = 0;
  bool applies_to(std::string_view backend) const;
};

// The expectations file: `[backends] test_name: category: reason` per line (`[backends]`
// optional, e.g. `[ort]` or `[reference,ort]`), `#` comments and blank lines ignored.
struct Expectations {
  fs::path file;  // empty: no file
  std::vector<Expectation> entries;
  // The entry for `name` on `backend`, or nullptr.
  const Expectation* find(std::string_view name, std::string_view backend) const;
};

// Parses expectations text; RunnerError naming `file` and the line for a malformed line, an
// unknown category or a case listed twice for the same backend.
Expectations parse_expectations(std::string_view text, const fs::path& file);
// Reads an expectations file; RunnerError when unreadable or malformed.
Expectations load_expectations(const fs::path& file);
// tests/onnx/expectations.txt from the current directory, else from the source tree.
fs::path default_expectations_file();

// ---- cases (onnx_tests_case.cpp) ----------------------------------------------------------------

enum class CaseStatus { kPassed, kFailed, kSkipped };
// "passed", "failed", "skipped".
std::string_view status_name(CaseStatus s);

// One case's result.
struct CaseResult {
  std::string suite;
  std::string name;
  CaseStatus status = CaseStatus::kPassed;
  std::optional<Category> category;  // listed category, else not-expressible when detected
  std::string reason;                // the listed reason (listed cases)
  std::string message;               // why it failed (also kept for skipped cases)
  std::optional<double> max_abs_error;
  double time_ms = 0;
  bool not_expressible = false;  // detected by the runner or the importer
  // Graph inputs fixed to the data set's values at conversion (OnnxImportOptions::inputValues).
  std::vector<std::string> fixed_inputs;
};

// Runs the case in `dir` (model.onnx and its test_data_set_<k> folders) on `context`: imports
// the model with each data set's input shapes (re-importing only when they change), builds,
// dispatches once per data set and compares every output. Never throws for bad data: the
// result says failed with the reason.
CaseResult run_case(const fs::path& dir, const std::string& suite, MLContext& context,
                    const Tolerance& tolerance = {});

// ---- isolation (onnx_tests_worker.cpp) ----------------------------------------------------------

// A case to run: its suite and folder.
struct CaseDir {
  std::string suite;
  fs::path dir;
};

// How cases run: in worker processes (a crash or a hang in the importer or a backend fails
// that case only), or in this process (for debugging).
struct WorkerOptions {
  std::string backend;     // as given (empty: the context's default choice)
  bool isolate = true;     // worker processes
  double timeout_s = 300;  // per case, isolated runs only (0: none)
};

// Runs `cases` in order on one context per worker (a new worker after a crash or a timeout,
// which fail the case they hit), calling `on_result` with each result and the backend's name as
// each finishes. Returns the backend's name; RunnerError when no context can be created.
using ResultCallback = std::function<void(CaseResult result, const std::string& backend)>;
std::string run_cases(const std::vector<CaseDir>& cases, const WorkerOptions& options,
                      const ResultCallback& on_result);

}  // namespace cppnn::tool::onnx_tests
