// GGUF tensor kinds (src/import/gguf/gguf_quant.h): dequantization of hand-made blocks against
// values worked out from ggml's block layouts, and the WebNN form (q * scale + offset) equal to
// dequantize() bit for bit on random blocks of every kind. (tests/llm/test_gguf_dequant.py checks
// dequantize() against gguf-py, llama.cpp's own Python dequantizer.)
#include "src/import/gguf/gguf_quant.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>

#include "tests/llm/gguf_test_util.h"
#include "tests/llm/gguf_writer.h"

namespace cppnn::gguf {
namespace {

using testing::GgufWriter;
using testing::parse_ok;
using DT = MLOperandDataType;

constexpr GgufKind kSupported[] = {GgufKind::kF32,  GgufKind::kF16,  GgufKind::kBF16,
                                   GgufKind::kQ8_0, GgufKind::kQ4_0, GgufKind::kQ4_1,
                                   GgufKind::kQ5_0, GgufKind::kQ5_1, GgufKind::kQ4_K,
                                   GgufKind::kQ5_K, GgufKind::kQ6_K};

void put16(std::vector<std::byte>& b, size_t at, uint16_t v) {
  b[at] = static_cast<std::byte>(v & 0xff);
  b[at + 1] = static_cast<std::byte>(v >> 8);
}
void put8(std::vector<std::byte>& b, size_t at, uint8_t v) {
  b[at] = static_cast<std::byte>(v);
}

// The dequantized values of one block of `kind`.
std::vector<float> dequantize_one(GgufKind kind, const std::vector<std::byte>& block) {
  std::vector<float> out(kind_info(kind).block);
  auto s = dequantize_blocks(kind, block, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return out;
}

std::vector<std::byte> zero_block(GgufKind kind) {
  return std::vector<std::byte>(kind_info(kind).block_bytes);
}

constexpr uint16_t kHalfOne = 0x3C00, kHalfHalf = 0x3800, kHalfTwo = 0x4000, kHalfMinusOne = 0xBC00,
                   kHalfQuarter = 0x3400;

TEST(GgufQuant, Q4_0Q4_1BlocksFromTheLayout) {
  auto b = zero_block(GgufKind::kQ4_0);  // {half d; uint8 qs[16]}
  put16(b, 0, kHalfHalf);
  put8(b, 2, 0x1F);  // element 0: 15 - 8, element 16: 1 - 8
  auto y = dequantize_one(GgufKind::kQ4_0, b);
  EXPECT_EQ(y[0], 3.5f);
  EXPECT_EQ(y[16], -3.5f);
  EXPECT_EQ(y[1], -4.0f);  // q = 0 -> (0 - 8) * 0.5

  b = zero_block(GgufKind::kQ4_1);  // {half d; half m; uint8 qs[16]}
  put16(b, 0, kHalfHalf);
  put16(b, 2, kHalfMinusOne);
  put8(b, 4, 0x2A);
  y = dequantize_one(GgufKind::kQ4_1, b);
  EXPECT_EQ(y[0], 4.0f);  // 10 * 0.5 - 1
  EXPECT_EQ(y[16], 0.0f);
  EXPECT_EQ(y[1], -1.0f);
}

TEST(GgufQuant, Q5_0Q5_1Q8_0BlocksFromTheLayout) {
  auto b = zero_block(GgufKind::kQ5_0);  // {half d; uint8 qh[4]; uint8 qs[16]}
  put16(b, 0, kHalfOne);
  put8(b, 2, 0x01);  // qh bit 0: element 0's fifth bit
  put8(b, 4, 0x01);  // qh bit 16: element 16's
  put8(b, 6, 0x21);
  auto y = dequantize_one(GgufKind::kQ5_0, b);
  EXPECT_EQ(y[0], 1.0f);  // (1 | 16) - 16
  EXPECT_EQ(y[16], 2.0f);
  EXPECT_EQ(y[1], -16.0f);

  b = zero_block(GgufKind::kQ5_1);  // {half d; half m; uint8 qh[4]; uint8 qs[16]}
  put16(b, 0, kHalfTwo);
  put16(b, 2, kHalfOne);
  put8(b, 7, 0x80);       // qh bit 31: element 31's fifth bit
  put8(b, 8 + 15, 0xF0);  // element 15: 0, element 31: 15
  y = dequantize_one(GgufKind::kQ5_1, b);
  EXPECT_EQ(y[31], 63.0f);  // (15 | 16) * 2 + 1
  EXPECT_EQ(y[15], 1.0f);

  b = zero_block(GgufKind::kQ8_0);  // {half d; int8 qs[32]}
  put16(b, 0, kHalfQuarter);
  put8(b, 2 + 5, 0x80);
  put8(b, 2 + 6, 0x7F);
  y = dequantize_one(GgufKind::kQ8_0, b);
  EXPECT_EQ(y[5], -32.0f);
  EXPECT_EQ(y[6], 31.75f);
}

// The packed 6-bit scales of a K-quant block (bytes 4..15): sub-block 1 gets scale 2 and min 1
// from the low 6 bits of bytes 1 and 5; sub-block 5 gets scale 3 | (3 << 4) = 51 and min
// 7 | (2 << 4) = 39 from the nibbles of byte 9 and the top bits of bytes 1 and 5.
void k_scales(std::vector<std::byte>& b) {
  put16(b, 0, kHalfOne);       // d
  put16(b, 2, kHalfHalf);      // dmin
  put8(b, 4 + 1, 0b11000010);  // sub-block 1 scale 2; top bits 3 -> sub-block 5 scale
  put8(b, 4 + 5, 0b10000001);  // sub-block 1 min 1; top bits 2 -> sub-block 5 min
  put8(b, 4 + 9, 0x73);        // sub-block 5: scale low nibble 3, min low nibble 7
}

TEST(GgufQuant, Q4_KQ5_KScalesAndMinsFromTheLayout) {
  auto b = zero_block(GgufKind::kQ4_K);  // {half d; half dmin; uint8 scales[12]; uint8 qs[128]}
  k_scales(b);
  put8(b, 16 + 0, 0x40);   // element 32 (sub-block 1, high nibble of qs[0]): 4
  put8(b, 16 + 64, 0xA0);  // element 160 (sub-block 5, high nibble of qs[64]): 10
  auto y = dequantize_one(GgufKind::kQ4_K, b);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[32], 7.5f);     // 2 * 4 - 0.5 * 1
  EXPECT_EQ(y[160], 490.5f);  // 51 * 10 - 0.5 * 39
  EXPECT_EQ(y[161], -19.5f);

  b = zero_block(GgufKind::kQ5_K);  // ... uint8 qh[32] at 16, uint8 qs[128] at 48
  k_scales(b);
  put8(b, 16 + 0, 0b00100010);  // qh[0]: bit 1 (element 32), bit 5 (element 160)
  put8(b, 48 + 0, 0x40);
  put8(b, 48 + 64, 0xA0);
  y = dequantize_one(GgufKind::kQ5_K, b);
  EXPECT_EQ(y[32], 39.5f);     // 2 * (4 + 16) - 0.5
  EXPECT_EQ(y[160], 1306.5f);  // 51 * (10 + 16) - 19.5
  EXPECT_EQ(y[0], 0.0f);
}

TEST(GgufQuant, Q6_KFromTheLayout) {
  auto b = zero_block(GgufKind::kQ6_K);  // {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d}
  put16(b, 208, kHalfHalf);
  put8(b, 192 + 0, 1);
  put8(b, 192 + 15, 0xFD);  // -3
  // Element 241 = 128 + 32 * 3 + 17: high nibble of ql[64 + 17 + 32], bits 6-7 of qh[32 + 17].
  put8(b, 113, 0x50);
  put8(b, 128 + 49, 0b10000000);
  auto y = dequantize_one(GgufKind::kQ6_K, b);
  EXPECT_EQ(y[241], -7.5f);          // 0.5 * -3 * ((5 | 2 << 4) - 32)
  EXPECT_EQ(y[0], -16.0f);           // 0.5 * 1 * (0 - 32)
  EXPECT_EQ(y[16], 0.0f);            // sub-block 1: scale 0
  EXPECT_TRUE(std::signbit(y[16]));  // 0.5 * 0 * -32 is -0, as ggml computes it
}

// A tensor of `kind` with dims [row, 3] holding random blocks.
std::vector<std::byte> random_tensor_bytes(GgufKind kind, uint64_t elements, std::mt19937& rng) {
  const GgufKindInfo& info = kind_info(kind);
  if (info.block > 1) return testing::random_blocks(kind, elements / info.block, rng);
  std::vector<std::byte> b(elements * info.block_bytes);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::byte& x : b) x = static_cast<std::byte>(byte(rng));
  if (kind == GgufKind::kF16)  // no signalling NaNs: hardware conversions would quiet them
    for (size_t i = 0; i + 1 < b.size(); i += 2)
      if ((static_cast<uint8_t>(b[i + 1]) & 0x7e) == 0x7c) b[i + 1] &= std::byte{0x83};
  return b;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(GgufQuant, WebnnFormEqualsDequantizeBitForBitForEveryKind) {
  std::mt19937 rng(20240611);
  for (GgufKind kind : kSupported) {
    SCOPED_TRACE(std::string(kind_name(kind)));
    const uint64_t row = kind_info(kind).block * 3;
    GgufWriter w;
    for (int rep = 0; rep < 20; ++rep)
      w.add_tensor("t" + std::to_string(rep), {row, 4}, static_cast<uint32_t>(kind),
                   random_tensor_bytes(kind, row * 4, rng));
    auto f = parse_ok(w);
    ASSERT_TRUE(f);
    for (const GgufTensor& t : f->tensors()) {
      auto expected = dequantize(t);
      ASSERT_TRUE(expected.ok()) << expected.error().message;
      auto weight = to_webnn_weight(t);
      ASSERT_TRUE(weight.ok()) << weight.error().message;
      EXPECT_EQ(weight->shape, (std::vector<uint64_t>{4, row}));
      auto values = webnn_weight_values(*weight);
      ASSERT_TRUE(values.ok()) << values.error().message;
      ASSERT_TRUE(same_bits(*values, *expected)) << t.name;
    }
  }
}

struct ExpectedForm {
  GgufKind kind;
  DT q_type;
  uint32_t block;
  bool offset;
  const char* note;
};

TEST(GgufQuant, WebnnFormPerKind) {
  const ExpectedForm forms[] = {
      {GgufKind::kQ8_0, DT::kInt8, 32, false, "Q8_0 -> int8 + float32 scale per 32"},
      {GgufKind::kQ4_0, DT::kInt4, 32, false, "Q4_0 -> int4 + float32 scale per 32"},
      {GgufKind::kQ4_1, DT::kUint4, 32, true, "Q4_1 -> uint4 + float32 scale, offset per 32"},
      {GgufKind::kQ5_0, DT::kInt8, 32, false, "Q5_0 -> int8 + float32 scale per 32"},
      {GgufKind::kQ5_1, DT::kUint8, 32, true, "Q5_1 -> uint8 + float32 scale, offset per 32"},
      {GgufKind::kQ4_K, DT::kUint4, 32, true, "Q4_K -> uint4 + float32 scale, offset per 32"},
      {GgufKind::kQ5_K, DT::kUint8, 32, true, "Q5_K -> uint8 + float32 scale, offset per 32"},
      {GgufKind::kQ6_K, DT::kInt8, 16, false, "Q6_K -> int8 + float32 scale per 16"},
  };
  std::mt19937 rng(7);
  for (const ExpectedForm& e : forms) {
    SCOPED_TRACE(std::string(kind_name(e.kind)));
    const uint64_t row = 512;
    GgufWriter w;
    w.add_tensor("w", {row, 2}, static_cast<uint32_t>(e.kind),
                 random_tensor_bytes(e.kind, row * 2, rng));
    auto f = parse_ok(w);
    ASSERT_TRUE(f);
    auto weight = to_webnn_weight(f->tensors()[0]);
    ASSERT_TRUE(weight.ok());
    EXPECT_EQ(weight->form, WebnnWeight::Form::kBlockQuantized);
    EXPECT_EQ(weight->q_type, e.q_type);
    EXPECT_EQ(weight->block, e.block);
    EXPECT_EQ(weight->scale.size(), row * 2 / e.block);
    EXPECT_EQ(weight->offset.size(), e.offset ? row * 2 / e.block : 0u);
    const bool four_bit = e.q_type == DT::kInt4 || e.q_type == DT::kUint4;
    EXPECT_EQ(weight->q.size(), four_bit ? row : row * 2);
    EXPECT_EQ(weight->note, e.note);
  }
}

TEST(GgufQuant, Q4_0PacksTwoSignedNibblesPerByteInElementOrder) {
  auto b = zero_block(GgufKind::kQ4_0);
  put16(b, 0, kHalfOne);
  put8(b, 2, 0x1F);  // element 0: 15 -> 7; element 16: 1 -> -7
  put8(b, 3, 0x08);  // element 1: 8 -> 0;  element 17: 0 -> -8
  GgufWriter w;
  w.add_tensor("q", {32}, static_cast<uint32_t>(GgufKind::kQ4_0), b);
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  auto weight = to_webnn_weight(f->tensors()[0]);
  ASSERT_TRUE(weight.ok());
  const auto q = weight->q.bytes();
  ASSERT_EQ(q.size(), 16u);
  EXPECT_EQ(static_cast<uint8_t>(q[0]), 0x07);  // low nibble element 0 (7), high element 1 (0)
  EXPECT_EQ(static_cast<uint8_t>(q[8]), 0x89);  // element 16: -7 = 0x9, element 17: -8 = 0x8
  EXPECT_EQ(weight->scale, std::vector<float>{1.0f});
  EXPECT_TRUE(weight->offset.empty());
}

TEST(GgufQuant, FloatKindsAreViewsWhenAligned) {
  const std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f};
  GgufWriter w;
  w.add_tensor_f32("f32", {2, 2}, v).add_tensor_f16("f16", {4}, v);
  testing::GgufBytes bf16;
  for (float x : v) bf16.u16(float_to_bfloat16_bits(x));
  w.add_tensor("bf16", {4}, static_cast<uint32_t>(GgufKind::kBF16), bf16.bytes());
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  auto f32 = to_webnn_weight(*f->find_tensor("f32"));
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(f32->form, WebnnWeight::Form::kFloat);
  EXPECT_EQ(f32->float_type, DT::kFloat32);
  EXPECT_EQ(f32->values.data(), f->find_tensor("f32")->data.data());  // no copy
  EXPECT_EQ(f32->shape, (std::vector<uint64_t>{2, 2}));
  auto f16 = to_webnn_weight(*f->find_tensor("f16"));
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(f16->float_type, DT::kFloat16);
  EXPECT_EQ(f16->values.data(), f->find_tensor("f16")->data.data());
  auto b16 = to_webnn_weight(*f->find_tensor("bf16"));
  ASSERT_TRUE(b16.ok());
  EXPECT_EQ(b16->float_type, DT::kFloat32);
  EXPECT_EQ(*webnn_weight_values(*b16), v);
  EXPECT_EQ(*dequantize(*f->find_tensor("bf16")), v);
  EXPECT_EQ(*dequantize(*f->find_tensor("f16")), v);
  EXPECT_EQ(*webnn_weight_values(*f32), v);
}

TEST(GgufQuant, MisalignedFloatDataIsCopied) {
  const std::vector<float> v = {1.0f, 2.0f};
  int copies = 0;
  for (uint64_t pad = 1; pad <= 4; ++pad) {  // with alignment 1, some pads misalign the floats
    GgufWriter w;
    w.set_alignment(1)
        .add_tensor("pad", {pad}, static_cast<uint32_t>(GgufKind::kI8), std::vector<std::byte>(pad))
        .add_tensor_f32("x", {2}, v);
    auto f = parse_ok(w);
    ASSERT_TRUE(f);
    const GgufTensor& t = *f->find_tensor("x");
    auto weight = to_webnn_weight(t);
    ASSERT_TRUE(weight.ok());
    const bool aligned = reinterpret_cast<uintptr_t>(t.data.data()) % 4 == 0;
    EXPECT_EQ(weight->values.data() == t.data.data(), aligned);
    copies += aligned ? 0 : 1;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(weight->values.data()) % 4, 0u);
    EXPECT_EQ(*webnn_weight_values(*weight), v);
    EXPECT_EQ(*dequantize(t), v);
  }
  EXPECT_EQ(copies, 3);
}

