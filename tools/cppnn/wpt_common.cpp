// Shared pieces of the WPT runners: corpus resolution, known failures, summary and JSON report,
// recorded argument conversion (see wpt_common.h).
#include "tools/cppnn/wpt_common.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "src/core/input_file.h"
#include "tools/cppnn/json_file.h"

#ifndef CPPNN_SOURCE_DIR
#define CPPNN_SOURCE_DIR "."
#endif

namespace cppnn::tool::wpt {

// ---- cases --------------------------------------------------------------------------------------

std::string_view status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kSkipped:
      return "skipped";
    case CaseStatus::kKnownFailure:
      return "known-failure";
  }
  return "failed";
}

std::string case_id(std::string_view file, std::string_view name,
                    const std::optional<std::string>& variant) {
  std::string id = std::string(file) + " :: " + std::string(name);
  if (variant) id += " :: " + *variant;
  return id;
}

Totals count(std::span<const CaseResult> cases) {
  Totals t;
  for (const CaseResult& c : cases) {
    switch (c.status) {
      case CaseStatus::kPassed:
        ++t.passed;
        break;
      case CaseStatus::kFailed:
        ++t.failed;
        break;
      case CaseStatus::kSkipped:
        ++t.skipped;
        break;
      case CaseStatus::kKnownFailure:
        ++t.known;
        break;
    }
  }
  return t;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// ---- corpus -------------------------------------------------------------------------------------

Corpus resolve_corpus(std::string_view suite, const std::optional<std::string>& corpus_arg) {
  if (corpus_arg) {
    if (fs::is_directory(*corpus_arg)) return {fs::absolute(*corpus_arg).lexically_normal(), ""};
    return {{}, "the corpus directory " + *corpus_arg + " does not exist"};
  }
  std::vector<fs::path> tried;
  if (const char* env = std::getenv("CPPNN_WPT_DIR"); env && *env)
    tried.push_back(fs::path(env) / suite);
  tried.push_back(fs::path("..") / "shared" / "wpt" / suite);
  tried.push_back(fs::path(CPPNN_SOURCE_DIR) / ".." / "shared" / "wpt" / suite);
  std::string reason = "no WPT " + std::string(suite) + " corpus: tried";
  for (const fs::path& p : tried) {
    if (fs::is_directory(p)) return {fs::absolute(p).lexically_normal(), ""};
    reason += " " + p.lexically_normal().string();
  }
  return {{}, reason + " (set CPPNN_WPT_DIR or pass --corpus)"};
}

std::vector<fs::path> corpus_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path& p = entry.path();
    if (entry.is_regular_file() && p.extension() == ".json" && p.filename() != "index.json")
      files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

template <class J>
J parse_file(const fs::path& file) {
  auto text = read_input_file(file);  // regular files only, never blocking, bounded
  if (!text) throw RunnerError(text.error().message);
  // WPT corpus files nest a few levels; far deeper input is refused while parsing (the
  // recursive printing and comparing of values must never meet it).
  constexpr int kMaxDepth = 256;
  try {
    return J::parse(*text, [&](int depth, typename J::parse_event_t, J&) {
      if (depth > kMaxDepth)
        throw RunnerError(file.string() + ": nested more than " + std::to_string(kMaxDepth) +
                          " levels deep");
      return true;
    });
  } catch (const typename J::exception& e) {
    throw RunnerError(file.string() + ": " + e.what());
  }
}

}  // namespace

Json load_json(const fs::path& file) {
  return parse_file<Json>(file);
}
OrderedJson load_ordered_json(const fs::path& file) {
  return parse_file<OrderedJson>(file);
}

// ---- known failures -----------------------------------------------------------------------------

namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

fs::path default_expectations_file(std::string_view suite) {
  const fs::path rel = fs::path("tests") / "wpt" / (std::string(suite) + "-expected-failures.txt");
  if (fs::exists(rel)) return rel;
  return fs::path(CPPNN_SOURCE_DIR) / rel;
}

