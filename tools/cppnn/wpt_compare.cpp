// WPT comparison rules and JS number conversions (see wpt_compare.h).
#include "tools/cppnn/wpt_compare.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "cppnn/float16.h"

namespace cppnn::tool::wpt {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

// x modulo 2^64 for a finite double, truncated toward zero first (JS ToBigInt64 / ToInt32 style).
uint64_t wrap64(double x) {
  if (!std::isfinite(x)) return 0;
  const double t = std::fmod(std::trunc(x), 18446744073709551616.0);  // in (-2^64, 2^64), exact
  return t < 0 ? 0 - static_cast<uint64_t>(-t) : static_cast<uint64_t>(t);
}

size_t element_bits(MLOperandDataType type) {
  return data_type_bits(type);
}

// a - b for |a - b| as a double, exact where it fits (integers of either signedness).
double integer_distance(const JsNumber& a, const JsNumber& b) {
  using K = JsNumber::Kind;
  if (a.kind == K::kDouble || b.kind == K::kDouble) return std::fabs(a.as_double() - b.as_double());
  // Both exact: map to (negative, magnitude).
  auto split = [](const JsNumber& n, bool& neg) -> uint64_t {
    if (n.kind == K::kUint64) {
      neg = false;
      return n.u;
    }
    neg = n.i < 0;
    return neg ? 0 - static_cast<uint64_t>(n.i) : static_cast<uint64_t>(n.i);
  };
  bool na = false, nb = false;
  const uint64_t ma = split(a, na), mb = split(b, nb);
  if (na == nb) return static_cast<double>(ma > mb ? ma - mb : mb - ma);
  return static_cast<double>(ma) + static_cast<double>(mb);  // opposite signs: exact to 2^53
}

}  // namespace

// ---- conversions --------------------------------------------------------------------------------

