// float16 and bfloat16 conversions: round to nearest even, NaN and infinity kept.
#include "cppnn/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace cppnn {
namespace {

TEST(Float16, ExactValuesRoundTrip) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f, -0x1p-24f, 1025.0f}) {
    EXPECT_EQ(half_bits_to_float(float_to_half_bits(v)), v) << v;
  }
}

TEST(Float16, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    auto h = static_cast<uint16_t>(b);
    float f = half_bits_to_float(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(f))));
      continue;
    }
    EXPECT_EQ(float_to_half_bits(f), h) << std::hex << b;
    EXPECT_EQ(double_to_half_bits(f), h) << std::hex << b;
  }
}

TEST(Float16, RoundsHalfToEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3c00);
  // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even).
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  // Subnormal tie: 2^-25 is halfway between 0 and the smallest subnormal -> 0.
  EXPECT_EQ(float_to_half_bits(0x1p-25f), 0x0000);
  EXPECT_EQ(float_to_half_bits(3 * 0x1p-25f), 0x0002);
}

TEST(Float16, OverflowAndSpecials) {
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_half_bits(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(std::nanf("")))));
  EXPECT_EQ(double_to_half_bits(65520.0), 0x7c00);
  EXPECT_EQ(double_to_half_bits(-0.0), 0x8000);
}

TEST(Float16, DoubleConversionRoundsOnce) {
  // Just above the tie between 1 and 1+2^-10: must round up, although rounding to float first
  // would land exactly on the tie and round down.
  double v = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(double_to_half_bits(v), 0x3c01);
}

TEST(BFloat16, RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_bits_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_TRUE(std::isnan(bfloat16_bits_to_float(float_to_bfloat16_bits(std::nanf("")))));
  EXPECT_EQ(float_to_bfloat16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
}

}  // namespace
}  // namespace cppnn
