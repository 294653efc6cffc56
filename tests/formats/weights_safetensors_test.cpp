// The SafeTensors reader and writer (webnn-graph-format.md §7.2, §10 rows 32-36): bit-exact round
// trips of every data type, views into the mapping, BF16 conversion, the packed 4-bit extension,
// name normalization, atomic writes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "cppnn/int4.h"
#include "src/formats/safetensors_reader.h"
#include "src/formats/safetensors_writer.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::TempDir;
using T = MLOperandDataType;

std::vector<std::byte> pattern(size_t n, uint8_t seed) {
  std::vector<std::byte> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>(seed + i * 37 + (i >> 3));
  return b;
}

std::shared_ptr<const SafeTensorsFile> open_ok(const std::filesystem::path& p) {
  auto r = SafeTensorsFile::open(p);
  EXPECT_TRUE(r.ok()) << error_of(r);
  return r.ok() ? *r : nullptr;
}

TEST(WeightsSafeTensors, RoundTripsEveryDataTypeBitExactlyAsViews) {
  TempDir dir;
  struct Case {
    std::string name;
    MLOperandDescriptor d;
  };
  const std::vector<Case> cases = {
      {"f32", {T::kFloat32, {2, 3}}}, {"f16", {T::kFloat16, {5}}},
      {"i32", {T::kInt32, {3, 1}}},   {"u32", {T::kUint32, {4}}},
      {"i64", {T::kInt64, {2, 2}}},   {"u64", {T::kUint64, {3}}},
      {"i8", {T::kInt8, {7}}},        {"u8", {T::kUint8, {1, 1, 3}}},
      {"i4", {T::kInt4, {3, 3}}},     {"u4", {T::kUint4, {4}}},
      {"scalar", {T::kFloat32, {}}},  {"empty", {T::kInt32, {0, 4}}},
  };
  std::vector<std::vector<std::byte>> data;
  std::vector<WeightToWrite> weights;
  for (size_t i = 0; i < cases.size(); ++i) {
    data.push_back(pattern(*declared_byte_length(cases[i].d), static_cast<uint8_t>(i * 11)));
    // The writer zeroes the padding nibble of odd 4-bit counts; start from valid data.
    if (data_type_bits(cases[i].d.dataType) == 4 && *declared_element_count(cases[i].d) % 2)
      data.back().back() &= std::byte{0x0f};
  }
  for (size_t i = 0; i < cases.size(); ++i) weights.push_back({cases[i].name, cases[i].d, data[i]});
  const auto path = dir / "w.safetensors";
  ASSERT_TRUE(write_weights_safetensors(path, weights).ok());
  auto file = open_ok(path);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->header().metadata.at("rustnn.webnn.packed4"), "1");
  EXPECT_EQ(file->header().tensors.at("i4").dtype, StDtype::kU8);
  EXPECT_EQ(file->header().tensors.at("i4").shape, std::vector<uint64_t>{5});
  for (size_t i = 0; i < cases.size(); ++i) {
    auto c = file->load(cases[i].name, "c_" + cases[i].name, cases[i].d);
    ASSERT_TRUE(c.ok()) << error_of(c);
    ASSERT_EQ(c->size(), data[i].size()) << cases[i].name;
    EXPECT_TRUE(std::equal(data[i].begin(), data[i].end(), c->bytes().begin())) << cases[i].name;
    // A view: the bytes lie inside the mapped archive and are aligned for their type.
    const auto stored = file->data(file->header().tensors.at(cases[i].name));
    EXPECT_EQ(c->data(), stored.data()) << cases[i].name;
    EXPECT_TRUE(is_aligned_for(c->bytes(), cases[i].d.dataType)) << cases[i].name;
  }
}

