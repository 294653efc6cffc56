// Number tokens and the canonical number format (webnn-graph-format.md §3.3, §5.2).
#include "src/formats/text_number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace cppnn::formats {

Result<DocValue> parse_number_token(std::string_view token, bool is_integer, bool allow_uint) {
  const char* b = token.data();
  const char* e = b + token.size();
  if (is_integer) {
    int64_t i = 0;
    auto r = std::from_chars(b, e, i);
    if (r.ec == std::errc() && r.ptr == e) return DocValue::integer(i);
    if (allow_uint && token[0] != '-') {
      uint64_t u = 0;
      auto ru = std::from_chars(b, e, u);
      if (ru.ec == std::errc() && ru.ptr == e) return DocValue::unsigned_integer(u);
    }
  }
  double d = 0;
  auto r = std::from_chars(b, e, d);
  if (r.ec == std::errc::result_out_of_range) {
    // Overflow (non-finite) or underflow (rounds to zero): strtod tells which.
    const std::string copy(token);
    d = std::strtod(copy.c_str(), nullptr);
  } else if (r.ec != std::errc() || r.ptr != e) {
    return data_error("bad number: ", token);
  }
  if (!std::isfinite(d)) return data_error("non-finite number: ", token);
  return DocValue::floating(d);
}

void append_float(std::string& out, double v) {
  if (v == 0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  // buf holds [-]d[.ddd]e[+-]XX: split into sign, digits and decimal exponent.
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  const size_t epos = s.find('e');
  std::string digits;
  for (char ch : s.substr(0, epos))
    if (ch != '.') digits += ch;
  int exp = 0;
  std::string_view es = s.substr(epos + 1);
  if (es[0] == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  if (neg) out += '-';
  const double a = std::fabs(v);
  if (a >= 1e-5 && a < 1e16) {
    const int n = static_cast<int>(digits.size());
    if (exp >= 0) {
      if (n <= exp + 1) {
        out += digits;
        out.append(static_cast<size_t>(exp + 1 - n), '0');
        out += ".0";
      } else {
        out.append(digits, 0, static_cast<size_t>(exp + 1));
        out += '.';
        out.append(digits, static_cast<size_t>(exp + 1));
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out += digits;
    }
  } else {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += std::to_string(exp);
  }
}

}  // namespace cppnn::formats
