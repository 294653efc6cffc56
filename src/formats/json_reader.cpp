// The strict JSON pull reader (RFC 8259) behind the GraphJson loader: the parts off the hot path
// (escapes, UTF-8 checks, number edge cases, generic values, error positions).
#include "src/formats/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "src/core/utf8.h"
#include "src/formats/text_number.h"

namespace cppnn::formats {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Objects with more members than this find a repeated key through a hash index.
constexpr size_t kIndexedObject = 32;

}  // namespace

std::string_view JsonPull::string_rest(const char* start) {
  // Until the first escape the string is a view of the text; from then on buf_ holds the
  // decoded string up to `run`, the start of the plain bytes not yet copied.
  bool copying = false;
  const char* run = start;
  while (true) {
    if (p_ == e_) fail("unterminated string");
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      if (!copying) {
        const std::string_view out(start, static_cast<size_t>(p_ - start));
        ++p_;
        return out;
      }
      buf_.append(run, p_);
      ++p_;
      return buf_;
    }
    if (c < 0x20) fail("control character in a string");
    if (c >= 0x80) {
      utf8_sequence();
    } else {  // a backslash
      if (!copying) {
        buf_.assign(start, p_);
        copying = true;
      } else {
        buf_.append(run, p_);
      }
      ++p_;
      escape();
      run = p_;
    }
    p_ = scan_plain(p_, e_);
  }
}

void JsonPull::utf8_sequence() {
  // RFC 3629: C2..DF 1 continuation byte; E0 A0..BF; E1..EC, EE..EF 2; ED 80..9F (no encoded
  // surrogates); F0 90..BF; F1..F3 3; F4 80..8F (nothing above U+10FFFF).
  const auto* u = reinterpret_cast<const unsigned char*>(p_);
  const size_t avail = static_cast<size_t>(e_ - p_);
  const unsigned c = u[0];
  if (c < 0xC0) fail("invalid UTF-8 in a string (unexpected continuation byte)");
  if (c < 0xC2) fail("invalid UTF-8 in a string (overlong encoding)");
  if (c >= 0xF5) fail("invalid UTF-8 in a string (invalid byte)");
  const size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  for (size_t i = 1; i < len; ++i)
    if (i >= avail || (u[i] & 0xC0) != 0x80) fail("invalid UTF-8 in a string (truncated sequence)");
  if ((c == 0xE0 && u[1] < 0xA0) || (c == 0xF0 && u[1] < 0x90))
    fail("invalid UTF-8 in a string (overlong encoding)");
  if (c == 0xED && u[1] > 0x9F) fail("invalid UTF-8 in a string (encoded surrogate)");
  if (c == 0xF4 && u[1] > 0x8F) fail("invalid UTF-8 in a string (code point above U+10FFFF)");
  p_ += len;
}

uint32_t JsonPull::hex4() {
  if (e_ - p_ < 4) fail("truncated \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const int h = hex(p_[i]);
    if (h < 0) fail("bad \\u escape");
    v = v * 16 + static_cast<uint32_t>(h);
  }
  p_ += 4;
  return v;
}

void JsonPull::escape() {
  if (p_ == e_) fail("unterminated string");
  const char esc = *p_++;
  switch (esc) {
    case '"':
      buf_ += '"';
      return;
    case '\\':
      buf_ += '\\';
      return;
    case '/':
      buf_ += '/';
      return;
    case 'b':
      buf_ += '\b';
      return;
    case 'f':
      buf_ += '\f';
      return;
    case 'n':
      buf_ += '\n';
      return;
    case 'r':
      buf_ += '\r';
      return;
    case 't':
      buf_ += '\t';
      return;
    case 'u': {
      const char* at = p_ - 2;  // the backslash
      uint32_t cp = hex4();
      if (cp >= 0xD800 && cp < 0xDC00) {
        if (!lit("\\u")) fail_at(at, "unpaired surrogate in \\u escape");
        const uint32_t lo = hex4();
        if (lo < 0xDC00 || lo >= 0xE000) fail_at(at, "unpaired surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        fail_at(at, "unpaired surrogate in \\u escape");
      }
      core::append_utf8(buf_, cp);  // \u0000 is kept: a NUL byte
      return;
    }
    default:
      --p_;
      fail("bad escape in a string");
  }
}

JsonNumber JsonPull::number_slow(const char* start) {
  p_ = start;
  bool integer = true;
  if (*p_ == '-') ++p_;
  if (p_ == e_ || !digit(*p_)) fail("expected a digit");
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < e_ && digit(*p_)) ++p_;
  }
  if (p_ < e_ && *p_ == '.') {
    integer = false;
    ++p_;
    if (p_ == e_ || !digit(*p_)) fail("expected a digit after '.'");
    while (p_ < e_ && digit(*p_)) ++p_;
  }
  if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
    integer = false;
    ++p_;
    if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == e_ || !digit(*p_)) fail("expected a digit in the exponent");
    while (p_ < e_ && digit(*p_)) ++p_;
  }
  JsonNumber n;
  if (!integer) {
    // The common case without a copy or a Result; anything unusual (out of range) goes through
    // parse_number_token, which tells underflow (a finite 0) from overflow (an error).
    auto r = std::from_chars(start, p_, n.f);
    if (r.ec == std::errc() && r.ptr == p_ && std::isfinite(n.f)) {
      n.kind = DocValue::Kind::kFloat;
      return n;
    }
  }
  const std::string_view token(start, static_cast<size_t>(p_ - start));
  Result<DocValue> v = parse_number_token(token, integer, true);
  if (!v) fail_at(start, v.error().message);
  n.kind = v->kind;
  n.i = v->i;
  n.u = v->u;
  n.f = v->f;
  return n;
}

