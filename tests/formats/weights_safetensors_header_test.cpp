// SafeTensors header validation (webnn-graph-format.md §7.2 "Container"): every rejection the
// reader must make, truncated files and huge offsets.
#include <gtest/gtest.h>

#include "src/formats/safetensors_header.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::safetensors_bytes;

Result<SafeTensorsHeader> parse(std::string_view header, size_t data_bytes = 0) {
  std::vector<std::byte> data(data_bytes, std::byte{7});
  auto file = safetensors_bytes(header, data);
  return parse_safetensors_header(file, "t.safetensors");
}

// The error of parsing `header` with `data_bytes` of data must contain `needle`.
void expect_rejected(std::string_view header, size_t data_bytes, std::string_view needle) {
  auto r = parse(header, data_bytes);
  ASSERT_FALSE(r.ok()) << header;
  EXPECT_EQ(r.error().kind, ErrorKind::kDataError);
  EXPECT_NE(r.error().message.find("[safetensors] `t.safetensors`: "), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

TEST(WeightsSafeTensorsHeader, ParsesTensorsMetadataAndPadding) {
  const std::string header =
      R"({"__metadata__":{"k":"v"},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
      R"("a":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}    )";
  auto r = parse(header, 16);
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_EQ(r->tensors.size(), 2u);
  EXPECT_EQ(r->metadata.at("k"), "v");
  EXPECT_EQ(r->tensors.at("a").dtype, StDtype::kBF16);
  EXPECT_EQ(r->tensors.at("b").begin, 8u);
  EXPECT_EQ(r->data_start, 8u + header.size());
}

TEST(WeightsSafeTensorsHeader, AcceptsEmptyArchiveAndZeroSizedTensors) {
  EXPECT_TRUE(parse("{}").ok());
  // Zero-sized tensors share an offset with their neighbours.
  auto r = parse(R"({"z":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},)"
                 R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
                 2);
  EXPECT_TRUE(r.ok()) << error_of(r);
}

TEST(WeightsSafeTensorsHeader, RejectsTruncatedFiles) {
  // Every strict prefix of a valid archive is rejected cleanly.
  auto data = testing::le_bytes<float>({1, 2, 3});
  auto file = safetensors_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", data);
  ASSERT_TRUE(parse_safetensors_header(file, "t").ok());
  for (size_t n = 0; n < file.size(); ++n) {
    auto r = parse_safetensors_header(std::span(file).first(n), "t");
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes";
  }
  auto r = parse_safetensors_header(std::span(file).first(5), "t");
  EXPECT_NE(error_of(r).find("shorter than the 8-byte header length"), std::string::npos);
}

TEST(WeightsSafeTensorsHeader, RejectsHeaderLengthPastEndOrOverLimit) {
  std::vector<std::byte> file(16, std::byte{0});
  file[0] = std::byte{0xff};  // N = 255 > 8 bytes left
  EXPECT_NE(error_of(parse_safetensors_header(file, "t")).find("runs past the end"),
            std::string::npos);
  for (int i = 0; i < 8; ++i) file[i] = std::byte{0xff};  // N = 2^64-1
  EXPECT_NE(error_of(parse_safetensors_header(file, "t")).find("exceeds the limit"),
            std::string::npos);
  file.assign(16, std::byte{0});
  file[0] = std::byte{0x01};
  file[4] = std::byte{0x01};  // N = 2^32 + 1
  EXPECT_FALSE(parse_safetensors_header(file, "t").ok());
}

TEST(WeightsSafeTensorsHeader, RejectsInvalidJson) {
  expect_rejected("", 0, "does not start with `{`");
  expect_rejected(" {}", 0, "does not start with `{`");
  expect_rejected("{", 0, "not valid JSON");
  expect_rejected("{\"a\":1,}", 0, "not valid JSON");
  expect_rejected("{\"\xff\":{}}", 0, "not valid JSON");  // invalid UTF-8
  expect_rejected("{}{}", 0, "not valid JSON");
}

TEST(WeightsSafeTensorsHeader, RejectsBadEntries) {
  expect_rejected(R"({"a":3})", 0, "not an object");
  expect_rejected(R"({"a":{"shape":[1],"data_offsets":[0,1]}})", 1, "missing or non-string dtype");
  expect_rejected(R"({"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}})", 1,
                  "unknown dtype `Q8`");
  expect_rejected(R"({"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}})", 4,
                  "unknown dtype `f32`");
  expect_rejected(R"({"a":{"dtype":"U8","data_offsets":[0,1]}})", 1, "missing shape");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", 1,
                  "not a non-negative integer");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", 1,
                  "not a non-negative integer");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0]}})", 1, "data_offsets");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})", 1, "data_offsets");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,-1]}})", 1, "data_offsets");
  expect_rejected(R"({"__metadata__":{"k":1}})", 0, "__metadata__.k is not a string");
  expect_rejected(R"({"__metadata__":[1]})", 0, "__metadata__ is not an object");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                  R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                  2, "names `a` twice");
}

TEST(WeightsSafeTensorsHeader, RejectsOverlapsGapsAndUncoveredBytes) {
  const char* two = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                    R"("b":{"dtype":"U8","shape":[4],"data_offsets":[%s]}})";
  auto with = [&](const char* offsets) {
    char buf[256];
    std::snprintf(buf, sizeof buf, two, offsets);
    return std::string(buf);
  };
  EXPECT_TRUE(parse(with("4,8"), 8).ok());
  expect_rejected(with("2,6"), 8, "overlap the previous tensor");
  expect_rejected(with("5,9"), 9, "leave a gap after offset 4");
  expect_rejected(with("4,8"), 9, "the tensors cover 8 bytes but the data buffer holds 9");
  expect_rejected(with("4,8"), 7, "the tensors cover 8 bytes but the data buffer holds 7");
  expect_rejected(with("8,4"), 8, "end before they begin");
  // Listed out of order in the JSON is fine: ranges are sorted first.
  EXPECT_TRUE(parse(R"({"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]},)"
                    R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
                    8)
                  .ok());
}

TEST(WeightsSafeTensorsHeader, RejectsWrongByteCountsAndOverflow) {
  expect_rejected(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4,
                  "hold 4 bytes but F32 [2] needs 8");
  expect_rejected(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
                  4, "overflows 64-bit sizes");
  expect_rejected(R"({"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,4]}})", 4,
                  "overflows 64-bit sizes");
  // Huge offsets: begin near 2^64.
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],)"
                  R"("data_offsets":[18446744073709551614,18446744073709551615]}})",
                  1, "leave a gap");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[18446744073709551615],)"
                  R"("data_offsets":[0,18446744073709551615]}})",
                  1, "the data buffer holds 1");
  expect_rejected(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551616]}})", 1,
                  "data_offsets");
}

}  // namespace
}  // namespace cppnn::formats
