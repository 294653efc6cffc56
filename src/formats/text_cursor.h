// The character cursor of the .webnn text reader (webnn-graph-format.md §3.1 lexical rules):
// whitespace and `#` comments, identifiers, uints, numbers and strings, matched in place as
// string_views into the source. Line and column are tracked while skipping, so positions cost
// nothing extra. Failures throw TextParseError, which parse_webnn_text() turns into a Result.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cppnn::formats::text {

// A parse failure at a byte offset of the source (internal to the text reader).
struct TextParseError {
  const char* at;
  std::string message;
};

// Character classes of §3.1, as a 256-entry table.
enum : uint8_t {
  kIdentFirst = 1,  // ASCII letter, `_`, `/`, `$`
  kIdentRest = 2,   // ASCII letter, digit, `_`, `.`, `/`
  kDigit = 4,
  kSpace = 8,  // space, tab, CR, LF
};

struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int i = 'a'; i <= 'z'; ++i) c[i] = kIdentFirst | kIdentRest;
    for (int i = 'A'; i <= 'Z'; ++i) c[i] = kIdentFirst | kIdentRest;
    for (int i = '0'; i <= '9'; ++i) c[i] = kIdentRest | kDigit;
    c[int('_')] = kIdentFirst | kIdentRest;
    c[int('/')] = kIdentFirst | kIdentRest;
    c[int('$')] = kIdentFirst;
    c[int('.')] = kIdentRest;
    c[int(' ')] = c[int('\t')] = c[int('\r')] = c[int('\n')] = kSpace;
  }
};
inline constexpr CharTable kChars{};

inline bool has_class(char ch, uint8_t cls) {
  return (kChars.c[static_cast<unsigned char>(ch)] & cls) != 0;
}

// A position in the source with line tracking.
class Cursor {
 public:
  Cursor(std::string_view src) : begin_(src.data()), p_(src.data()), end_(src.data() + src.size()) {
    line_start_ = begin_;
  }

  const char* pos() const { return p_; }
  bool at_end() const { return p_ == end_; }
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  char peek_at(size_t k) const { return p_ + k < end_ ? p_[k] : '\0'; }
  uint32_t line() const { return line_; }
  uint32_t column() const { return static_cast<uint32_t>(p_ - line_start_) + 1; }
  // Line and column of an earlier or later position (scans from the start: error paths only).
  void locate(const char* at, uint32_t& line, uint32_t& column) const;

  [[noreturn]] void fail(const char* at, std::string message) const {
    throw TextParseError{at, std::move(message)};
  }
  [[noreturn]] void fail(std::string message) const { fail(p_, std::move(message)); }

  // Skips whitespace and comments (§3.1).
  void skip_ws() {
    while (p_ < end_) {
      const char ch = *p_;
      if (ch == '\n') {
        ++p_;
        ++line_;
        line_start_ = p_;
      } else if (ch == ' ' || ch == '\t' || ch == '\r') {
        ++p_;
      } else if (ch == '#') {
        while (p_ < end_ && *p_ != '\n') ++p_;
      } else {
        return;
      }
    }
  }

  // Skips whitespace, then consumes `ch` if it is next.
  bool accept(char ch) {
    skip_ws();
    if (p_ < end_ && *p_ == ch) {
      ++p_;
      return true;
    }
    return false;
  }
  // Skips whitespace, then consumes `ch` or fails with "expected <what>".
  void expect(char ch, std::string_view what) {
    if (!accept(ch)) fail_expected(what);
  }
  [[noreturn]] void fail_expected(std::string_view what) const;

  // True if an identifier starts here (no whitespace skipped).
  bool at_ident() const { return p_ < end_ && has_class(*p_, kIdentFirst); }
  // Consumes an identifier (§3.1); the caller checked at_ident().
  std::string_view ident() {
    const char* s = p_++;
    while (p_ < end_ && has_class(*p_, kIdentRest)) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
  }
  // Consumes identifier characters after the first (§3.1), possibly none.
  std::string_view ident_rest() {
    const char* s = p_;
    while (p_ < end_ && has_class(*p_, kIdentRest)) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
  }
  // Skips whitespace and consumes an identifier, or fails with "expected <what>".
  std::string_view expect_ident(std::string_view what) {
    skip_ws();
    if (!at_ident()) fail_expected(what);
    return ident();
  }
  // Consumes a run of [A-Za-z0-9_] (a keyword or dtype candidate).
  std::string_view word() {
    const char* s = p_;
    while (p_ < end_ && (has_class(*p_, kIdentFirst | kDigit) && *p_ != '/' && *p_ != '$')) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
  }
  // True if the next characters are `lit` (no whitespace skipped, nothing consumed).
  bool looking_at(std::string_view lit) const {
    return static_cast<size_t>(end_ - p_) >= lit.size() && std::string_view(p_, lit.size()) == lit;
  }
  void advance(size_t n) { p_ += n; }

  // Skips whitespace and consumes a uint (u32, leading zeros allowed); "bad int" on overflow.
  uint32_t expect_uint(std::string_view what);
  // Consumes a number (§3.1) starting here; `is_integer` is set when it has no `.`/`e`/`E`.
  std::string_view number(bool& is_integer);
  // Consumes a string literal starting at `"`, appending its decoded content to `out` (only
  // `\"` and `\\` are escapes; raw newlines allowed).
  void string(std::string& out);

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  const char* line_start_;
  uint32_t line_ = 1;
};

}  // namespace cppnn::formats::text