// A backend that packs a weight releases the mapped view's pages (ConstantData::release_pages):
// they leave resident memory and read back from the file unchanged, never as zeros.
TEST(WeightsSafeTensors, ReleasedPagesReadBackFromTheFile) {
  TempDir dir;
  const MLOperandDescriptor d{T::kFloat32, {3, 70000}};  // 840 KB: whole pages inside
  const std::vector<std::byte> data = pattern(*declared_byte_length(d), 7);
  const auto path = dir / "big.safetensors";
  const std::vector<WeightToWrite> weights = {{"w", d, data}};
  ASSERT_TRUE(write_weights_safetensors(path, weights).ok());
  auto file = open_ok(path);
  ASSERT_TRUE(file);
  auto c = file->load("w", "w", d);
  ASSERT_TRUE(c.ok()) << error_of(c);
  ASSERT_TRUE(std::equal(data.begin(), data.end(), c->bytes().begin()));
  c->release_pages();
  EXPECT_TRUE(std::equal(data.begin(), data.end(), c->bytes().begin()));
  // Owned bytes are left alone.
  const ConstantData owned = ConstantData::copy_of(data);
  owned.release_pages();
  EXPECT_TRUE(std::equal(data.begin(), data.end(), owned.bytes().begin()));
}

TEST(WeightsSafeTensors, WriterIsDeterministicAndAlignsTensors) {
  TempDir dir;
  auto a = pattern(3, 1), b = pattern(16, 2), c = pattern(6, 3);
  std::vector<WeightToWrite> w = {
      {"u8", {T::kUint8, {3}}, a}, {"i64", {T::kInt64, {2}}, b}, {"f16", {T::kFloat16, {3}}, c}};
  ASSERT_TRUE(write_weights_safetensors(dir / "1.safetensors", w).ok());
  std::reverse(w.begin(), w.end());
  ASSERT_TRUE(write_weights_safetensors(dir / "2.safetensors", w).ok());
  EXPECT_EQ(testing::read_file(dir / "1.safetensors"), testing::read_file(dir / "2.safetensors"));
  auto file = open_ok(dir / "1.safetensors");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->header().data_start % 8, 0u);
  EXPECT_EQ(file->header().tensors.at("i64").begin, 0u);                 // largest elements first
  EXPECT_EQ(file->header().metadata.count("rustnn.webnn.packed4"), 0u);  // no 4-bit tensor
}

// §10 row 32: shape and dtype mismatches name the ref and the constant.
TEST(WeightsSafeTensors, Row32ShapeAndDtypeMismatch) {
  TempDir dir;
  auto f16 = pattern(8, 5);
  std::vector<WeightToWrite> w = {{"W", {T::kFloat16, {2, 2}}, f16}};
  ASSERT_TRUE(write_weights_safetensors(dir / "m.safetensors", w).ok());
  auto file = open_ok(dir / "m.safetensors");
  ASSERT_TRUE(file);
  auto shape = file->load("W", "weight", {T::kFloat16, {4}});
  EXPECT_NE(error_of(shape).find("shape mismatch for weight `W` (constant `weight`): graph [4] vs "
                                 "safetensors [2, 2]"),
            std::string::npos)
      << error_of(shape);
  auto dtype = file->load("W", "weight", {T::kFloat32, {2, 2}});
  EXPECT_NE(error_of(dtype).find("dtype mismatch for weight `W` (constant `weight`): graph "
                                 "declares float32 but safetensors has F16"),
            std::string::npos)
      << error_of(dtype);
  auto rank = file->load("W", "weight", {T::kFloat16, {2, 2, 1}});
  EXPECT_NE(error_of(rank).find("shape mismatch"), std::string::npos);
  auto missing = file->load("V", "v", {T::kFloat16, {2, 2}});
  EXPECT_NE(error_of(missing).find("no tensor for weight `V` (constant `v`)"), std::string::npos);
}

