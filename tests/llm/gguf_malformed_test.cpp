// The GGUF reader on malformed files: each one is a DataError whose message names the file and
// the key or tensor at fault, never a crash, hang or huge allocation (the ASan build runs these).
#include <gtest/gtest.h>

#include <limits>

#include "src/import/gguf/gguf_file.h"
#include "tests/llm/gguf_test_util.h"
#include "tests/llm/gguf_writer.h"

namespace cppnn::gguf {
namespace {

using testing::GgufBytes;
using testing::GgufWriter;
using testing::GgufWriteValue;
using testing::parse_copy;
using V = GgufWriteValue;
namespace vt = testing::value_type;

constexpr uint32_t kQ8_0 = static_cast<uint32_t>(GgufKind::kQ8_0);
constexpr uint32_t kF32 = static_cast<uint32_t>(GgufKind::kF32);

// Expects `bytes` to fail with a DataError whose message starts with the file's name and holds
// `fragment`.
void expect_error(const std::vector<std::byte>& bytes, const std::string& fragment) {
  auto f = parse_copy(bytes);
  ASSERT_FALSE(f.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(f.error().kind, ErrorKind::kDataError);
  EXPECT_EQ(f.error().message.rfind("GGUF `t.gguf`: ", 0), 0u) << f.error().message;
  EXPECT_NE(f.error().message.find(fragment), std::string::npos) << f.error().message;
}
void expect_error(const GgufWriter& w, const std::string& fragment) {
  expect_error(w.bytes(), fragment);
}

// A small valid file: metadata of several kinds, an F32 and a Q8_0 tensor.
GgufWriter small_file() {
  GgufWriter w;
  w.add_string("general.architecture", "llama")
      .add_uint32("llama.block_count", 2)
      .add("tokenizer.ggml.tokens", V::strings({"a", "bc"}))
      .add("nested", V::array(vt::kArray, {V::int32s({1})}))
      .add_tensor_f32("norm", {3}, std::vector<float>{1, 2, 3})
      .add_tensor("q", {32}, kQ8_0, std::vector<std::byte>(34, std::byte{1}));
  return w;
}

TEST(GgufMalformed, EveryTruncationFailsCleanly) {
  std::vector<std::byte> bytes = small_file().bytes();
  {
    // Cut the padding after the last tensor: the complete file ends with its last data byte.
    auto f = parse_copy(bytes);
    ASSERT_TRUE(f.ok()) << f.error().message;
    uint64_t end = 0;
    for (const GgufTensor& t : (*f)->tensors())
      end = std::max(end, (*f)->data_offset() + t.offset + t.byte_size);
    bytes.resize(end);
  }
  ASSERT_TRUE(parse_copy(bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto f = parse_copy(std::vector<std::byte>(bytes.begin(), bytes.begin() + n));
    ASSERT_FALSE(f.ok()) << "a prefix of " << n << " bytes parsed";
    EXPECT_EQ(f.error().kind, ErrorKind::kDataError);
    EXPECT_EQ(f.error().message.rfind("GGUF `t.gguf`: ", 0), 0u) << f.error().message;
  }
  // The header's counts must fit first (4 keys of >= 14 bytes, 2 tensors of >= 33 bytes).
  expect_error(std::vector<std::byte>(bytes.begin(), bytes.begin() + 30),
               "header: key count 4 cannot fit in the 6 bytes left");
  // With 66 bytes after the header, the second key's name runs past the end.
  expect_error(std::vector<std::byte>(bytes.begin(), bytes.begin() + 90),
               "key #1: the key: length 17 at offset 69 exceeds the 13 bytes left");
  // Cut inside the key's value.
  expect_error(std::vector<std::byte>(bytes.begin(), bytes.begin() + 100),
               "key `llama.block_count`: truncated: uint32 needs 4 bytes at offset 98");
}

TEST(GgufMalformed, BadMagicAndVersions) {
  expect_error(std::vector<std::byte>{}, "header: not a GGUF file (0 bytes)");
  std::vector<std::byte> b = GgufWriter().bytes();
  b[0] = std::byte{'X'};
  expect_error(b, "header: not a GGUF file (the magic is not \"GGUF\")");
  expect_error(GgufWriter(1), "header: version 1 is not supported (only versions 2 and 3)");
  expect_error(GgufWriter(4), "header: unsupported version 4");
  expect_error(GgufWriter(0), "header: unsupported version 0");
  // A big-endian file: version 3 written big-endian reads 0x03000000.
  expect_error(GgufWriter(0x03000000), "header: big-endian files are not supported");
}

TEST(GgufMalformed, HugeCountsFailBeforeAllocating) {
  GgufWriter w = small_file();
  w.tensor_count_override = uint64_t{1} << 60;
  expect_error(w, "header: tensor count 1152921504606846976 cannot fit in the");
  w = small_file();
  w.kv_count_override = std::numeric_limits<uint64_t>::max();
  expect_error(w, "header: key count 18446744073709551615 cannot fit in the");
  // More tensors than written, but few enough to pass the size bound: the infos run out.
  w = small_file();
  w.tensor_count_override = 3;
  expect_error(w, "tensor #2");

  for (uint64_t n : {uint64_t{1} << 62, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()}) {
    GgufWriter a;
    a.add("big", V::raw_array(vt::kUint32, n));
    expect_error(a, "key `big`: array length " + std::to_string(n) + " cannot fit in the");
    GgufWriter s;
    s.add("big", V::raw_array(vt::kString, n));
    expect_error(s, "key `big`: array length");
    GgufWriter nested;
    nested.add("big", V::raw_array(vt::kArray, n));
    expect_error(nested, "key `big`: array length");
  }
  // A string length of 2^63: as a key, as a value, as a tensor name.
  GgufBytes key;
  key.raw("GGUF").u32(3).u64(0).u64(1).u64(uint64_t{1} << 63).raw(std::string(20, 'k'));
  expect_error(key.bytes(), "key #0: the key: length 9223372036854775808 at offset 24 exceeds");
  GgufWriter value;
  value.add("s", GgufWriteValue{vt::kString, GgufBytes().u64(uint64_t{1} << 63).bytes()});
  expect_error(value, "key `s`: the string: length 9223372036854775808");
  GgufBytes name;
  name.raw("GGUF").u32(3).u64(1).u64(0).u64(uint64_t{1} << 63);
  name.raw(std::string(40, 'x'));
  expect_error(name.bytes(), "tensor #0: the tensor name: length 9223372036854775808");
  // An element of a string array whose length runs past the end.
  GgufWriter element;
  element.add("arr", V::raw_array(vt::kString, 2, GgufBytes().str("ok").u64(1000).bytes()));
  expect_error(element, "key `arr`: element 1: the string: length 1000");
}

TEST(GgufMalformed, TensorOffsetsMustBeInsideAlignedAndDisjoint) {
  GgufWriter w;
  w.add_tensor_f32("a", {8}, std::vector<float>(8, 1.0f))
      .add_tensor("b", {8}, kF32, std::vector<std::byte>(32), uint64_t{0});
  expect_error(w, "tensor `b`: data [");
  expect_error(w, "overlaps tensor `a`");

  GgufWriter partial;  // b starts inside a's bytes
  partial.add_tensor_f32("a", {16}, std::vector<float>(16, 1.0f))
      .add_tensor("b", {8}, kF32, std::vector<std::byte>(32), uint64_t{32});
  expect_error(partial, "overlaps tensor `a`");

  GgufWriter past;
  past.add_tensor("x", {8}, kF32, std::vector<std::byte>(32), uint64_t{1} << 40);
  expect_error(past, "tensor `x`: data [");
  expect_error(past, ") extends past the end of the file (");

  GgufWriter overflow;  // data offset + offset overflows 64 bits
  overflow.add_tensor("x", {8}, kF32, std::vector<std::byte>(32),
                      std::numeric_limits<uint64_t>::max() / 32 * 32);
  expect_error(overflow, "tensor `x`: data [");

  GgufWriter misaligned;
  misaligned.add_tensor("x", {1}, kF32, std::vector<std::byte>(4), uint64_t{4});
  expect_error(misaligned, "tensor `x`: offset 4 is not a multiple of the alignment 32");

  GgufWriter aligned64;  // with general.alignment 64, 32 is misaligned too
  aligned64.set_alignment(64).add_tensor("x", {1}, kF32, std::vector<std::byte>(4), uint64_t{32});
  expect_error(aligned64, "tensor `x`: offset 32 is not a multiple of the alignment 64");
}

TEST(GgufMalformed, AlignmentMustBeAUint32PowerOfTwo) {
  for (uint32_t a : {0u, 3u, 48u, 0xffffffffu}) {
    GgufWriter w;
    w.set_alignment(a);
    expect_error(w, "key `general.alignment`: " + std::to_string(a) + " is not a power of two");
  }
  GgufWriter wrong_type;
  wrong_type.add("general.alignment", V::u64(32));
  expect_error(wrong_type, "key `general.alignment`: expected uint32, found uint64");
}

TEST(GgufMalformed, TensorTypesDimsAndRows) {
  GgufWriter bad_type;
  bad_type.add_tensor("blk.0.attn_q.weight", {4}, 99, std::vector<std::byte>(16));
  expect_error(bad_type, "tensor `blk.0.attn_q.weight`: unknown type id 99");
  GgufWriter removed;  // Q4_2, removed from ggml
  removed.add_tensor("x", {32}, 4, std::vector<std::byte>(20));
  expect_error(removed, "tensor `x`: unknown type id 4");

  GgufWriter zero_dims;
  zero_dims.add_tensor("x", {}, kF32, {});
  expect_error(zero_dims, "tensor `x`: n_dims 0 is out of range (1 to 4)");
  GgufWriter five_dims;
  five_dims.add_tensor("x", {1, 1, 1, 1, 1}, kF32, std::vector<std::byte>(4));
  expect_error(five_dims, "tensor `x`: n_dims 5 is out of range (1 to 4)");

  GgufWriter row;
  row.add_tensor("x", {16, 2}, kQ8_0, std::vector<std::byte>(34));
  expect_error(row,
               "tensor `x`: the row size 16 (ne[0]) is not a multiple of the Q8_0 block size 32");

  GgufWriter elements;
  elements.add_tensor("x", {uint64_t{1} << 32, uint64_t{1} << 32}, kF32, {});
  expect_error(elements,
               "tensor `x`: the element count of dims [4294967296, 4294967296] overflows");
  GgufWriter zero_and_huge;  // empty, but the other dimensions' product overflows int64
  zero_and_huge.add_tensor("x", {0, uint64_t{1} << 40, uint64_t{1} << 40}, kF32, {});
  expect_error(zero_and_huge,
               "tensor `x`: the element count of dims [0, 1099511627776, 1099511627776] overflows");
  GgufWriter negative;
  negative.add_tensor("x", {uint64_t{1} << 63}, kF32, {});
  expect_error(negative, "tensor `x`: dimension 0 is 9223372036854775808");
  GgufWriter bytes;  // the element count fits int64, its F32 byte size does not fit 64 bits
  bytes.add_tensor("x", {uint64_t{1} << 62}, kF32, {});
  expect_error(bytes, "tensor `x`: the byte size of dims [4611686018427387904] overflows");
}

TEST(GgufMalformed, NamesAndKeys) {
  GgufWriter dup_key;
  dup_key.add_uint32("llama.block_count", 1).add_uint32("llama.block_count", 2);
  expect_error(dup_key, "duplicate key `llama.block_count`");

  GgufWriter dup_tensor;
  dup_tensor.add_tensor_f32("w", {1}, std::vector<float>{1})
      .add_tensor_f32("w", {1}, std::vector<float>{2});
  expect_error(dup_tensor, "duplicate tensor `w`");

  GgufWriter nul;
  nul.add_uint32(std::string("a\0b", 3), 1);
  expect_error(nul, "key #0 `a\\x00b`: the key contains a NUL byte");
  GgufWriter empty;
  empty.add_uint32("", 1);
  expect_error(empty, "key #0: the key is empty");
  GgufWriter utf8;
  utf8.add_uint32("bad\xff", 1);
  expect_error(utf8, "key #0 `bad\\xff`: the key is not valid UTF-8");

  GgufWriter tensor_nul;
  tensor_nul.add_tensor_f32(std::string("t\0", 2), {1}, std::vector<float>{1});
  expect_error(tensor_nul, "tensor #0 `t\\x00`: the name contains a NUL byte");
  GgufWriter tensor_empty;
  tensor_empty.add_tensor_f32("", {1}, std::vector<float>{1});
  expect_error(tensor_empty, "tensor #0: the name is empty");
}

TEST(GgufMalformed, ValueTypes) {
  GgufWriter unknown;
  unknown.add("k", GgufWriteValue{13, GgufBytes().u32(0).bytes()});
  expect_error(unknown, "key `k`: unknown value type id 13");
  GgufWriter element;
  element.add("k", V::raw_array(200, 0));
  expect_error(element, "key `k`: unknown array element type id 200");
  GgufWriter boolean;
  boolean.add("k", GgufWriteValue{vt::kBool, GgufBytes().u8(2).bytes()});
  expect_error(boolean, "key `k`: bool value 2 is not 0 or 1");
  GgufWriter bools;
  bools.add("k", V::raw_array(vt::kBool, 3, GgufBytes().u8(1).u8(0).u8(7).bytes()));
  expect_error(bools, "key `k`: element 2: bool value 7 is not 0 or 1");

  // Arrays nested deeper than kMaxArrayDepth.
  V deep = V::int32s({1});
  for (uint32_t depth = 1; depth < kMaxArrayDepth; ++depth) deep = V::array(vt::kArray, {deep});
  GgufWriter ok;
  ok.add("deep", deep);
  EXPECT_TRUE(parse_copy(ok.bytes()).ok());
  GgufWriter too_deep;
  too_deep.add("deep", V::array(vt::kArray, {deep}));
  expect_error(too_deep, "key `deep`: element 0: ");
  expect_error(too_deep, "arrays nested deeper than 8 levels");
}

}  // namespace
}  // namespace cppnn::gguf