TEST(GgufQuant, OtherKindsAreRejectedNamingTheTensorAndKind) {
  GgufWriter w;
  w.add_tensor("blk.0.ffn_down.weight", {256}, static_cast<uint32_t>(GgufKind::kQ2_K),
               std::vector<std::byte>(84))
      .add_tensor("iq", {256}, static_cast<uint32_t>(GgufKind::kIQ2_XXS),
                  std::vector<std::byte>(66));
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  auto q2 = to_webnn_weight(f->tensors()[0]);
  ASSERT_FALSE(q2.ok());
  EXPECT_EQ(q2.error().kind, ErrorKind::kNotSupportedError);
  EXPECT_NE(q2.error().message.find("tensor `blk.0.ffn_down.weight`: kind Q2_K (type id 10)"),
            std::string::npos)
      << q2.error().message;
  auto iq = dequantize(f->tensors()[1]);
  ASSERT_FALSE(iq.ok());
  EXPECT_NE(iq.error().message.find("IQ2_XXS"), std::string::npos);
  std::vector<float> out(256);
  EXPECT_FALSE(dequantize(f->tensors()[1], out).ok());
}

TEST(GgufQuant, DequantizeChecksSizes) {
  std::vector<float> out(32);
  EXPECT_FALSE(dequantize_blocks(GgufKind::kQ8_0, std::vector<std::byte>(33), out).ok());
  EXPECT_FALSE(dequantize_blocks(GgufKind::kQ8_0, std::vector<std::byte>(68), out).ok());
  std::vector<float> odd(31);
  EXPECT_FALSE(dequantize_blocks(GgufKind::kQ8_0, std::vector<std::byte>(34), odd).ok());
  EXPECT_TRUE(dequantize_blocks(GgufKind::kQ8_0, std::vector<std::byte>(34), out).ok());
  GgufWriter w;
  w.add_tensor_f32("x", {2}, std::vector<float>{1, 2});
  auto f = parse_ok(w);
  ASSERT_TRUE(f);
  std::vector<float> wrong(3);
  EXPECT_FALSE(dequantize(f->tensors()[0], wrong).ok());
}

}  // namespace
}  // namespace cppnn::gguf
