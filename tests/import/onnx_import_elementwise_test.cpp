// The ONNX importer's elementwise and activation handlers on cases ONNX's backend test data
// (tests/onnx, ONNX 1.12) does not reach: Gelu and Mish (newer opsets), Shrink on integers,
// BitShift by known amounts, Clip with min > max, float Mod with fmod=0, legacy (opset < 7)
// broadcasting, integer Pow with a float exponent and IsInf's detect flags. Each model runs on
// the reference backend and, where compiled in, on ONNX Runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

TEST(OnnxImportElementwise, GeluBothApproximationsAndMish) {
  const std::vector<float> x{-3.0f, -1.0f, -0.25f, 0.0f, 0.5f, 2.0f, 8.0f};
  for (const std::string approximate : {"none", "tanh"}) {
    OnnxModelBuilder m(20);
    m.input("x", kFloat, {7});
    attr_string(m.node("Gelu", {"x"}, {"y"}), "approximate", approximate);
    m.output("y");
    std::vector<double> want;
    for (float v : x) {
      const double d = v;
      want.push_back(approximate == "none" ? 0.5 * d * (1 + std::erf(d / std::numbers::sqrt2))
                                           : 0.5 * d *
                                                 (1 + std::tanh(std::sqrt(2 / std::numbers::pi) *
                                                                (d + 0.044715 * d * d * d))));
    }
    for (const std::string& b : import_backends())
      expect_near_all(run_y_floats(m, b, {{"x", to_bytes(x)}}), want, approximate + " " + b, 1e-6,
                      1e-5);
  }
  OnnxModelBuilder m(18);
  m.input("x", kFloat, {7});
  m.node("Mish", {"x"}, {"y"});
  m.output("y");
  std::vector<double> want;
  for (float v : x) want.push_back(v * std::tanh(std::log1p(std::exp(double{v}))));
  for (const std::string& b : import_backends())
    expect_near_all(run_y_floats(m, b, {{"x", to_bytes(x)}}), want, "mish " + b, 1e-6, 1e-5);
}

// Integer Shrink compares against the real thresholds +-lambd.
TEST(OnnxImportElementwise, ShrinkOnIntegers) {
  OnnxModelBuilder m(13);
  m.input("x", kInt32, {7});
  auto& n = m.node("Shrink", {"x"}, {"y"});
  attr_float(n, "lambd", 1.5f);
  attr_float(n, "bias", 1.0f);
  m.output("y");
  const std::vector<int32_t> x{-3, -2, -1, 0, 1, 2, 3};
  std::vector<int32_t> want;
  for (int32_t v : x) want.push_back(v < -1.5 ? v + 1 : v > 1.5 ? v - 1 : 0);
  for (const std::string& b : import_backends())
    EXPECT_EQ(as<int32_t>(run_y_bytes(m, b, {{"x", to_bytes(x)}})), want) << b;

  OnnxModelBuilder fractional(13);
  fractional.input("x", kInt32, {7});
  attr_float(fractional.node("Shrink", {"x"}, {"y"}), "bias", 0.5f);
  fractional.output("y");
  EXPECT_THROW(run_y_bytes(fractional, "reference", {{"x", to_bytes(x)}}), NotSupportedError);
}

// Known shift amounts, including one of the full bit width (result 0).
TEST(OnnxImportElementwise, BitShiftByKnownAmounts) {
  const std::vector<uint8_t> x{1, 255, 16, 3, 200};
  const std::vector<uint8_t> s{1, 1, 8, 7, 0};
  for (const std::string direction : {"LEFT", "RIGHT"}) {
    OnnxModelBuilder m(11);
    m.input("x", kUint8, {5});
    initializer(m, "s", kUint8, s, {5});
    attr_string(m.node("BitShift", {"x", "s"}, {"y"}), "direction", direction);
    m.output("y");
    std::vector<uint8_t> want;
    for (size_t i = 0; i < x.size(); ++i)
      want.push_back(s[i] >= 8             ? 0
                     : direction == "LEFT" ? static_cast<uint8_t>(x[i] << s[i])
                                           : static_cast<uint8_t>(x[i] >> s[i]));
    for (const std::string& b : import_backends())
      EXPECT_EQ(as<uint8_t>(run_y_bytes(m, b, {{"x", to_bytes(x)}})), want)
          << direction << " " << b;
  }
}

// ONNX Clip gives max where min > max (WebNN clamp would throw); int64 bounds stay exact.
TEST(OnnxImportElementwise, ClipWithCrossedAndIntegerBounds) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {3});
  m.initializer_f32("lo", {1.0f}, {});
  m.initializer_f32("hi", {0.0f}, {});
  m.node("Clip", {"x", "lo", "hi"}, {"y"});
  m.output("y");
  const std::vector<float> x{-2.0f, 0.5f, 2.0f};
  for (const std::string& b : import_backends())
    EXPECT_EQ(as<float>(run_y_bytes(m, b, {{"x", to_bytes(x)}})), (std::vector<float>(3, 0.0f)))
        << b;

  OnnxModelBuilder ints(13);
  ints.input("x", kInt64, {3});
  ints.initializer_i64("hi", {(int64_t{1} << 53) + 1}, {});
  ints.node("Clip", {"x", "", "hi"}, {"y"});
  ints.output("y");
  const std::vector<int64_t> xi{INT64_MIN, 7, INT64_MAX};
  const std::vector<int64_t> want{INT64_MIN, 7, (int64_t{1} << 53) + 1};
  for (const std::string& b : import_backends())
    EXPECT_EQ(as<int64_t>(run_y_bytes(ints, b, {{"x", to_bytes(xi)}})), want) << b;
}

