// The .npy reader and writer of `cppnn run` (tools/cppnn/npy.h), the latency statistics and
// the progress bar text.
#include "tools/cppnn/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tools/cppnn/latency_stats.h"
#include "tools/cppnn/progress.h"
#include "tools/cppnn/tensor_values.h"

namespace cppnn::tool {
namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// A .npy file as NumPy writes it: version 1.0, the dict, padding to 64 bytes, '\n'.
std::string numpy_file(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  const size_t n = header.size();
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

TEST(Npy, ReadsFloat32Version1) {
  const float values[] = {1.5f, -2.f, 3.25f, 0.f, 8.f, -1.f};
  std::string data(reinterpret_cast<const char*>(values), sizeof values);
  auto a = parse_npy(
      bytes_of(numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data)),
      "a.npy");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->dataType, MLOperandDataType::kFloat32);
  EXPECT_EQ(a->shape, (std::vector<uint32_t>{2, 3}));
  ASSERT_EQ(a->data.size(), sizeof values);
  EXPECT_EQ(std::memcmp(a->data.data(), values, sizeof values), 0);
}

TEST(Npy, ReadsVersion2ScalarsAndEveryDtype) {
  const std::pair<const char*, MLOperandDataType> types[] = {
      {"<f2", MLOperandDataType::kFloat16}, {"<i4", MLOperandDataType::kInt32},
      {"<u4", MLOperandDataType::kUint32},  {"<i8", MLOperandDataType::kInt64},
      {"<u8", MLOperandDataType::kUint64},  {"|i1", MLOperandDataType::kInt8},
      {"|u1", MLOperandDataType::kUint8},   {"<f4", MLOperandDataType::kFloat32}};
  for (const auto& [descr, type] : types) {
    const size_t size = data_type_bits(type) / 8;
    auto a = parse_npy(bytes_of(numpy_file(std::string("{'descr': '") + descr +
                                               "', 'fortran_order': False, 'shape': (), }",
                                           std::string(size, '\x01'), 2)),
                       "s.npy");
    ASSERT_TRUE(a.ok()) << descr << ": " << a.error().message;
    EXPECT_EQ(a->dataType, type) << descr;
    EXPECT_TRUE(a->shape.empty());
    EXPECT_EQ(a->data.size(), size);
  }
}

TEST(Npy, RoundTripsThroughTheWriter) {
  NpyArray a{MLOperandDataType::kInt64, {3}, {}};
  const int64_t values[] = {-1, 0, 1LL << 40};
  a.data.resize(sizeof values);
  std::memcpy(a.data.data(), values, sizeof values);
  auto bytes = format_npy(a);
  ASSERT_TRUE(bytes.ok());
  // NumPy's layout: the header (with '\n') ends on a 64-byte boundary, shape spelled (3,).
  const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  EXPECT_NE(text.find("'shape': (3,)"), std::string::npos) << text;
  EXPECT_EQ((bytes->size() - sizeof values) % 64, 0u);
  EXPECT_EQ(text[bytes->size() - sizeof values - 1], '\n');
  auto back = parse_npy(*bytes, "rt.npy");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->dataType, a.dataType);
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);
  NpyArray m{MLOperandDataType::kUint8, {2, 0, 4}, {}};
  auto mb = format_npy(m);
  ASSERT_TRUE(mb.ok());
  auto mback = parse_npy(*mb, "empty.npy");
  ASSERT_TRUE(mback.ok()) << mback.error().message;
  EXPECT_EQ(mback->shape, m.shape);
}

TEST(Npy, RejectsBadFilesWithTheFileName) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::pair<std::string, std::string> cases[] = {
      {"not a numpy file at all", "no \\x93NUMPY magic"},
      {numpy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", "12345678"),
       "unsupported dtype '>f4'"},
      {numpy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", "12345678"),
       "Fortran-order"},
      {numpy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "12345678"),
       "unsupported dtype '<c8'"},
      {numpy_file(ok_dict, "1234"), "the data holds 4 bytes"},
      {numpy_file("{'descr': '<f4', 'shape': (2,), }", "12345678"), "needs 'descr'"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,x), }", "12345678"),
       "'shape' must be a tuple"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                  "(4294967296, 4294967296, 4294967296), }",
                  ""),
       "does not fit in uint32"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                  "(4294967295, 4294967295, 4294967295), }",
                  ""),
       "overflows"},
  };
  for (const auto& [file, message] : cases) {
    auto a = parse_npy(bytes_of(file), "bad.npy");
    ASSERT_FALSE(a.ok()) << message;
    EXPECT_EQ(a.error().kind, ErrorKind::kDataError);
    EXPECT_NE(a.error().message.find("bad.npy"), std::string::npos) << a.error().message;
    EXPECT_NE(a.error().message.find(message), std::string::npos) << a.error().message;
  }
  // A truncated header length.
  std::string t = numpy_file(ok_dict, "12345678");
  t.resize(20);
  EXPECT_FALSE(parse_npy(bytes_of(t), "t.npy").ok());
}