void JsonPull::value(DocValue& out, int depth, bool last_key_wins) {
  if (depth > kJsonMaxDepth) fail("nesting deeper than 256 levels");
  if (p_ == e_) fail("unexpected end of input, expected a value");
  switch (*p_) {
    case '{':
      out.kind = DocValue::Kind::kObject;
      object_members(out.members, depth, last_key_wins);
      return;
    case '[':
      // Numbers (the bulk of large inline arrays) are collected compactly and become DocValues
      // in one allocation of the right size, not through the doubling of the array.
      out.kind = DocValue::Kind::kArray;
      if (begin_array()) {
        do {
          ws();
          if (depth < kJsonMaxDepth && p_ < e_ && (*p_ == '-' || digit(*p_))) {
            const JsonNumber n = number();
            PendingNumber& pending = numbers_.emplace_back();
            pending.kind = n.kind;
            if (n.kind == DocValue::Kind::kInt) {
              pending.i = n.i;
            } else if (n.kind == DocValue::Kind::kUint) {
              pending.u = n.u;
            } else {
              pending.f = n.f;
            }
            continue;
          }
          flush_numbers(out.items);
          out.items.emplace_back();
          value(out.items.back(), depth + 1, last_key_wins);
        } while (next_item());
      }
      flush_numbers(out.items);
      return;
    case '"':
      out.kind = DocValue::Kind::kString;
      out.s.assign(string());
      return;
    case 't':
      if (lit("true")) {
        out.kind = DocValue::Kind::kBool;
        out.b = true;
        return;
      }
      break;
    case 'f':
      if (lit("false")) {
        out.kind = DocValue::Kind::kBool;
        out.b = false;
        return;
      }
      break;
    case 'n':
      if (lit("null")) {
        out.kind = DocValue::Kind::kNull;
        return;
      }
      break;
    default:
      if (*p_ == '-' || digit(*p_)) {
        const JsonNumber n = number();
        out.kind = n.kind;
        out.i = n.i;
        out.u = n.u;
        out.f = n.f;
        return;
      }
  }
  fail("expected a value");
}

bool JsonPull::byte_run(std::vector<uint8_t>& out) {
  // The bytes are written through a pointer into `out`, grown by doubling; the position is kept
  // in a local so that the byte stores cannot make the compiler reload it.
  size_t used = out.size();
  out.resize(std::max(out.capacity(), used + 256));
  uint8_t* dst = out.data() + used;
  uint8_t* end = out.data() + out.size();
  const char* p = p_;
  const char* const e = e_;
  bool ended = false;
  while (e - p >= 4) {
    // Up to three digits, without branches on their number.
    const unsigned c0 = static_cast<unsigned char>(p[0]) - unsigned{'0'};
    const unsigned c1 = static_cast<unsigned char>(p[1]) - unsigned{'0'};
    const unsigned c2 = static_cast<unsigned char>(p[2]) - unsigned{'0'};
    const unsigned c3 = static_cast<unsigned char>(p[3]) - unsigned{'0'};
    if (c0 > 9) break;
    const unsigned d1 = c1 <= 9;
    const unsigned d2 = d1 & static_cast<unsigned>(c2 <= 9);
    const unsigned d3 = d2 & static_cast<unsigned>(c3 <= 9);
    if (d3 != 0 || (c0 == 0 && d1 != 0)) break;  // four digits or more, or a leading zero
    const unsigned m1 = 0u - d1;                 // all ones when there is a second digit
    const unsigned m2 = 0u - d2;
    const unsigned v1 = c0 * 10 + c1;
    const unsigned v = ((v1 * 10 + c2) & m2) | (v1 & m1 & ~m2) | (c0 & ~m1);
    const char* q = p + 1 + d1 + d2;
    if (v > 255 || *q == '.' || *q == 'e' || *q == 'E') break;
    if (dst == end) {
      used = static_cast<size_t>(dst - out.data());
      out.resize(2 * out.size());
      dst = out.data() + used;
      end = out.data() + out.size();
    }
    *dst++ = static_cast<uint8_t>(v);
    p = skip_ws(q, e);
    if (p < e && *p == ',') {
      p = skip_ws(p + 1, e);
      continue;
    }
    if (p < e && *p == ']') {
      ++p;
      ended = true;
      break;
    }
    p_ = p;
    out.resize(static_cast<size_t>(dst - out.data()));
    fail("expected ',' or ']'");
  }
  p_ = p;
  out.resize(static_cast<size_t>(dst - out.data()));
  return ended;
}

