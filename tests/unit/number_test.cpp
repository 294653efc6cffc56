// MLNumber: the spec's cast algorithm for option values and scalar constants (§3.6, §6.19).
#include "cppnn/number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cppnn {
namespace {

using T = MLOperandDataType;

TEST(MLNumber, IntegersClampThenTruncate) {
  EXPECT_EQ(MLNumber(3.9).cast_to_int64(T::kInt64), 3);
  EXPECT_EQ(MLNumber(-3.9).cast_to_int64(T::kInt32), -3);
  EXPECT_EQ(MLNumber(1000).cast_to_uint64(T::kUint8), 255u);
  EXPECT_EQ(MLNumber(-1).cast_to_uint64(T::kUint64), 0u);
  EXPECT_EQ(MLNumber(1e30).cast_to_int64(T::kInt64), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(MLNumber(-1e30).cast_to_int64(T::kInt64), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(MLNumber(4294967290.0).cast_to_uint64(T::kUint32), 4294967290u);
  EXPECT_EQ(MLNumber(std::nan("")).cast_to_int64(T::kInt8), 0);
  EXPECT_EQ(MLNumber(uint64_t{18446744073709551615ull}).cast_to_uint64(T::kUint64),
            18446744073709551615ull);
  EXPECT_EQ(MLNumber(int64_t{-9223372036854775807ll - 1}).cast_to_int64(T::kInt64),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(MLNumber(200).cast_to_int64(T::kInt8), 127);
}

TEST(MLNumber, FloatsRoundToNearestAndOverflowToInfinity) {
  EXPECT_EQ(MLNumber(0.1).cast_to_double(T::kFloat32), static_cast<double>(0.1f));
  EXPECT_TRUE(std::isinf(MLNumber(1e39).cast_to_double(T::kFloat32)));
  EXPECT_TRUE(std::isinf(MLNumber(70000.0).cast_to_double(T::kFloat16)));
  EXPECT_EQ(MLNumber(65504.0).cast_to_double(T::kFloat16), 65504.0);
  EXPECT_TRUE(std::isnan(MLNumber(std::nan("")).cast_to_double(T::kFloat16)));
  EXPECT_TRUE(std::signbit(MLNumber(-0.0).cast_to_double(T::kFloat32)));
}

TEST(MLNumber, CastToBytesWritesTheElement) {
  uint8_t u8 = 0;
  MLNumber(300).cast_to_bytes(T::kUint8, &u8);
  EXPECT_EQ(u8, 255);
  uint16_t h = 0;
  MLNumber(1.0).cast_to_bytes(T::kFloat16, &h);
  EXPECT_EQ(h, 0x3c00);
  int64_t i = 0;
  MLNumber(-7.5).cast_to_bytes(T::kInt64, &i);
  EXPECT_EQ(i, -7);
}

TEST(MLNumber, CompareAsType) {
  EXPECT_LT(MLNumber::compare_as(T::kFloat32, 1.0, 2.0), 0);
  // 3.9 and 3 are equal once cast to an integer type.
  EXPECT_EQ(MLNumber::compare_as(T::kInt32, 3.9, 3), 0);
  EXPECT_GT(MLNumber::compare_as(T::kUint8, 1000, 254), 0);
}

}  // namespace
}  // namespace cppnn
