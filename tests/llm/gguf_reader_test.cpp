// The GGUF reader (src/import/gguf/gguf_file.h) on well-formed files: metadata of every value
// type read back, the typed getters' coercions and errors, tensor infos, alignment, version 2,
// and files opened from disk.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "src/import/gguf/gguf_file.h"
#include "tests/llm/gguf_test_util.h"
#include "tests/llm/gguf_writer.h"
#include "tests/temp_dir.h"

namespace cppnn::gguf {
namespace {

using testing::GgufWriter;
using testing::GgufWriteValue;
using testing::parse_copy;
using testing::parse_ok;
using V = GgufWriteValue;
namespace vt = testing::value_type;

// One key of every scalar type, arrays of every type, nested arrays.
GgufWriter every_type_writer(uint32_t version = 3) {
  GgufWriter w(version);
  w.add("u8", V::u8(250))
      .add("i8", V::i8(-100))
      .add("u16", V::u16(65000))
      .add("i16", V::i16(-30000))
      .add("u32", V::u32(4000000000u))
      .add("i32", V::i32(-2000000000))
      .add("f32", V::f32(0.1f))
      .add("bool_t", V::boolean(true))
      .add("bool_f", V::boolean(false))
      .add("str", V::string("héllo"))
      .add("empty_str", V::string(""))
      .add("u64", V::u64(std::numeric_limits<uint64_t>::max()))
      .add("i64", V::i64(std::numeric_limits<int64_t>::min()))
      .add("f64", V::f64(1e300))
      .add("arr_u8", V::array(vt::kUint8, {V::u8(1), V::u8(255)}))
      .add("arr_i8", V::array(vt::kInt8, {V::i8(-128), V::i8(127)}))
      .add("arr_u16", V::array(vt::kUint16, {V::u16(65535)}))
      .add("arr_i16", V::array(vt::kInt16, {V::i16(-1), V::i16(2)}))
      .add("arr_u32", V::array(vt::kUint32, {V::u32(7), V::u32(8), V::u32(9)}))
      .add("arr_i32", V::int32s({3, -3, 2147483647}))
      .add("arr_f32", V::float32s({0.5f, -0.25f}))
      .add("arr_bool", V::array(vt::kBool, {V::boolean(true), V::boolean(false)}))
      .add("arr_str", V::strings({"a", "", "ccc"}))
      .add("arr_u64", V::array(vt::kUint64, {V::u64(1ull << 63)}))
      .add("arr_i64", V::array(vt::kInt64, {V::i64(-5)}))
      .add("arr_f64", V::array(vt::kFloat64, {V::f64(2.5)}))
      .add("arr_empty", V::array(vt::kInt32, {}))
      .add("arr_nested", V::array(vt::kArray, {V::int32s({1, 2}), V::int32s({}), V::int32s({3})}))
      .add("arr_nested_str", V::array(vt::kArray, {V::strings({"x", "y"})}));
  return w;
}

TEST(GgufReader, MetadataOfEveryTypeRoundTrips) {
  auto f = parse_ok(every_type_writer());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->metadata().size(), 29u);
  EXPECT_EQ(f->metadata()[0].key, "u8");
  EXPECT_EQ(f->metadata()[28].key, "arr_nested_str");