void JsonPull::flush_numbers(DocValue::Array& items) {
  if (numbers_.empty()) return;
  const size_t need = items.size() + numbers_.size();
  if (items.capacity() < need)
    items.reserve(items.empty() ? need : std::max(need, 2 * items.size()));
  for (const PendingNumber& n : numbers_) {
    DocValue& v = items.emplace_back();
    v.kind = n.kind;
    if (n.kind == DocValue::Kind::kInt) {
      v.i = n.i;
    } else if (n.kind == DocValue::Kind::kUint) {
      v.u = n.u;
    } else {
      v.f = n.f;
    }
  }
  numbers_.clear();
}

void JsonPull::object_members(DocValue::Object& out, int depth, bool last_key_wins) {
  if (!begin_object()) return;
  // With last_key_wins, a repeated key is found by a scan of the members, or through `index`
  // once the object is large.
  std::unordered_map<std::string, size_t> index;
  do {
    const std::string_view k = key();
    size_t at = out.size();
    if (last_key_wins) {
      if (out.size() < kIndexedObject) {
        for (size_t i = 0; i < out.size(); ++i)
          if (out[i].first == k) {
            at = i;
            break;
          }
      } else {
        if (index.empty())
          for (size_t i = 0; i < out.size(); ++i) index.emplace(out[i].first, i);
        auto [it, added] = index.emplace(std::string(k), out.size());
        if (!added) at = it->second;
      }
    }
    if (at == out.size()) {
      out.emplace_back(std::string(k), DocValue());
      value(out.back().second, depth + 1, last_key_wins);
    } else {
      DocValue v;
      value(v, depth + 1, last_key_wins);
      out[at].second = std::move(v);
    }
  } while (next_member());
}

DocValue::Kind JsonPull::skip(int depth) {
  if (depth > kJsonMaxDepth) fail("nesting deeper than 256 levels");
  if (p_ == e_) fail("unexpected end of input, expected a value");
  switch (*p_) {
    case '{':
      if (begin_object()) {
        do {
          key();
          skip(depth + 1);
        } while (next_member());
      }
      return DocValue::Kind::kObject;
    case '[':
      if (begin_array()) {
        do {
          ws();
          skip(depth + 1);
        } while (next_item());
      }
      return DocValue::Kind::kArray;
    case '"':
      string();
      return DocValue::Kind::kString;
    case 't':
      if (lit("true")) return DocValue::Kind::kBool;
      break;
    case 'f':
      if (lit("false")) return DocValue::Kind::kBool;
      break;
    case 'n':
      if (lit("null")) return DocValue::Kind::kNull;
      break;
    default:
      if (*p_ == '-' || digit(*p_)) return number().kind;
  }
  fail("expected a value");
}

void JsonPull::locate(const char* at, uint32_t& line, uint32_t& column) const {
  line = 1;
  const char* line_start = b_;
  for (const char* q = b_; q < at && q < e_; ++q)
    if (*q == '\n') {
      ++line;
      line_start = q + 1;
    }
  column = static_cast<uint32_t>(at - line_start) + 1;
}

ErrorInfo JsonPull::error(const JsonSyntaxError& e, std::string_view file_name) const {
  uint32_t line, column;
  locate(e.at, line, column);
  return data_error("JSON error: ", file_name, ":", line, ":", column, ": ", e.message);
}

Result<DocValue> read_json(std::string_view json, std::string_view file_name) {
  JsonPull r(json);
  try {
    DocValue v;
    r.ws();
    r.value(v, 0, false);
    r.expect_end();
    return v;
  } catch (const JsonSyntaxError& e) {
    return r.error(e, file_name);
  }
}

}  // namespace cppnn::formats
