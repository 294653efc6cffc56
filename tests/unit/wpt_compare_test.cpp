// The WPT conformance comparison rules of `cppnn wpt --suite conformance` (shared/wpt/README.md
// §4): WPT's toHalf, the ULP and ATOL metrics, NaN/infinity handling and exact integers.
#include "tools/cppnn/wpt_compare.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace cppnn::tool::wpt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

JsNumber num(double d) {
  return JsNumber::of_double(d);
}

TEST(WptCompare, ToHalfExactValues) {
  EXPECT_EQ(wpt_to_half(1.0), 0x3c00);
  EXPECT_EQ(wpt_to_half(-2.0), 0xc000);
  EXPECT_EQ(wpt_to_half(65504.0), 0x7bff);
  EXPECT_EQ(wpt_to_half(0x1p-14), 0x0400);  // smallest normal
  EXPECT_EQ(wpt_to_half(0x1p-24), 0x0001);  // smallest subnormal
  EXPECT_EQ(wpt_to_half(-0.0), 0x8000);
  EXPECT_EQ(wpt_to_half(0.0), 0x0000);
}

TEST(WptCompare, ToHalfRoundsHalfUpInMagnitude) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties-to-even gives 0x3c00, WPT 0x3c01.
  EXPECT_EQ(wpt_to_half(1.0 + 0x1p-11), 0x3c01);
  EXPECT_EQ(wpt_to_half(-(1.0 + 0x1p-11)), 0xbc01);
  EXPECT_EQ(wpt_to_half(1.0 + 0x1p-12), 0x3c00);  // below half: truncated
  // 65520 rounds up into the exponent: infinity.
  EXPECT_EQ(wpt_to_half(65520.0), 0x7c00);
  // The float32 rounding comes first: 1 + 2^-11 - 2^-40 is 1 + 2^-11 as a float32.
  EXPECT_EQ(wpt_to_half(1.0 + 0x1p-11 - 0x1p-40), 0x3c01);
}

TEST(WptCompare, ToHalfSubnormalsOverflowAndNaN) {
  // Float32 exponents below 103 (|x| < 2^-24) flush to signed zero, even 1.5 * 2^-25.
  EXPECT_EQ(wpt_to_half(0x1.8p-25), 0x0000);
  EXPECT_EQ(wpt_to_half(-0x1.8p-25), 0x8000);
  // Subnormal halfway case rounds up: 1.5 * 2^-24 -> 2 * 2^-24.
  EXPECT_EQ(wpt_to_half(0x1.8p-24), 0x0002);
  EXPECT_EQ(wpt_to_half(1e10), 0x7c00);
  EXPECT_EQ(wpt_to_half(-kInf), 0xfc00);
  EXPECT_EQ(wpt_to_half(kNaN), 0x7e00);
}

TEST(WptCompare, JsTypedArrayConversions) {
  using T = MLOperandDataType;
  EXPECT_EQ(js_typed_bits(T::kFloat32, num(1e39)), 0x7f800000u);
  EXPECT_EQ(js_typed_bits(T::kFloat32, num(-1e39)), 0xff800000u);
  EXPECT_EQ(js_typed_bits(T::kFloat32, num(1.0)), 0x3f800000u);
  EXPECT_EQ(js_typed_bits(T::kInt8, num(200)), 0xc8u);
  EXPECT_EQ(js_typed_bits(T::kInt8, num(-1.9)), 0xffu);  // truncated toward zero, wrapped
  EXPECT_EQ(js_typed_bits(T::kInt32, num(-1)), 0xffffffffu);
  EXPECT_EQ(js_typed_bits(T::kUint32, num(4294967297.0)), 1u);
  EXPECT_EQ(js_typed_bits(T::kInt32, num(kNaN)), 0u);
  EXPECT_EQ(js_typed_bits(T::kInt64, JsNumber::of_int64(std::numeric_limits<int64_t>::min())),
            0x8000000000000000u);
  EXPECT_EQ(js_typed_bits(T::kUint64, JsNumber::of_uint64(18446744073709551615u)),
            18446744073709551615u);
  EXPECT_EQ(js_typed_bits(T::kInt4, JsNumber::of_int64(-1)), 0xfu);
  EXPECT_EQ(js_typed_bits(T::kUint4, JsNumber::of_int64(15)), 0xfu);
}