// §10 row 33: BF16 stored for a float32 declaration converts bit-exactly (bits << 16; NaNs quiet).
TEST(WeightsSafeTensors, Row33Bf16ToFloat32IsBitExact) {
  TempDir dir;
  std::vector<uint16_t> bf16;
  for (uint32_t b = 0; b < 0x10000; b += 1) bf16.push_back(static_cast<uint16_t>(b));
  std::vector<std::byte> data(bf16.size() * 2);
  std::memcpy(data.data(), bf16.data(), data.size());
  const std::string header =
      R"({"h":{"dtype":"BF16","shape":[256,256],"data_offsets":[0,131072]}})";
  testing::write_file(dir / "b.safetensors", testing::safetensors_bytes(header, data));
  auto file = open_ok(dir / "b.safetensors");
  ASSERT_TRUE(file);
  auto c = file->load("h", "H", {T::kFloat32, {256, 256}});
  ASSERT_TRUE(c.ok()) << error_of(c);
  ASSERT_EQ(c->size(), 4u * 65536);
  std::vector<uint32_t> f32(65536);
  std::memcpy(f32.data(), c->data(), c->size());
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const bool nan = (b & 0x7fff) > 0x7f80;
    const uint32_t expected = (b << 16) | (nan ? 0x00400000u : 0u);
    ASSERT_EQ(f32[b], expected) << "bf16 bits " << b;
  }
  // Spot checks in float terms: 1.0, -2.0, +inf, a quiet NaN from a signalling one.
  EXPECT_EQ(std::bit_cast<float>(f32[0x3f80]), 1.0f);
  EXPECT_EQ(std::bit_cast<float>(f32[0xc000]), -2.0f);
  EXPECT_TRUE(std::isinf(std::bit_cast<float>(f32[0x7f80])));
  EXPECT_EQ(f32[0x7f81], 0x7fc10000u);
  // BF16 serves only float32; shape must still match.
  EXPECT_NE(error_of(file->load("h", "H", {T::kFloat16, {256, 256}})).find("dtype mismatch"),
            std::string::npos);
  EXPECT_NE(error_of(file->load("h", "H", {T::kFloat32, {65536}})).find("shape mismatch"),
            std::string::npos);
}

// §10 row 34: packed 4-bit needs the marker "1", U8 storage and physical shape [ceil(n/2)].
TEST(WeightsSafeTensors, Row34Packed4BitRules) {
  TempDir dir;
  const auto packed = cppnn::pack_int4(std::vector<int8_t>{-8, 7, -1, 0, 3});  // 3 bytes
  auto write = [&](const std::string& name, const std::string& meta, const std::string& dtype,
                   const std::string& shape) {
    const std::string header = "{" + meta + R"("q":{"dtype":")" + dtype + R"(","shape":)" + shape +
                               R"(,"data_offsets":[0,3]}})";
    testing::write_file(dir / name, testing::safetensors_bytes(header, packed));
    return open_ok(dir / name);
  };
  const MLOperandDescriptor d{T::kInt4, {5}};
  const std::string marker = R"("__metadata__":{"rustnn.webnn.packed4":"1"},)";
  auto good = write("good.safetensors", marker, "U8", "[3]");
  ASSERT_TRUE(good);
  auto ok = good->load("q", "Q", d);
  ASSERT_TRUE(ok.ok()) << error_of(ok);
  EXPECT_EQ(cppnn::unpack_int4(ok->bytes(), 5), (std::vector<int8_t>{-8, 7, -1, 0, 3}));
  EXPECT_TRUE(good->load("q", "Q", {T::kUint4, {6}}).ok());  // 6 elements: also 3 bytes
  EXPECT_NE(error_of(good->load("q", "Q", {T::kInt4, {7}})).find("physical shape [4]"),
            std::string::npos);

  auto no_marker = write("none.safetensors", "", "U8", "[3]");
  EXPECT_NE(error_of(no_marker->load("q", "Q", d)).find("lacks the packed 4-bit marker"),
            std::string::npos);
  auto marker2 =
      write("two.safetensors", R"("__metadata__":{"rustnn.webnn.packed4":"2"},)", "U8", "[3]");
  EXPECT_NE(error_of(marker2->load("q", "Q", d)).find("unsupported packed 4-bit marker version"),
            std::string::npos);
  auto i8 = write("i8.safetensors", marker, "I8", "[3]");
  EXPECT_NE(error_of(i8->load("q", "Q", d)).find("must be stored as U8, not I8"),
            std::string::npos);
  // Shape [n] (one element per byte) with 5 bytes.
  const std::vector<std::byte> five(5);
  const std::string header5 =
      "{" + marker + R"("q":{"dtype":"U8","shape":[5],"data_offsets":[0,5]}})";
  testing::write_file(dir / "n.safetensors", testing::safetensors_bytes(header5, five));
  auto n = open_ok(dir / "n.safetensors");
  EXPECT_NE(error_of(n->load("q", "Q", d)).find("must have physical shape [3]"), std::string::npos);
  // Element-count overflow of the declaration.
  EXPECT_NE(error_of(good->load("q", "Q", {T::kInt4, {4294967295u, 4294967295u, 4294967295u}}))
                .find("overflows"),
            std::string::npos);
}