// Float Mod with fmod=0 takes the divisor's sign (numpy's mod); fmod=1 the dividend's.
TEST(OnnxImportElementwise, FloatModBothSignRules) {
  const std::vector<float> a{-4.5f, 4.5f, 5.0f, -5.0f, 7.25f};
  const std::vector<float> d{2.0f, -2.0f, 3.0f, 3.0f, -0.5f};
  for (int fmod : {0, 1}) {
    OnnxModelBuilder m(13);
    m.input("a", kFloat, {5});
    m.input("d", kFloat, {5});
    OnnxModelBuilder::attr_int(m.node("Mod", {"a", "d"}, {"y"}), "fmod", fmod);
    m.output("y");
    std::vector<double> want;
    for (size_t i = 0; i < a.size(); ++i) {
      const double q = double{a[i]} / d[i];
      want.push_back(a[i] - (fmod ? std::trunc(q) : std::floor(q)) * d[i]);
    }
    for (const std::string& b : import_backends())
      expect_near_all(run_y_floats(m, b, {{"a", to_bytes(a)}, {"d", to_bytes(d)}}), want,
                      "fmod=" + std::to_string(fmod) + " " + b, 1e-6, 1e-5);
  }
}

// Opset 6 Add with broadcast=1, axis=1: b [3] lines up with dimension 1 of a [2,3,2].
TEST(OnnxImportElementwise, LegacyBroadcastWithAxis) {
  OnnxModelBuilder m(6);
  m.input("a", kFloat, {2, 3, 2});
  m.input("b", kFloat, {3});
  auto& n = m.node("Add", {"a", "b"}, {"y"});
  OnnxModelBuilder::attr_int(n, "broadcast", 1);
  OnnxModelBuilder::attr_int(n, "axis", 1);
  m.output("y");
  std::vector<float> a(12), want(12);
  const std::vector<float> b{100, 200, 300};
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i);
    want[i] = a[i] + b[(i / 2) % 3];
  }
  for (const std::string& be : import_backends())
    EXPECT_EQ(as<float>(run_y_bytes(m, be, {{"a", to_bytes(a)}, {"b", to_bytes(b)}})), want) << be;
}

// An int32 base with a float exponent: computed in float, truncated to int32.
TEST(OnnxImportElementwise, IntegerPowWithFloatExponent) {
  OnnxModelBuilder m(15);
  m.input("x", kInt32, {4});
  m.input("e", kFloat, {4});
  m.node("Pow", {"x", "e"}, {"y"});
  m.output("y");
  const std::vector<int32_t> x{2, 3, -2, 10};
  const std::vector<float> e{2.0f, 0.5f, 3.0f, -1.0f};
  std::vector<int32_t> want;
  for (size_t i = 0; i < x.size(); ++i)
    want.push_back(
        static_cast<int32_t>(std::pow(static_cast<double>(x[i]), static_cast<double>(e[i]))));
  for (const std::string& b : import_backends())
    EXPECT_EQ(as<int32_t>(run_y_bytes(m, b, {{"x", to_bytes(x)}, {"e", to_bytes(e)}})), want) << b;
}

TEST(OnnxImportElementwise, IsInfDetectFlags) {
  const std::vector<float> x{-INFINITY, -1.0f, 0.0f, INFINITY, NAN};
  for (int pos : {0, 1}) {
    for (int neg : {0, 1}) {
      OnnxModelBuilder m(10);
      m.input("x", kFloat, {5});
      auto& n = m.node("IsInf", {"x"}, {"y"});
      OnnxModelBuilder::attr_int(n, "detect_positive", pos);
      OnnxModelBuilder::attr_int(n, "detect_negative", neg);
      m.output("y");
      std::vector<uint8_t> want;
      for (float v : x) want.push_back(std::isinf(v) && (v > 0 ? pos : neg) ? 1 : 0);
      for (const std::string& b : import_backends())
        EXPECT_EQ(as<uint8_t>(run_y_bytes(m, b, {{"x", to_bytes(x)}})), want)
            << "pos=" << pos << " neg=" << neg << " " << b;
    }
  }
}

// Float-only WebNN ops on an integer input are refused with the reason, not computed wrongly.
TEST(OnnxImportElementwise, FloatOnlyOpsRefuseIntegers) {
  OnnxModelBuilder m(13);
  m.input("x", kInt32, {2});
  m.node("Erf", {"x"}, {"y"});
  m.output("y");
  try {
    run_y_bytes(m, "reference", {{"x", to_bytes<int32_t>({0, 1})}});
    FAIL() << "no error";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("Erf on int32 (WebNN erf takes float32 or float16 only)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cppnn
