// A strict RFC 8259 JSON reader for the GraphJson loader (webnn-graph-format.md §4.1): JsonPull, a
// pull reader that walks the text token by token so that the schema layer
// (graph_json_parser.cpp) reads straight into the document, and read_json, which builds a whole
// DocValue tree with it (objects keep every member in source order, repeated keys included).
//
// Syntax rules of both: nesting deeper than 256 levels is an error; strings must be valid UTF-8
// (no overlong forms, no encoded surrogates, nothing above U+10FFFF, no truncated sequences) and
// may not hold raw control characters; \u escapes decode to UTF-8, a surrogate pair to one code
// point, a lone surrogate is an error, \u0000 is kept as a NUL byte. Integers that fit int64 are
// kInt, larger ones that fit uint64 kUint, everything else kFloat (which must be finite). Errors
// (DataError): "JSON error: <file>:<line>:<col>: <what>".
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// Parses one JSON value filling the whole input (surrounding whitespace allowed), keeping
// repeated object keys.
Result<DocValue> read_json(std::string_view json, std::string_view file_name);

// The deepest nesting a JSON value may have (the root value is at depth 0).
inline constexpr int kJsonMaxDepth = 256;

// A syntax error at `at` in the text, thrown by JsonPull; JsonPull::error turns it into the
// DataError with line and column.
struct JsonSyntaxError {
  const char* at;
  std::string message;
};

// A number token as read: kind kInt (`i`), kUint (`u`) or kFloat (`f`).
struct JsonNumber {
  DocValue::Kind kind = DocValue::Kind::kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0.0;
};

// A pull reader over JSON text. Every read starts at the current position; syntax errors throw
// JsonSyntaxError. The loop over an object (after peek() == '{'):
//   if (r.begin_object()) {
//     do { std::string_view k = r.key(); ...read the value... } while (r.next_member());
//   }
// and over an array (after peek() == '['):
//   if (r.begin_array()) {
//     do { ...read the value... } while (r.next_item());
//   }
// A value is read with peek() (which skips whitespace) and then string(), number(),
// small_uint(), value(), object_members() or skip().
class JsonPull {
 public:
  explicit JsonPull(std::string_view text)
      : b_(text.data()), p_(text.data()), e_(text.data() + text.size()) {}

  // Skips whitespace (space, tab, CR, LF).
  void ws() { p_ = skip_ws(p_, e_); }
  // Skips whitespace and returns the next byte (not consumed), or '\0' at the end of the input.
  char peek() {
    ws();
    return p_ < e_ ? *p_ : '\0';
  }
  // Whitespace up to the end of the input; anything else is an error.
  void expect_end() {
    ws();
    if (p_ != e_) fail("unexpected content after the JSON value");
  }

  // At '{': consumes it; false when the object is empty (its '}' consumed too).
  bool begin_object() {
    ++p_;
    ws();
    if (p_ < e_ && *p_ == '}') {
      ++p_;
      return false;
    }
    return true;
  }
  // A member name and its ':'; the view lasts until the next string is read.
  std::string_view key() {
    ws();
    if (p_ == e_ || *p_ != '"') fail("expected a member name (a string)");
    const std::string_view k = string();
    ws();
    if (p_ == e_ || *p_ != ':') fail("expected ':'");
    ++p_;
    ws();
    return k;
  }
  // After a member value: true at ',' (another member follows), false at '}'.
  bool next_member() {
    ws();
    if (p_ < e_) {
      if (*p_ == ',') {
        ++p_;
        return true;
      }
      if (*p_ == '}') {
        ++p_;
        return false;
      }
    }
    fail("expected ',' or '}'");
  }
  // At '[': consumes it; false when the array is empty (its ']' consumed too).
  bool begin_array() {
    ++p_;
    ws();
    if (p_ < e_ && *p_ == ']') {
      ++p_;
      return false;
    }
    return true;
  }
  // After an element: true at ',' (another element follows), false at ']'.
  bool next_item() {
    ws();
    if (p_ < e_) {
      if (*p_ == ',') {
        ++p_;
        return true;
      }
      if (*p_ == ']') {
        ++p_;
        return false;
      }
    }
    fail("expected ',' or ']'");
  }

  // At '"': the decoded string. The view points into the text when the string has no escapes,
  // else into a buffer of the reader; either way it lasts until the next string is read.
  std::string_view string() {
    const char* s = ++p_;
    p_ = scan_plain(p_, e_);
    if (p_ < e_ && *p_ == '"') {
      ++p_;
      return std::string_view(s, static_cast<size_t>(p_ - 1 - s));
    }
    return string_rest(s);
  }

  // At '-' or a digit: the number token, classified.
  JsonNumber number() {
    const char* s = p_;
    const char* q = p_;
    const bool negative = *q == '-';
    if (negative) ++q;
    if (q < e_ && digit(*q)) {
      uint64_t v = 0;
      if (*q == '0') {
        ++q;
      } else {
        const char* d = q;
        while (q < e_ && digit(*q) && q - d < 18) v = v * 10 + static_cast<uint64_t>(*q++ - '0');
      }
      if (!(q < e_ && (digit(*q) || *q == '.' || *q == 'e' || *q == 'E'))) {
        p_ = q;
        JsonNumber n;
        n.i = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        return n;
      }
    }
    return number_slow(s);
  }