  EXPECT_EQ(*f->get_uint("u8"), 250u);
  EXPECT_EQ(*f->get_int("i8"), -100);
  EXPECT_EQ(*f->get_uint("u16"), 65000u);
  EXPECT_EQ(*f->get_int("i16"), -30000);
  EXPECT_EQ(*f->get_uint("u32"), 4000000000u);
  EXPECT_EQ(*f->get_int("i32"), -2000000000);
  EXPECT_EQ(*f->get_float("f32"), static_cast<double>(0.1f));  // float32 kept exactly
  EXPECT_EQ(f->find("f32")->type, GgufValueType::kFloat32);
  EXPECT_TRUE(*f->get_bool("bool_t"));
  EXPECT_FALSE(*f->get_bool("bool_f"));
  EXPECT_EQ(*f->get_string("str"), "héllo");
  EXPECT_EQ(*f->get_string("empty_str"), "");
  EXPECT_EQ(*f->get_uint("u64"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(*f->get_int("i64"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*f->get_float("f64"), 1e300);

  EXPECT_EQ(*f->get_int_array("arr_u8"), (std::vector<int64_t>{1, 255}));
  EXPECT_EQ(*f->get_int_array("arr_i8"), (std::vector<int64_t>{-128, 127}));
  EXPECT_EQ(*f->get_int_array("arr_u16"), (std::vector<int64_t>{65535}));
  EXPECT_EQ(*f->get_int_array("arr_i16"), (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(*f->get_int_array("arr_u32"), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(*f->get_int_array("arr_i32"), (std::vector<int64_t>{3, -3, 2147483647}));
  EXPECT_EQ(*f->get_float_array("arr_f32"), (std::vector<double>{0.5, -0.25}));
  EXPECT_EQ(*f->get_float_array("arr_i32"), (std::vector<double>{3, -3, 2147483647}));
  const GgufValue* bools = f->find("arr_bool");
  ASSERT_NE(bools, nullptr);
  EXPECT_EQ(bools->element_type, GgufValueType::kBool);
  EXPECT_EQ(bools->count, 2u);
  EXPECT_TRUE(*value_as_bool(bools->packed_element(0)));
  EXPECT_FALSE(*value_as_bool(bools->packed_element(1)));
  EXPECT_EQ(*f->get_string_array("arr_str"), (std::vector<std::string_view>{"a", "", "ccc"}));
  EXPECT_EQ(f->find("arr_u64")->packed_element(0).uint_value, 1ull << 63);
  EXPECT_EQ(*f->get_int_array("arr_i64"), (std::vector<int64_t>{-5}));
  EXPECT_EQ(*f->get_float_array("arr_f64"), (std::vector<double>{2.5}));
  EXPECT_TRUE(f->get_int_array("arr_empty")->empty());

  const GgufValue* nested = f->find("arr_nested");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->element_type, GgufValueType::kArray);
  ASSERT_EQ(nested->arrays.size(), 3u);
  EXPECT_EQ(*value_as_int_array(nested->arrays[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(value_as_int_array(nested->arrays[1])->empty());
  EXPECT_EQ(*value_as_int_array(nested->arrays[2]), (std::vector<int64_t>{3}));
  EXPECT_EQ(nested->type_string(), "array[array[int32; 2]; 3]");
  EXPECT_EQ(*value_as_string_array(f->find("arr_nested_str")->arrays[0]),
            (std::vector<std::string_view>{"x", "y"}));
  EXPECT_EQ(f->find("arr_str")->type_string(), "array[string; 3]");
}

TEST(GgufReader, VersionTwoReadsTheSame) {
  auto f = parse_ok(every_type_writer(2));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->version(), 2u);
  EXPECT_EQ(*f->get_string("str"), "héllo");
  EXPECT_EQ(*f->get_int_array("arr_i32"), (std::vector<int64_t>{3, -3, 2147483647}));
}

TEST(GgufReader, GettersCoerceIntegerWidthsWithRangeChecks) {
  GgufWriter w;
  w.add("neg", V::i32(-5))
      .add("pos_i8", V::i8(7))
      .add("big", V::u64(std::numeric_limits<uint64_t>::max()))
      .add("str", V::string("x"))
      .add("f", V::f32(1.5f))
      .add("b", V::boolean(true))
      .add("mixed_u64", V::array(vt::kUint64, {V::u64(1), V::u64(1ull << 63)}))
      .add("bools", V::array(vt::kBool, {V::boolean(true)}));
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->get_uint("pos_i8"), 7u);
  EXPECT_EQ(*f->get_int("pos_i8"), 7);
  EXPECT_EQ(*f->get_float("pos_i8"), 7.0);
  EXPECT_EQ(*f->get_int("neg"), -5);
  EXPECT_EQ(*f->get_float("neg"), -5.0);

  auto e = f->get_uint("neg");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::kDataError);
  EXPECT_EQ(e.error().message,
            "GGUF `t.gguf`: key `neg`: expected an unsigned integer, found int32 -5");
  e = f->get_uint("str");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("key `str`: expected an unsigned integer, found string"),
            std::string::npos);
  auto i = f->get_int("big");
  ASSERT_FALSE(i.ok());
  EXPECT_NE(i.error().message.find("int64 range"), std::string::npos);
  EXPECT_FALSE(f->get_float("str").ok());
  EXPECT_FALSE(f->get_bool("pos_i8").ok());
  EXPECT_FALSE(f->get_string("f").ok());
  EXPECT_FALSE(f->get_uint("f").ok());  // no float -> integer coercion
  EXPECT_FALSE(f->get_int("b").ok());
  auto arr = f->get_int_array("mixed_u64");
  ASSERT_FALSE(arr.ok());
  EXPECT_NE(arr.error().message.find("key `mixed_u64`: element 1: "), std::string::npos);
  EXPECT_FALSE(f->get_int_array("bools").ok());
  EXPECT_FALSE(f->get_float_array("bools").ok());
  EXPECT_FALSE(f->get_string_array("mixed_u64").ok());
  EXPECT_FALSE(f->get_int_array("neg").ok());

  auto missing = f->get_uint("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "GGUF `t.gguf`: missing key `nope`");
  EXPECT_EQ(f->find("nope"), nullptr);

  // The optional forms: nullopt when absent, an error when present with the wrong type.
  auto absent = f->find_uint("nope");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  auto present = f->find_uint("pos_i8");
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(**present, 7u);
  EXPECT_FALSE(f->find_uint("str").ok());
  EXPECT_FALSE(f->find_string("b").ok());
  EXPECT_TRUE(f->find_string("str")->has_value());
  EXPECT_FALSE(f->find_bool("x")->has_value());
  EXPECT_FALSE(f->find_float("x")->has_value());
  EXPECT_FALSE(f->find_int("x")->has_value());
  EXPECT_FALSE(f->find_string_array("x")->has_value());
  EXPECT_FALSE(f->find_int_array("x")->has_value());
  EXPECT_FALSE(f->find_float_array("x")->has_value());
}

std::vector<std::byte> iota_bytes(size_t n, int start) {
  std::vector<std::byte> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((start + i) & 0xff);
  return b;
}

TEST(GgufReader, TensorInfosAndDataViews) {
  GgufWriter w;
  const std::vector<float> norm = {1.0f, 2.0f, 3.0f, -4.0f};
  w.add_string("general.architecture", "llama")
      .add_tensor_f32("norm", {4}, norm)
      .add_tensor("q8", {64, 3}, static_cast<uint32_t>(GgufKind::kQ8_0), iota_bytes(2 * 3 * 34, 1))
      .add_tensor("q2k", {256, 1, 1, 2}, static_cast<uint32_t>(GgufKind::kQ2_K),
                  iota_bytes(2 * 84, 7));
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->tensors().size(), 3u);
  EXPECT_EQ(f->alignment(), 32u);
  EXPECT_EQ(f->data_offset() % 32, 0u);

  const GgufTensor* norm_t = f->find_tensor("norm");
  ASSERT_NE(norm_t, nullptr);
  EXPECT_EQ(norm_t->dims, (std::vector<uint64_t>{4}));
  EXPECT_EQ(norm_t->kind, GgufKind::kF32);
  EXPECT_EQ(norm_t->element_count, 4u);
  EXPECT_EQ(norm_t->byte_size, 16u);
  EXPECT_EQ(norm_t->offset, 0u);
  ASSERT_EQ(norm_t->data.size(), 16u);
  float read[4];
  std::memcpy(read, norm_t->data.data(), 16);
  EXPECT_EQ(std::vector<float>(read, read + 4), norm);

  const GgufTensor& q8 = f->tensors()[1];
  EXPECT_EQ(q8.name, "q8");
  EXPECT_EQ(q8.dims, (std::vector<uint64_t>{64, 3}));
  EXPECT_EQ(q8.kind, GgufKind::kQ8_0);
  EXPECT_EQ(q8.element_count, 192u);
  EXPECT_EQ(q8.byte_size, 6u * 34u);
  EXPECT_EQ(q8.offset, 32u);  // after the 16 bytes of `norm`, padded to 32
  EXPECT_EQ(std::vector<std::byte>(q8.data.begin(), q8.data.end()), iota_bytes(2 * 3 * 34, 1));

  // Kinds cppnn cannot dequantize are still read and listed.
  const GgufTensor* q2k = f->find_tensor("q2k");
  ASSERT_NE(q2k, nullptr);
  EXPECT_EQ(q2k->kind, GgufKind::kQ2_K);
  EXPECT_EQ(kind_name(q2k->kind), "Q2_K");
  EXPECT_EQ(q2k->byte_size, 168u);
  EXPECT_EQ(f->find_tensor("missing"), nullptr);

  // The data stays valid through a tensor's owner after the file object is gone.
  GgufTensor copy = q8;
  std::weak_ptr<const GgufFile> weak = f;
  f.reset();
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(static_cast<uint8_t>(copy.data[0]), 1);
  EXPECT_EQ(static_cast<uint8_t>(copy.data[203]), 204);
}

TEST(GgufReader, AlignmentKeyAlignsDataAndOffsets) {
  for (uint32_t alignment : {1u, 8u, 64u, 4096u}) {
    GgufWriter w;
    w.set_alignment(alignment)
        .add_tensor("a", {3}, static_cast<uint32_t>(GgufKind::kI8), iota_bytes(3, 0))
        .add_tensor("b", {2}, static_cast<uint32_t>(GgufKind::kF16), iota_bytes(4, 9));
    auto f = parse_ok(w);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->alignment(), alignment);
    EXPECT_EQ(f->data_offset() % alignment, 0u);
    const uint64_t b_offset = (3 + alignment - 1) / alignment * alignment;
    EXPECT_EQ(f->find_tensor("b")->offset, b_offset);
    EXPECT_EQ(static_cast<uint8_t>(f->find_tensor("b")->data[0]), 9);
  }
}

TEST(GgufReader, LargeVocabularyArraysParse) {
  std::vector<std::string> tokens, merges;
  std::vector<int32_t> types;
  for (int i = 0; i < 49152; ++i) {
    tokens.push_back("tok" + std::to_string(i));
    types.push_back(i % 4);
  }
  for (int i = 0; i < 48900; ++i) merges.push_back("a" + std::to_string(i) + " b");
  GgufWriter w;
  w.add("tokenizer.ggml.tokens", V::strings(tokens))
      .add("tokenizer.ggml.token_type", V::int32s(types))
      .add("tokenizer.ggml.merges", V::strings(merges));
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  auto t = f->get_string_array("tokenizer.ggml.tokens");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 49152u);
  EXPECT_EQ((*t)[49151], "tok49151");
  EXPECT_EQ(f->get_string_array("tokenizer.ggml.merges")->at(48899), "a48899 b");
  EXPECT_EQ(f->get_int_array("tokenizer.ggml.token_type")->at(7), 3);
}

TEST(GgufReader, OpensFilesFromDisk) {
  cppnn::testing::TempDir dir;
  GgufWriter w;
  w.add_uint32("llama.block_count", 2).add_tensor_f32("x", {2}, std::vector<float>{1, 2});
  w.write(dir.path() / "m.gguf");
  auto f = GgufFile::open(dir.path() / "m.gguf");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ((*f)->name(), (dir.path() / "m.gguf").string());
  EXPECT_EQ(*(*f)->get_uint("llama.block_count"), 2u);
  EXPECT_EQ((*f)->file_size(), w.bytes().size());

  auto missing = GgufFile::open(dir.path() / "none.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kDataError);
  EXPECT_NE(missing.error().message.find("none.gguf"), std::string::npos);
  auto folder = GgufFile::open(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().kind, ErrorKind::kDataError);

  // Errors of a file opened from disk name its path.
  std::vector<std::byte> bad = w.bytes();
  bad.resize(20);
  {
    std::ofstream out(dir.path() / "bad.gguf", std::ios::binary);
    out.write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
  }
  auto b = GgufFile::open(dir.path() / "bad.gguf");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message.rfind("GGUF `" + (dir.path() / "bad.gguf").string() + "`: ", 0), 0u);
}

TEST(GgufReader, EmptyTensorsAndNoTensors) {
  GgufWriter w;
  w.add_tensor("empty", {0, 4}, static_cast<uint32_t>(GgufKind::kQ4_K), {})
      .add_tensor_f32("one", {1}, std::vector<float>{5.0f});
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->find_tensor("empty")->element_count, 0u);
  EXPECT_EQ(f->find_tensor("empty")->byte_size, 0u);
  auto none = parse_ok(GgufWriter());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->tensors().empty());
  EXPECT_TRUE(none->metadata().empty());
}

}  // namespace
}  // namespace cppnn::gguf