TEST(WptCompare, Float32UlpDistance) {
  EXPECT_EQ(float32_ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(float32_ulp_distance(-0.0f, 0.0f), 0u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(float32_ulp_distance(tiny, -tiny), 2u);  // across zero the distances add up
  EXPECT_EQ(float32_ulp_distance(-1.0f, std::nextafter(-1.0f, -2.0f)), 1u);
}

TEST(WptCompare, Float16UlpDistance) {
  EXPECT_EQ(float16_ulp_distance(0x8000, 0x0000), 0u);
  EXPECT_EQ(float16_ulp_distance(0x3c00, 0x3c01), 1u);
  EXPECT_EQ(float16_ulp_distance(0x8001, 0x0001), 0x8000u);  // raw patterns, sign bit included
}

TEST(WptCompare, Float32Ulp) {
  const Tolerance ulp1{Metric::kUlp, 1}, ulp0{Metric::kUlp, 0};
  const float next = std::nextafter(1.0f, 2.0f);
  EXPECT_TRUE(check_float32(next, num(1.0), ulp1, false).pass);
  EXPECT_FALSE(check_float32(next, num(1.0), ulp0, false).pass);
  EXPECT_EQ(check_float32(next, num(1.0), ulp0, false).error, 1);
  // The expected double is rounded to float32 first.
  EXPECT_TRUE(check_float32(0.1f, num(0.1), ulp0, false).pass);
}

TEST(WptCompare, NaNAndInfinity) {
  const Tolerance ulp{Metric::kUlp, 100}, atol{Metric::kAtol, 1};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(check_float32(-nan, num(kNaN), ulp, true).pass);  // any NaN
  EXPECT_FALSE(check_float32(1.0f, num(kNaN), ulp, false).pass);
  EXPECT_FALSE(check_float32(nan, num(1.0), atol, false).pass);
  EXPECT_TRUE(std::isinf(check_float32(nan, num(1.0), ulp, false).error));
  EXPECT_TRUE(check_float32(inf, num(kInf), ulp, false).pass);
  EXPECT_TRUE(check_float32(-inf, num(-kInf), atol, false).pass);
  // Infinity needs an exact match, not a ULP neighbour.
  EXPECT_FALSE(check_float32(std::numeric_limits<float>::max(), num(kInf), ulp, false).pass);
  EXPECT_FALSE(check_float32(inf, num(-kInf), ulp, false).pass);
  EXPECT_TRUE(check_float16(0x7e01, num(kNaN), ulp, false).pass);
  EXPECT_FALSE(check_float16(0x7bff, num(kInf), ulp, false).pass);
  EXPECT_TRUE(check_float16(0xfc00, num(-kInf), ulp, false).pass);
}

TEST(WptCompare, Float16Ulp) {
  const Tolerance ulp1{Metric::kUlp, 1};
  EXPECT_TRUE(check_float16(0x3c01, num(1.0), ulp1, false).pass);
  EXPECT_FALSE(check_float16(0x3c02, num(1.0), ulp1, false).pass);
  // Expected values go through WPT's toHalf: 1 + 2^-11 is 0x3c01.
  EXPECT_TRUE(check_float16(0x3c01, num(1.0 + 0x1p-11), {Metric::kUlp, 0}, false).pass);
  // A sign difference is ~32768 ULP, except between zeros.
  EXPECT_FALSE(check_float16(0x8001, num(0x1p-24), {Metric::kUlp, 100}, false).pass);
  EXPECT_TRUE(check_float16(0x8000, num(0.0), {Metric::kUlp, 0}, false).pass);
}

TEST(WptCompare, Atol) {
  const Tolerance atol{Metric::kAtol, 1.0 / 1024};
  EXPECT_TRUE(check_float32(1.0f, num(1.0 + 1.0 / 2048), atol, false).pass);
  EXPECT_FALSE(check_float32(1.0f, num(1.0 + 1.0 / 512), atol, false).pass);
  // float16 results are decoded and compared with the expected double.
  const Tolerance h{Metric::kAtol, 1.0 / 512};
  EXPECT_TRUE(check_float16(0x3c00, num(1.001), h, false).pass);
  EXPECT_NEAR(check_float16(0x3c00, num(1.001), h, false).error, 0.001, 1e-12);
  EXPECT_FALSE(check_float16(0x3c00, num(1.01), h, false).pass);
}

TEST(WptCompare, ExactCompareChecksTheSignOfZero) {
  const Tolerance ulp0{Metric::kUlp, 0};
  EXPECT_TRUE(check_float32(-0.0f, num(0.0), ulp0, false).pass);
  EXPECT_FALSE(check_float32(-0.0f, num(0.0), ulp0, true).pass);
  EXPECT_TRUE(check_float32(-0.0f, num(-0.0), ulp0, true).pass);
  EXPECT_FALSE(check_float16(0x8000, num(0.0), ulp0, true).pass);
  EXPECT_FALSE(check_float32(std::nextafter(1.0f, 2.0f), num(1.0), {Metric::kUlp, 5}, true).pass);
}

TEST(WptCompare, IntegersAreExact) {
  const Tolerance zero{Metric::kUlp, 0};
  const int64_t min = std::numeric_limits<int64_t>::min();
  const uint64_t umax = std::numeric_limits<uint64_t>::max();
  EXPECT_TRUE(check_integer(JsNumber::of_int64(min), zero, JsNumber::of_int64(min)).pass);
  EXPECT_FALSE(check_integer(JsNumber::of_int64(min + 1), zero, JsNumber::of_int64(min)).pass);
  EXPECT_EQ(check_integer(JsNumber::of_uint64(umax), zero, JsNumber::of_uint64(umax - 1)).error, 1);
  EXPECT_EQ(check_integer(JsNumber::of_int64(-1), zero, JsNumber::of_uint64(1)).error, 2);
  EXPECT_TRUE(check_integer(JsNumber::of_int64(3), zero, num(3.0)).pass);
  EXPECT_TRUE(check_integer(JsNumber::of_int64(3), {Metric::kUlp, 1}, JsNumber::of_int64(4)).pass);
  EXPECT_FALSE(check_integer(JsNumber::of_int64(0), zero, num(kNaN)).pass);
}

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(WptCompare, OutputChecksEveryElementAndReportsTheFirstMismatch) {
  const std::vector<JsNumber> expected{num(1), num(2), num(3)};
  const OutputCheck ok = check_output(MLOperandDataType::kFloat32, bytes_of({1, 2, 3}), 3, expected,
                                      {Metric::kUlp, 0}, false);
  EXPECT_EQ(ok.checked, 3u);
  EXPECT_EQ(ok.mismatches, 0u);
  const OutputCheck bad = check_output(MLOperandDataType::kFloat32, bytes_of({1, 5, 4}), 3,
                                       expected, {Metric::kAtol, 0.5}, false);
  EXPECT_EQ(bad.mismatches, 2u);
  EXPECT_EQ(bad.max_error, 3);
  EXPECT_EQ(bad.first, "[1] got 5, expected 2 (error 3)");
}

TEST(WptCompare, ScalarExpectedDataChecksTheFirst1000Elements) {
  std::vector<float> v(2000, 7.0f);
  v[1500] = 0;  // beyond kMaximumIndexToValidate
  const OutputCheck r = check_output(MLOperandDataType::kFloat32, bytes_of(v), v.size(),
                                     std::vector<JsNumber>{num(7)}, {Metric::kUlp, 0}, false);
  EXPECT_EQ(r.checked, 1000u);
  EXPECT_EQ(r.mismatches, 0u);
}

TEST(WptCompare, PackedInt4Outputs) {
  const std::vector<std::byte> packed{std::byte{0xf7}, std::byte{0x08}};
  EXPECT_EQ(element_of(MLOperandDataType::kInt4, packed, 0).i, 7);
  EXPECT_EQ(element_of(MLOperandDataType::kInt4, packed, 1).i, -1);
  EXPECT_EQ(element_of(MLOperandDataType::kInt4, packed, 2).i, -8);
  EXPECT_EQ(element_of(MLOperandDataType::kUint4, packed, 1).u, 15u);
  const OutputCheck r = check_output(
      MLOperandDataType::kInt4, packed, 3,
      std::vector<JsNumber>{JsNumber::of_int64(7), JsNumber::of_int64(-1), JsNumber::of_int64(-8)},
      {Metric::kUlp, 0}, false);
  EXPECT_EQ(r.mismatches, 0u);
}

}  // namespace
}  // namespace cppnn::tool::wpt
