// The .webnn text cursor (webnn-graph-format.md §3.1): positions, uints, numbers, strings.
#include "src/formats/text_cursor.h"

namespace cppnn::formats::text {

void Cursor::locate(const char* at, uint32_t& line, uint32_t& column) const {
  line = 1;
  const char* ls = begin_;
  for (const char* q = begin_; q < at && q < end_; ++q)
    if (*q == '\n') {
      ++line;
      ls = q + 1;
    }
  column = static_cast<uint32_t>(at - ls) + 1;
}

void Cursor::fail_expected(std::string_view what) const {
  std::string found;
  if (p_ == end_) {
    found = "end of input";
  } else if (has_class(*p_, kIdentRest) || *p_ == '$') {
    const char* q = p_ + 1;
    while (q < end_ && has_class(*q, kIdentRest) && q - p_ < 40) ++q;
    found = "'" + std::string(p_, q) + "'";
  } else if (static_cast<unsigned char>(*p_) < 0x20 || static_cast<unsigned char>(*p_) >= 0x7f) {
    found = "byte 0x";
    static constexpr char kHex[] = "0123456789abcdef";
    found += kHex[static_cast<unsigned char>(*p_) >> 4];
    found += kHex[static_cast<unsigned char>(*p_) & 15];
  } else {
    found = "'" + std::string(1, *p_) + "'";
  }
  fail("expected " + std::string(what) + ", found " + found);
}

uint32_t Cursor::expect_uint(std::string_view what) {
  skip_ws();
  if (p_ == end_ || !has_class(*p_, kDigit)) fail_expected(what);
  const char* s = p_;
  uint64_t v = 0;
  while (p_ < end_ && has_class(*p_, kDigit)) {
    v = v * 10 + static_cast<uint64_t>(*p_ - '0');
    if (v > UINT32_MAX) {
      while (p_ < end_ && has_class(*p_, kDigit)) ++p_;
      fail(s, "bad int: " + std::string(s, p_) + " does not fit in 32 bits (" + std::string(what) +
                  ")");
    }
    ++p_;
  }
  return static_cast<uint32_t>(v);
}

std::string_view Cursor::number(bool& is_integer) {
  const char* s = p_;
  is_integer = true;
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ == end_ || !has_class(*p_, kDigit)) fail_expected("a digit");
  while (p_ < end_ && has_class(*p_, kDigit)) ++p_;
  if (p_ + 1 < end_ && *p_ == '.' && has_class(p_[1], kDigit)) {
    is_integer = false;
    p_ += 2;
    while (p_ < end_ && has_class(*p_, kDigit)) ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    const char* q = p_ + 1;
    if (q < end_ && (*q == '+' || *q == '-')) ++q;
    if (q < end_ && has_class(*q, kDigit)) {
      is_integer = false;
      p_ = q;
      while (p_ < end_ && has_class(*p_, kDigit)) ++p_;
    }
  }
  return {s, static_cast<size_t>(p_ - s)};
}

void Cursor::string(std::string& out) {
  const char* open = p_;
  ++p_;  // the opening quote
  const char* run = p_;
  while (true) {
    if (p_ == end_) fail(open, "unterminated string");
    const char ch = *p_;
    if (ch == '"') break;
    if (ch == '\\' && p_ + 1 < end_ && (p_[1] == '"' || p_[1] == '\\')) {
      out.append(run, p_);
      out.push_back(p_[1]);
      p_ += 2;
      run = p_;
      continue;
    }
    if (ch == '\n') {
      ++line_;
      line_start_ = p_ + 1;
    }
    ++p_;
  }
  out.append(run, p_);
  ++p_;  // the closing quote
}

}  // namespace cppnn::formats::text
