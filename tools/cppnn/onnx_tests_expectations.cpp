// The expectations file of `cppnn onnx-tests` (tests/onnx/expectations.txt): one listed case per
// line, `[backends] test_name: category: reason` (see onnx_tests.h).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "src/core/input_file.h"
#include "tools/cppnn/onnx_tests.h"

#ifndef CPPNN_SOURCE_DIR
#define CPPNN_SOURCE_DIR "."
#endif

namespace cppnn::tool::onnx_tests {
namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// A backend or case name: letters, digits, '_', '-', '.'.
bool is_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
  });
}

}  // namespace

std::string_view category_name(Category c) {
  switch (c) {
    case Category::kNotExpressible:
      return "not-expressible";
    case Category::kUnsupported:
      return "unsupported";
    case Category::kPrecision:
      return "precision";
    case Category::kBackend:
      return "backend";
  }
  return "unsupported";
}

std::optional<Category> parse_category(std::string_view s) {
  for (Category c : {Category::kNotExpressible, Category::kUnsupported, Category::kPrecision,
                     Category::kBackend})
    if (category_name(c) == s) return c;
  return std::nullopt;
}

bool Expectation::applies_to(std::string_view backend) const {
  return backends.empty() || std::find(backends.begin(), backends.end(), backend) != backends.end();
}

const Expectation* Expectations::find(std::string_view name, std::string_view backend) const {
  for (const Expectation& e : entries)
    if (e.name == name && e.applies_to(backend)) return &e;
  return nullptr;
}

Expectations parse_expectations(std::string_view text, const fs::path& file) {
  Expectations out;
  out.file = file;
  int n = 0;
  while (!text.empty()) {
    ++n;
    const size_t eol = text.find('\n');
    std::string_view s = trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (s.empty() || s.front() == '#') continue;
    auto error = [&](const std::string& what) {
      return RunnerError(file.string() + ":" + std::to_string(n) + ": " + what +
                         " (expected `[backends] test_name: category: reason`)");
    };
    Expectation e;
    e.line = n;
    if (s.front() == '[') {
      const size_t close = s.find(']');
      if (close == std::string_view::npos) throw error("no ']' after the backend list");
      std::string_view list = s.substr(1, close - 1);
      while (true) {
        const size_t comma = list.find(',');
        std::string_view b = trim(list.substr(0, comma));
        if (!is_name(b)) throw error("bad backend name '" + std::string(b) + "'");
        e.backends.emplace_back(b);
        if (comma == std::string_view::npos) break;
        list = list.substr(comma + 1);
      }
      s = trim(s.substr(close + 1));
    }
    const size_t c1 = s.find(':');
    const size_t c2 = c1 == std::string_view::npos ? c1 : s.find(':', c1 + 1);
    if (c2 == std::string_view::npos) throw error("missing ':'");
    const std::string_view name = trim(s.substr(0, c1));
    const std::string_view category = trim(s.substr(c1 + 1, c2 - c1 - 1));
    const std::string_view reason = trim(s.substr(c2 + 1));
    if (!is_name(name)) throw error("bad test name '" + std::string(name) + "'");
    const std::optional<Category> cat = parse_category(category);
    if (!cat)
      throw error("unknown category '" + std::string(category) +
                  "' (one of not-expressible, unsupported, precision, backend)");
    if (reason.empty()) throw error("an entry needs a reason");
    e.name = name;
    e.category = *cat;
    e.reason = reason;
    for (const Expectation& other : out.entries) {
      if (other.name != e.name) continue;
      const bool overlap = other.backends.empty() || e.backends.empty() ||
                           std::any_of(e.backends.begin(), e.backends.end(),
                                       [&](const std::string& b) { return other.applies_to(b); });
      if (overlap)
        throw error(e.name + " is listed already on line " + std::to_string(other.line) +
                    " for the same backend");
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

Expectations load_expectations(const fs::path& file) {
  auto text = read_input_file(file);  // regular files only, never blocking, bounded
  if (!text) throw RunnerError("cannot read the expectations file: " + text.error().message);
  return parse_expectations(*text, file);
}

fs::path default_expectations_file() {
  const fs::path rel = fs::path("tests") / "onnx" / "expectations.txt";
  if (fs::exists(rel)) return rel;
  return fs::path(CPPNN_SOURCE_DIR) / rel;
}

}  // namespace cppnn::tool::onnx_tests