TEST(WeightsSafeTensors, WriterZeroesOddPaddingNibbleAndReadsBack) {
  TempDir dir;
  std::vector<std::byte> packed = {std::byte{0x21}, std::byte{0xf3}};  // 3 values + dirty pad
  std::vector<WeightToWrite> w = {{"q", {T::kUint4, {3}}, packed}};
  ASSERT_TRUE(write_weights_safetensors(dir / "q.safetensors", w).ok());
  auto file = open_ok(dir / "q.safetensors");
  auto c = file->load("q", "q", {T::kUint4, {3}});
  ASSERT_TRUE(c.ok()) << error_of(c);
  EXPECT_EQ(static_cast<uint8_t>(c->bytes()[1]), 0x03);
  EXPECT_EQ(cppnn::unpack_uint4(c->bytes(), 3), (std::vector<uint8_t>{1, 2, 3}));
}

// §10 row 35: stored `a.b` and `a::b` serve refs `a_b` and `a__b` through normalization.
TEST(WeightsSafeTensors, Row35NormalizedNames) {
  TempDir dir;
  auto x = testing::le_bytes<float>({1.5f}), y = testing::le_bytes<float>({-2.5f});
  std::vector<WeightToWrite> w = {{"a.b", {T::kFloat32, {1}}, x}, {"a::b", {T::kFloat32, {1}}, y}};
  ASSERT_TRUE(write_weights_safetensors(dir / "n.safetensors", w).ok());
  auto file = open_ok(dir / "n.safetensors");
  auto ab = file->load("a_b", "c1", {T::kFloat32, {1}});
  auto abb = file->load("a__b", "c2", {T::kFloat32, {1}});
  ASSERT_TRUE(ab.ok() && abb.ok()) << error_of(ab) << error_of(abb);
  EXPECT_EQ(ab->bytes()[0], x[0]);
  EXPECT_EQ(std::memcmp(ab->data(), x.data(), 4), 0);
  EXPECT_EQ(std::memcmp(abb->data(), y.data(), 4), 0);
  // The ref is not normalized: `a.b` exists exactly, but ref `a:b` finds nothing.
  EXPECT_TRUE(file->load("a.b", "c3", {T::kFloat32, {1}}).ok());
  EXPECT_FALSE(file->load("a:b", "c4", {T::kFloat32, {1}}).ok());
}

// §10 row 36: stored `a.b` and `a_b`, ref `a_b`: the exact name wins. Without an exact name, two
// stored names normalizing to the ref are ambiguous.
TEST(WeightsSafeTensors, Row36ExactNameWinsAndAmbiguityFails) {
  TempDir dir;
  auto x = testing::le_bytes<float>({1.0f}), y = testing::le_bytes<float>({2.0f});
  std::vector<WeightToWrite> w = {{"a.b", {T::kFloat32, {1}}, x},
                                  {"a_b", {T::kFloat32, {1}}, y},
                                  {"x.y_z", {T::kFloat32, {1}}, x},
                                  {"x_y.z", {T::kFloat32, {1}}, y}};
  ASSERT_TRUE(write_weights_safetensors(dir / "n.safetensors", w).ok());
  auto file = open_ok(dir / "n.safetensors");
  auto ab = file->load("a_b", "c", {T::kFloat32, {1}});
  ASSERT_TRUE(ab.ok()) << error_of(ab);
  EXPECT_EQ(std::memcmp(ab->data(), y.data(), 4), 0);
  auto amb = file->load("x_y_z", "c", {T::kFloat32, {1}});
  EXPECT_NE(
      error_of(amb).find("ambiguous sanitized tensor name `x_y_z` (both `x.y_z` and `x_y.z`)"),
      std::string::npos)
      << error_of(amb);
  // The ambiguity concerns only that ref: the others still resolve.
  EXPECT_TRUE(file->load("x.y_z", "c", {T::kFloat32, {1}}).ok());
}