  // At a value: when it is an integer token from 0 to `max` (< 1e9, no fraction or exponent),
  // consumes it into `out` and returns true; otherwise reads nothing and returns false.
  bool small_uint(uint32_t max, uint32_t& out) {
    const char* q = p_;
    if (q == e_ || !digit(*q)) return false;
    uint32_t v = static_cast<uint32_t>(*q++ - '0');
    if (v != 0) {
      for (int k = 0; k < 8 && q < e_ && digit(*q); ++k)
        v = v * 10 + static_cast<uint32_t>(*q++ - '0');
      if (q < e_ && digit(*q)) return false;
    }
    if (q < e_ && (*q == '.' || *q == 'e' || *q == 'E')) return false;
    if (v > max) return false;
    p_ = q;
    out = v;
    return true;
  }

  // At an element of an array: reads the run of plain bytes from here (integer tokens 0 to 255
  // without sign, fraction, exponent or leading zero) into `out`. Returns true when that ends
  // the array (its ']' consumed), false at an element that is something else (not consumed).
  bool byte_run(std::vector<uint8_t>& out);

  // At a value at nesting `depth`: reads it into `out` (which must be a fresh DocValue). With
  // `last_key_wins` a repeated key of an object keeps its first position and its last value
  // (nested objects included), else every member is kept.
  void value(DocValue& out, int depth, bool last_key_wins);
  // At '{' at nesting `depth`: reads the members of the object into `out` (as value() would).
  void object_members(DocValue::Object& out, int depth, bool last_key_wins);
  // At a value at nesting `depth`: checks it (all of the syntax rules) and skips it; returns its
  // kind (an integer token that fits neither int64 nor uint64 is kFloat).
  DocValue::Kind skip(int depth);

  // The 1-based line and column (in bytes) of `at`.
  void locate(const char* at, uint32_t& line, uint32_t& column) const;
  // "JSON error: <file>:<line>:<col>: <what>" as a DataError.
  ErrorInfo error(const JsonSyntaxError& e, std::string_view file_name) const;

 private:
  [[noreturn]] void fail(std::string message) const {
    throw JsonSyntaxError{p_, std::move(message)};
  }
  [[noreturn]] static void fail_at(const char* at, std::string message) {
    throw JsonSyntaxError{at, std::move(message)};
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  // The first byte from `p` that is not whitespace, or `e`.
  static const char* skip_ws(const char* p, const char* e) {
    if (p == e || static_cast<unsigned char>(*p) > 0x20) return p;  // most often no whitespace
    while (p < e) {
      if constexpr (std::endian::native == std::endian::little) {
        if (e - p >= 8) {
          // Runs of spaces (indentation) are stepped over 8 bytes at a time, whatever their
          // length, without a branch per space.
          uint64_t v;
          std::memcpy(&v, p, 8);
          const uint64_t x = v ^ 0x2020202020202020ull;
          if (x == 0) {
            p += 8;
            continue;
          }
          p += std::countr_zero(x) >> 3;
        }
      }
      const char c = *p;
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return p;
      ++p;
    }
    return e;
  }

  // The first byte from `p` that ends a plain run of a string: '"', '\\', a control character
  // or a non-ASCII byte; `e` when there is none.
  static const char* scan_plain(const char* p, const char* e) {
    if constexpr (std::endian::native == std::endian::little) {
      constexpr uint64_t kOnes = 0x0101010101010101ull;
      constexpr uint64_t kHigh = 0x8080808080808080ull;
      while (e - p >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        const uint64_t q = v ^ (kOnes * '"');
        const uint64_t b = v ^ (kOnes * '\\');
        // A zero byte in q or b, a byte below 0x20, or a byte with its high bit set. Borrows can
        // mark bytes above the first real hit, never below it.
        const uint64_t hit =
            (((q - kOnes) & ~q) | ((b - kOnes) & ~b) | (v - kOnes * 0x20) | v) & kHigh;
        if (hit != 0) return p + (std::countr_zero(hit) >> 3);
        p += 8;
      }
    }
    while (p < e) {
      const unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
      ++p;
    }
    return e;
  }

  // string() past its plain prefix: escapes, UTF-8 checks, the end.
  std::string_view string_rest(const char* start);
  // The UTF-8 sequence at p_ (a byte >= 0x80 inside a string): checks it and steps over it.
  void utf8_sequence();
  // The escape after a backslash at p_ - 1, appended to buf_ (UTF-8).
  void escape();
  uint32_t hex4();
  bool lit(std::string_view l) {
    if (static_cast<size_t>(e_ - p_) >= l.size() && std::string_view(p_, l.size()) == l) {
      p_ += l.size();
      return true;
    }
    return false;
  }
  // number() for any token: checks the grammar and classifies it.
  JsonNumber number_slow(const char* start);

  // A number of an array being read, kept compact until the array's DocValues are made.
  struct PendingNumber {
    DocValue::Kind kind;
    union {
      int64_t i;
      uint64_t u;
      double f;
    };
  };
  // Appends the pending numbers to `items` as DocValues.
  void flush_numbers(DocValue::Array& items);

  const char* b_;
  const char* p_;
  const char* e_;
  std::string buf_;  // decoded strings with escapes
  // The run of numbers of the innermost array being read by value() (only one array has a run
  // at a time: a nested container ends the run of the array around it).
  std::vector<PendingNumber> numbers_;
};

}  // namespace cppnn::formats