float js_fround(double x) {
  // Beyond the largest float32 plus half an ULP the result is infinite (and the C++ conversion
  // would be undefined).
  constexpr double kLimit = 0x1.ffffffp127;
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (x >= kLimit) return std::numeric_limits<float>::infinity();
  if (x <= -kLimit) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

uint16_t wpt_to_half(double value) {
  const float f = js_fround(value);
  if (std::isnan(f)) return 0x7e00;
  const auto x = std::bit_cast<uint32_t>(f);
  uint32_t bits = (x >> 16) & 0x8000;  // sign
  uint32_t m = (x >> 12) & 0x07ff;     // 10 mantissa bits plus one for rounding
  const uint32_t e = (x >> 23) & 0xff;
  if (e < 103) return static_cast<uint16_t>(bits);  // zero, or too small even for a subnormal
  if (e > 142) return static_cast<uint16_t>(bits | 0x7c00);  // overflow, infinity
  if (e < 113) {                                             // a subnormal half
    m |= 0x0800;
    bits |= (m >> (114 - e)) + ((m >> (113 - e)) & 1);
    return static_cast<uint16_t>(bits);
  }
  bits |= ((e - 112) << 10) | (m >> 1);
  bits += m & 1;  // round half up; a carry moves into the exponent, which is right
  return static_cast<uint16_t>(bits);
}

uint64_t js_typed_bits(MLOperandDataType type, const JsNumber& v) {
  switch (type) {
    case MLOperandDataType::kFloat32:
      return std::bit_cast<uint32_t>(js_fround(v.as_double()));
    case MLOperandDataType::kFloat16:
      return wpt_to_half(v.as_double());
    default:
      break;
  }
  uint64_t bits = 0;
  if (v.kind == JsNumber::Kind::kInt64)
    bits = static_cast<uint64_t>(v.i);
  else if (v.kind == JsNumber::Kind::kUint64)
    bits = v.u;
  else
    bits = wrap64(v.d);
  const size_t n = element_bits(type);
  return n == 64 ? bits : bits & ((uint64_t{1} << n) - 1);
}

// ---- metrics ------------------------------------------------------------------------------------

uint64_t float32_ulp_distance(float a, float b) {
  auto key = [](float x) -> int64_t {
    const int64_t magnitude = std::bit_cast<uint32_t>(std::fabs(x));
    return x < 0 ? -magnitude : magnitude;
  };
  const int64_t ka = key(a), kb = key(b);
  return static_cast<uint64_t>(ka > kb ? ka - kb : kb - ka);
}

uint64_t float16_ulp_distance(uint16_t a, uint16_t b) {
  if ((a & 0x7fff) == 0 && (b & 0x7fff) == 0) return 0;
  return a > b ? a - b : b - a;
}

const char* metric_name(Metric m) {
  return m == Metric::kAtol ? "ATOL" : "ULP";
}

namespace {

// The NaN and infinity rules shared by the float checks; nullopt when both values are finite
// numbers and the metric decides.
std::optional<ElementCheck> special_values(double actual, double expected) {
  if (std::isnan(expected)) return ElementCheck{std::isnan(actual), std::isnan(actual) ? 0 : kInf};
  if (std::isnan(actual)) return ElementCheck{false, kInf};
  if (std::isinf(expected) || std::isinf(actual)) {
    const bool same = actual == expected;
    return ElementCheck{same, same ? 0 : kInf};
  }
  return std::nullopt;
}

ElementCheck within(double error, const Tolerance& t) {
  return {error <= t.value, error};
}

}  // namespace

ElementCheck check_float32(float actual, const JsNumber& expected, const Tolerance& t, bool exact) {
  const double e = expected.as_double();
  const float ef = js_fround(e);
  if (auto s = special_values(actual, t.metric == Metric::kUlp ? ef : e)) return *s;
  ElementCheck c = t.metric == Metric::kUlp
                       ? within(static_cast<double>(float32_ulp_distance(actual, ef)), t)
                       : within(std::fabs(static_cast<double>(actual) - e), t);
  if (exact && std::bit_cast<uint32_t>(actual) != std::bit_cast<uint32_t>(ef)) c.pass = false;
  return c;
}

ElementCheck check_float16(uint16_t actual, const JsNumber& expected, const Tolerance& t,
                           bool exact) {
  const double e = expected.as_double();
  const uint16_t eh = wpt_to_half(e);
  const double a = half_bits_to_float(actual);
  if (auto s = special_values(a, t.metric == Metric::kUlp ? half_bits_to_float(eh) : e)) return *s;
  ElementCheck c = t.metric == Metric::kUlp
                       ? within(static_cast<double>(float16_ulp_distance(actual, eh)), t)
                       : within(std::fabs(a - e), t);
  if (exact && actual != eh) c.pass = false;
  return c;
}

ElementCheck check_integer(const JsNumber& actual, const Tolerance& t, const JsNumber& expected) {
  if (expected.kind == JsNumber::Kind::kDouble && !std::isfinite(expected.d)) return {false, kInf};
  return within(integer_distance(actual, expected), t);
}

JsNumber element_of(MLOperandDataType type, std::span<const std::byte> bytes, size_t i) {
  auto load = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
    return v;
  };
  switch (type) {
    case MLOperandDataType::kFloat32:
      return JsNumber::of_double(load(float{}));
    case MLOperandDataType::kFloat16:
      return JsNumber::of_double(half_bits_to_float(load(uint16_t{})));
    case MLOperandDataType::kInt32:
      return JsNumber::of_int64(load(int32_t{}));
    case MLOperandDataType::kUint32:
      return JsNumber::of_uint64(load(uint32_t{}));
    case MLOperandDataType::kInt64:
      return JsNumber::of_int64(load(int64_t{}));
    case MLOperandDataType::kUint64:
      return JsNumber::of_uint64(load(uint64_t{}));
    case MLOperandDataType::kInt8:
      return JsNumber::of_int64(load(int8_t{}));
    case MLOperandDataType::kUint8:
      return JsNumber::of_uint64(load(uint8_t{}));
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4: {
      const auto byte = std::to_integer<unsigned>(bytes[i / 2]);
      const unsigned nibble = (i % 2 == 0 ? byte : byte >> 4) & 0xf;
      if (type == MLOperandDataType::kUint4) return JsNumber::of_uint64(nibble);
      return JsNumber::of_int64(nibble >= 8 ? static_cast<int64_t>(nibble) - 16 : nibble);
    }
  }
  return {};
}

OutputCheck check_output(MLOperandDataType type, std::span<const std::byte> actual, size_t count,
                         std::span<const JsNumber> expected, const Tolerance& t, bool exact) {
  constexpr size_t kMaximumIndexToValidate = 1000;
  OutputCheck r;
  const bool fill = expected.size() == 1 && count != 1;
  r.checked = fill ? std::min(count, kMaximumIndexToValidate) : std::min(count, expected.size());
  for (size_t i = 0; i < r.checked; ++i) {
    const JsNumber& e = expected[fill ? 0 : i];
    ElementCheck c;
    JsNumber got;
    if (type == MLOperandDataType::kFloat32) {
      float a;
      std::memcpy(&a, actual.data() + 4 * i, 4);
      c = check_float32(a, e, t, exact);
      got = JsNumber::of_double(a);
    } else if (type == MLOperandDataType::kFloat16) {
      uint16_t a;
      std::memcpy(&a, actual.data() + 2 * i, 2);
      c = check_float16(a, e, t, exact);
      got = JsNumber::of_double(half_bits_to_float(a));
    } else {
      got = element_of(type, actual, i);
      c = check_integer(got, t, e);
    }
    r.max_error = std::max(r.max_error, c.error);
    if (c.pass) continue;
    if (r.mismatches++ == 0)
      r.first = "[" + std::to_string(i) + "] got " + got.to_string(format_double) + ", expected " +
                e.to_string(format_double) + " (error " + format_double(c.error) + ")";
  }
  return r;
}

}  // namespace cppnn::tool::wpt