TEST(WeightsSafeTensors, MisalignedDataIsCopied) {
  TempDir dir;
  // A header of odd length puts the F32 data at an odd file offset.
  auto data = testing::le_bytes<float>({1, 2, 3, 4});
  std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
  if ((8 + header.size()) % 4 == 0) header += ' ';
  testing::write_file(dir / "m.safetensors", testing::safetensors_bytes(header, data));
  auto file = open_ok(dir / "m.safetensors");
  auto c = file->load("w", "w", {T::kFloat32, {4}});
  ASSERT_TRUE(c.ok()) << error_of(c);
  EXPECT_NE(c->data(), file->data(file->header().tensors.at("w")).data());
  EXPECT_TRUE(is_aligned_for(c->bytes(), T::kFloat32));
  EXPECT_EQ(std::memcmp(c->data(), data.data(), 16), 0);
}

TEST(WeightsSafeTensors, ViewsKeepTheMappingAlive) {
  TempDir dir;
  auto data = testing::le_bytes<int32_t>({7, 8, 9});
  std::vector<WeightToWrite> w = {{"w", {T::kInt32, {3}}, data}};
  ASSERT_TRUE(write_weights_safetensors(dir / "k.safetensors", w).ok());
  ConstantData c;
  {
    auto file = open_ok(dir / "k.safetensors");
    c = *file->load("w", "w", {T::kInt32, {3}});
  }  // the archive object is gone; the view still owns the mapping
  std::filesystem::remove(dir / "k.safetensors");
  EXPECT_EQ(std::memcmp(c.data(), data.data(), 12), 0);
}

TEST(WeightsSafeTensors, WriterRejectsBadInputAndLeavesNothingBehind) {
  TempDir dir;
  const auto dest = dir / "out.safetensors";
  testing::write_file(dest, "previous content");
  auto four = pattern(4, 1), eight = pattern(8, 2);
  // Bytes that do not match the declaration.
  std::vector<WeightToWrite> short_bytes = {{"w", {T::kFloat32, {2}}, four}};
  EXPECT_NE(error_of(write_weights_safetensors(dest, short_bytes)).find("needs 8 bytes, got 4"),
            std::string::npos);
  // One name, two declarations.
  std::vector<WeightToWrite> clash = {{"w", {T::kFloat32, {1}}, four},
                                      {"w", {T::kInt32, {1}}, four}};
  EXPECT_NE(error_of(write_weights_safetensors(dest, clash)).find("is declared both"),
            std::string::npos);
  // One name, same declaration, different bytes.
  auto other = pattern(4, 9);
  std::vector<WeightToWrite> differ = {{"w", {T::kFloat32, {1}}, four},
                                       {"w", {T::kFloat32, {1}}, other}};
  EXPECT_NE(error_of(write_weights_safetensors(dest, differ)).find("different bytes"),
            std::string::npos);
  // A missing destination folder.
  std::vector<WeightToWrite> good = {{"w", {T::kFloat32, {2}}, eight}};
  EXPECT_FALSE(write_weights_safetensors(dir / "no" / "x.safetensors", good).ok());
  EXPECT_EQ(testing::read_file(dest), testing::to_bytes("previous content"));
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"out.safetensors"});
  // Identical duplicates are written once; success replaces the file, no temporary remains.
  std::vector<WeightToWrite> twice = {{"w", {T::kFloat32, {2}}, eight},
                                      {"w", {T::kFloat32, {2}}, eight}};
  ASSERT_TRUE(write_weights_safetensors(dest, twice).ok());
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"out.safetensors"});
  auto file = open_ok(dest);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->names(), std::vector<std::string>{"w"});
}

TEST(WeightsSafeTensors, OpenReportsMissingFilesAndFolders) {
  TempDir dir;
  EXPECT_NE(error_of(SafeTensorsFile::open(dir / "none.safetensors")).find("failed to read"),
            std::string::npos);
  EXPECT_NE(error_of(SafeTensorsFile::open(dir.path())).find("not a regular file"),
            std::string::npos);
  testing::write_file(dir / "empty.safetensors", "");
  EXPECT_NE(error_of(SafeTensorsFile::open(dir / "empty.safetensors")).find("shorter than"),
            std::string::npos);
}

}  // namespace
}  // namespace cppnn::formats