Expectations load_expectations(const fs::path& file) {
  auto text = read_input_file(file);
  if (!text) throw RunnerError("cannot read the expectations file: " + text.error().message);
  std::istringstream in(*text);
  Expectations e;
  e.file = file;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string_view s = trim(line);
    if (s.empty() || s.front() == '#') continue;
    // The reason starts at the first " #" (case ids never contain one).
    const size_t hash = s.find(" #");
    std::string_view id = hash == std::string_view::npos ? s : trim(s.substr(0, hash));
    std::string_view reason = hash == std::string_view::npos ? "" : trim(s.substr(hash + 2));
    if (reason.empty())
      throw RunnerError(file.string() + ":" + std::to_string(n) +
                        ": an entry needs a reason: `<case id>  # <reason>`");
    if (!e.reasons.emplace(std::string(id), std::string(reason)).second)
      throw RunnerError(file.string() + ":" + std::to_string(n) + ": duplicate entry " +
                        std::string(id));
  }
  return e;
}

std::vector<std::string> apply_expectations(std::vector<CaseResult>& cases,
                                            const Expectations& expectations) {
  std::map<std::string, bool> seen;
  for (const auto& [id, reason] : expectations.reasons) seen[id] = false;
  for (CaseResult& c : cases) {
    auto it = expectations.reasons.find(c.id);
    if (it == expectations.reasons.end()) continue;
    seen[c.id] = true;
    if (c.status == CaseStatus::kFailed) {
      c.status = CaseStatus::kKnownFailure;
      c.message += " [known failure: " + it->second + "]";
    } else if (c.status == CaseStatus::kPassed) {
      c.status = CaseStatus::kFailed;
      c.message = "stale entry: listed in " + expectations.file.string() + " (" + it->second +
                  ") but passes now; remove the entry";
    }
  }
  std::vector<std::string> unmatched;
  for (const auto& [id, found] : seen)
    if (!found) unmatched.push_back(id);
  return unmatched;
}

// ---- output -------------------------------------------------------------------------------------

std::string closing_line(std::string_view suite, const Totals& t) {
  return "wpt-" + std::string(suite) + ": " + std::to_string(t.passed) + " passed, " +
         std::to_string(t.failed) + " failed, " + std::to_string(t.skipped) + " skipped";
}

void print_summary(std::ostream& os, std::string_view suite, const std::vector<CaseResult>& cases,
                   const Expectations& expectations, bool verbose) {
  size_t i = 0;
  while (i < cases.size()) {
    size_t j = i;
    while (j < cases.size() && cases[j].file == cases[i].file) ++j;
    const Totals t = count(std::span(cases).subspan(i, j - i));
    os << cases[i].file << ": " << t.passed << " passed, " << t.failed << " failed, " << t.skipped
       << " skipped";
    if (t.known) os << ", " << t.known << " known failures";
    os << "\n";
    for (const CaseResult& c : std::span(cases).subspan(i, j - i)) {
      const bool show =
          c.status == CaseStatus::kFailed || (verbose && c.status != CaseStatus::kPassed);
      if (show)
        os << "  " << status_name(c.status) << ": " << c.id << "\n      " << c.message << "\n";
    }
    i = j;
  }
  const Totals t = count(cases);
  os << "known failures: " << t.known;
  if (!expectations.file.empty()) os << " (listed in " << expectations.file.string() << ")";
  os << "\n" << closing_line(suite, t) << "\n";
}

void write_report(const fs::path& path, const ReportHeader& header,
                  const std::vector<CaseResult>& cases, double time_ms,
                  std::string_view skip_reason) {
  const Totals t = count(cases);
  Json report = Json::object();
  report["suite"] = header.suite;
  if (!header.backend.empty()) report["backend"] = header.backend;
  report["corpus"] = header.corpus;
  report["passed"] = t.passed;
  report["failed"] = t.failed;
  report["skipped"] = t.skipped;
  report["known_failures"] = t.known;
  report["time_ms"] = time_ms;
  if (!skip_reason.empty()) report["skip_reason"] = skip_reason;
  Json list = Json::array();
  for (const CaseResult& c : cases) {
    Json e = Json::object();
    e["id"] = c.id;
    e["file"] = c.file;
    e["name"] = c.name;
    e["variant"] = c.variant ? Json(*c.variant) : Json(nullptr);
    e["status"] = status_name(c.status);
    for (auto it = c.fields.begin(); it != c.fields.end(); ++it) e[it.key()] = *it;
    e["time_ms"] = c.time_ms;
    e["message"] = c.message;
    list.push_back(std::move(e));
  }
  report["cases"] = std::move(list);

  if (auto error = write_json_atomically(path, report)) throw RunnerError(*error);
}