TEST(Npy, WriterRejectsInt4AndMismatchedData) {
  EXPECT_FALSE(format_npy({MLOperandDataType::kInt4, {2}, std::vector<std::byte>(1)}).ok());
  EXPECT_FALSE(format_npy({MLOperandDataType::kFloat32, {2}, std::vector<std::byte>(4)}).ok());
  EXPECT_EQ(npy_dtype(MLOperandDataType::kUint8), "|u1");
  EXPECT_TRUE(npy_dtype(MLOperandDataType::kUint4).empty());
}

TEST(LatencyStats, NearestRankPercentiles) {
  const LatencyStats s = latency_stats({5, 1, 4, 2, 3, 10, 6, 7, 9, 8});
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.p90, 9);
  const LatencyStats one = latency_stats({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.p90, 2.5);
  EXPECT_EQ(latency_stats({}).count, 0u);
}

TEST(TensorValues, GeneratedInputsAreSeededAndInRange) {
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {64}};
  const auto a = generated_bytes(d, true, 7, 0), b = generated_bytes(d, true, 7, 0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, generated_bytes(d, true, 8, 0));
  EXPECT_NE(a, generated_bytes(d, true, 7, 1));
  const TensorSummary s = summarize(d, a);
  EXPECT_GE(s.min.as_double(), -1.0);
  EXPECT_LT(s.max.as_double(), 1.0);
  EXPECT_LT(s.min.as_double(), s.max.as_double());
  const auto z = generated_bytes({MLOperandDataType::kInt8, {3}}, false, 7, 0);
  EXPECT_EQ(z, std::vector<std::byte>(3));
  const auto u = generated_bytes({MLOperandDataType::kUint8, {100}}, true, 1, 0);
  EXPECT_LT(summarize({MLOperandDataType::kUint8, {100}}, u).max.u, 16u);
}

TEST(TensorValues, SummaryCountsNans) {
  const float v[] = {1.f, std::nanf(""), -3.f, 2.f};
  std::vector<std::byte> bytes(sizeof v);
  std::memcpy(bytes.data(), v, sizeof v);
  const TensorSummary s = summarize({MLOperandDataType::kFloat32, {4}}, bytes, 2);
  EXPECT_EQ(s.nans, 1u);
  EXPECT_DOUBLE_EQ(s.min.d, -3);
  EXPECT_DOUBLE_EQ(s.max.d, 2);
  EXPECT_DOUBLE_EQ(s.mean, 0);
  ASSERT_EQ(s.first.size(), 2u);
  EXPECT_EQ(describe({MLOperandDataType::kFloat16, {1, 3}}), "float16 [1, 3]");
}

// 64-bit integers are summarized exactly: a double would print UINT64_MAX as 2^64.
TEST(TensorValues, SummaryKeeps64BitIntegersExact) {
  const uint64_t u[] = {UINT64_MAX, 9007199254740993u, 3};
  std::vector<std::byte> bytes(sizeof u);
  std::memcpy(bytes.data(), u, sizeof u);
  const TensorSummary s = summarize({MLOperandDataType::kUint64, {3}}, bytes);
  EXPECT_EQ(format_number(s.max), "18446744073709551615");
  EXPECT_EQ(format_number(s.min), "3");
  ASSERT_EQ(s.first.size(), 3u);
  EXPECT_EQ(format_number(s.first[1]), "9007199254740993");
  const int64_t i[] = {INT64_MIN, -1};
  bytes.resize(sizeof i);
  std::memcpy(bytes.data(), i, sizeof i);
  const TensorSummary t = summarize({MLOperandDataType::kInt64, {2}}, bytes);
  EXPECT_EQ(format_number(t.min), "-9223372036854775808");
  EXPECT_EQ(format_number(t.max), "-1");
}

TEST(Progress, RendersAndStaysSilentWhenDisabled) {
  EXPECT_EQ(ProgressBar::render("x", 5, 10, "", 10), "x [=====>    ] 5/10");
  EXPECT_EQ(ProgressBar::render("x", 12, 10, "case", 4), "x [====] 10/10 case");
  ProgressBar off("quiet", 3, false);
  EXPECT_FALSE(off.enabled());
  testing::internal::CaptureStderr();
  off.update(1, "a");
  off.finish();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace cppnn::tool
