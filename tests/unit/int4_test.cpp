// Packed int4/uint4 storage: two values per byte, low nibble first.
#include "cppnn/int4.h"

#include <gtest/gtest.h>

#include "cppnn/errors.h"

namespace cppnn {
namespace {

TEST(Int4, PacksLowNibbleFirstAndRoundTrips) {
  std::vector<int8_t> v{-8, 7, -1, 0, 3};
  auto packed = pack_int4(v);
  ASSERT_EQ(packed.size(), 3u);
  EXPECT_EQ(static_cast<uint8_t>(packed[0]), 0x78);  // -8 -> 0x8 low, 7 -> 0x7 high
  EXPECT_EQ(static_cast<uint8_t>(packed[1]), 0x0f);
  EXPECT_EQ(static_cast<uint8_t>(packed[2]), 0x03);  // odd count: high nibble 0
  EXPECT_EQ(unpack_int4(packed, v.size()), v);
}

TEST(Int4, Uint4RoundTrips) {
  std::vector<uint8_t> v{0, 15, 9, 1};
  EXPECT_EQ(unpack_uint4(pack_uint4(v), v.size()), v);
}

TEST(Int4, RejectsOutOfRangeAndShortBuffers) {
  std::vector<int8_t> bad{8};
  EXPECT_THROW(pack_int4(bad), TypeError);
  std::vector<uint8_t> bad_u{16};
  EXPECT_THROW(pack_uint4(bad_u), TypeError);
  std::vector<std::byte> one(1);
  EXPECT_THROW(unpack_int4(one, 3), TypeError);
  EXPECT_NO_THROW(unpack_uint4(one, 2));
}

}  // namespace
}  // namespace cppnn
