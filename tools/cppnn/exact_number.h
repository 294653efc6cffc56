// A number kept exactly as the data holds it: a double, or a 64-bit integer (int64/uint64 values
// beyond 2^53 included, which a double would round). Used for the WPT corpus's numbers
// (wpt_compare.h) and for the elements `cppnn run` prints (tensor_values.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace cppnn::tool {

struct ExactNumber {
  enum class Kind : uint8_t { kDouble, kInt64, kUint64 };
  Kind kind = Kind::kDouble;
  double d = 0;
  int64_t i = 0;
  uint64_t u = 0;

  static ExactNumber of_double(double v) { return {Kind::kDouble, v, 0, 0}; }
  static ExactNumber of_int64(int64_t v) { return {Kind::kInt64, 0, v, 0}; }
  static ExactNumber of_uint64(uint64_t v) { return {Kind::kUint64, 0, 0, v}; }

  // The value as a double (integers rounded to nearest).
  double as_double() const {
    if (kind == Kind::kInt64) return static_cast<double>(i);
    if (kind == Kind::kUint64) return static_cast<double>(u);
    return d;
  }
  bool is_nan() const { return kind == Kind::kDouble && std::isnan(d); }
  // Orders two numbers of one kind (the elements of one tensor).
  bool less_than(const ExactNumber& other) const {
    if (kind == Kind::kInt64) return i < other.i;
    if (kind == Kind::kUint64) return u < other.u;
    return d < other.d;
  }
  // The exact integer, or `format_double(d)` (the caller says how NaN and infinities read).
  template <class F>
  std::string to_string(F&& format_double) const {
    if (kind == Kind::kInt64) return std::to_string(i);
    if (kind == Kind::kUint64) return std::to_string(u);
    return format_double(d);
  }
};

}  // namespace cppnn::tool