// ---- recorded arguments -------------------------------------------------------------------------

std::optional<double> non_finite_number(std::string_view s) {
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

namespace {

// A typed array type: its element size and the operand type whose view it is.
struct ViewType {
  std::string_view name;
  size_t element_size;
  std::optional<MLOperandDataType> matches;  // nullopt: no operand type (e.g. Float64Array)
};

constexpr ViewType kViews[] = {
    {"Float32Array", 4, MLOperandDataType::kFloat32},
    {"Float16Array", 2, MLOperandDataType::kFloat16},
    {"Uint16Array", 2, MLOperandDataType::kFloat16},  // raw float16 bits (§3.1)
    {"Int32Array", 4, MLOperandDataType::kInt32},
    {"Uint32Array", 4, MLOperandDataType::kUint32},
    {"BigInt64Array", 8, MLOperandDataType::kInt64},
    {"BigUint64Array", 8, MLOperandDataType::kUint64},
    {"Int8Array", 1, MLOperandDataType::kInt8},
    {"Uint8Array", 1, MLOperandDataType::kUint8},
    {"Int16Array", 2, std::nullopt},
    {"Uint8ClampedArray", 1, std::nullopt},
    {"Float64Array", 8, std::nullopt},
};

double element_number(const Json& v) {
  if (v.is_string()) {
    if (std::optional<double> d = non_finite_number(v.get_ref<const std::string&>())) return *d;
  }
  return number_from_json(v).as_double();
}

template <class T>
void put(std::byte* out, T v) {
  std::memcpy(out, &v, sizeof v);
}

// Writes one recorded element of a view that fits an operand type, as JavaScript stores it.
void write_element(std::string_view view, const Json& v, std::byte* out) {
  if (view == "Float32Array") {
    const double d = element_number(v);  // rounds to float32; overflow gives +-Infinity
    const float inf = std::numeric_limits<float>::infinity();
    if (std::fabs(d) >= 0x1.ffffffp127) return put(out, d > 0 ? inf : -inf);
    return put(out, static_cast<float>(d));
  }
  if (view == "Float16Array") return put(out, double_to_half_bits(element_number(v)));
  if (view == "BigInt64Array" || view == "BigUint64Array") {
    if (v.is_number_unsigned()) return put(out, v.get<uint64_t>());
    return put(out, v.get<int64_t>());
  }
  // The 8-, 16- and 32-bit integer views wrap modulo 2^n.
  const double d = element_number(v);
  const auto wrapped = static_cast<uint32_t>(
      std::isfinite(d) ? static_cast<int64_t>(std::fmod(std::trunc(d), 4294967296.0)) : 0);
  if (view == "Int32Array" || view == "Uint32Array") return put(out, wrapped);
  if (view == "Uint16Array") return put(out, static_cast<uint16_t>(wrapped));
  put(out, static_cast<uint8_t>(wrapped));
}

}  // namespace

std::vector<std::byte> buffer_from_json(const Json& buffer, MLOperandDataType type) {
  if (buffer.is_object() && buffer.contains("arrayBuffer"))
    return std::vector<std::byte>(buffer["arrayBuffer"].get<size_t>());
  if (!buffer.is_object() || !buffer.contains("typedArray"))
    throw TypeError("constant: the buffer must be an ArrayBuffer or an ArrayBufferView");
  const std::string& name = buffer["typedArray"].get_ref<const std::string&>();
  const ViewType* view = nullptr;
  for (const ViewType& v : kViews)
    if (v.name == name) view = &v;
  if (!view) throw RunnerError("unknown typed array type " + name);
  if (name != "Uint8Array" && view->matches != type)
    throw TypeError("constant: a " + name + " cannot hold " + std::string(data_type_name(type)) +
                    " data");
  const size_t byte_length = buffer.value("byteLength", size_t{0});
  std::vector<std::byte> bytes(byte_length);
  const auto values = buffer.find("values");
  if (values != buffer.end() && values->is_array() &&
      values->size() * view->element_size == byte_length) {
    for (size_t i = 0; i < values->size(); ++i)
      write_element(name, (*values)[i], bytes.data() + i * view->element_size);
  }
  return bytes;
}

}  // namespace cppnn::tool::wpt
