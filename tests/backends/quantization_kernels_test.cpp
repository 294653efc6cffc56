// Reference backend: quantizeLinear and dequantizeLinear (§2 rows 44-45): round half to even,
// saturation, blockwise and lower-rank scale/zeroPoint, packed int4/uint4 operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::half_bits;
using testing::ref_context;
using testing::run_graph;
using testing::to_bytes;

constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kF16 = MLOperandDataType::kFloat16;
constexpr auto kI32 = MLOperandDataType::kInt32;
constexpr auto kU32 = MLOperandDataType::kUint32;
constexpr auto kI8 = MLOperandDataType::kInt8;
constexpr auto kU8 = MLOperandDataType::kUint8;
constexpr auto kI4 = MLOperandDataType::kInt4;
constexpr auto kU4 = MLOperandDataType::kUint4;

std::vector<std::byte> bytes_of(const std::vector<uint8_t>& v) {
  return to_bytes(v);
}

TEST(RefQuantizeLinear, Float32ToUint8RoundsHalfToEvenAndSaturates) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {9}});
  MLOperand y = b.quantizeLinear(x, b.constant(kF32, 0.5), b.constant(kU8, 128));
  MLGraph g = b.build({{"y", y}});
  const float inf = std::numeric_limits<float>::infinity();
  auto out = run_graph(
      c, g, {{"x", to_bytes<float>({-1, 0, 0.25f, 0.75f, 1.25f, 1000, -1000, NAN, inf})}});
  EXPECT_EQ(as<uint8_t>(out.at("y")),
            (std::vector<uint8_t>{126, 128, 128, 130, 130, 255, 0, 0, 255}));
}

TEST(RefQuantizeLinear, BlockwiseScaleToInt8) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 4}});
  MLOperand s = b.constant({kF32, {2, 2}}, to_bytes<float>({1, 2, 10, 20}));
  MLOperand z = b.constant({kI8, {2, 2}}, to_bytes<int8_t>({0, 1, -1, 0}));
  MLGraph g = b.build({{"y", b.quantizeLinear(x, s, z)}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({1, 2, 3, 4, 10, 20, 30, 40})}});
  EXPECT_EQ(as<int8_t>(out.at("y")), (std::vector<int8_t>{1, 2, 3, 3, 0, 1, 2, 2}));
}

TEST(RefQuantizeLinear, LowerRankScaleToInt32) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 4}});
  MLOperand s = b.input("s", {kF32, {4}});
  MLOperand z = b.input("z", {kI32, {4}});
  MLGraph g = b.build({{"y", b.quantizeLinear(x, s, z)}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<float>({3, 3, 3, 3, -8, -8, -8, -8})},
                        {"s", to_bytes<float>({1, 2, 4, 8})},
                        {"z", to_bytes<int32_t>({0, 0, 0, 100})}});
  EXPECT_EQ(as<int32_t>(out.at("y")), (std::vector<int32_t>{3, 2, 1, 100, -8, -4, -2, 99}));
}

TEST(RefQuantizeLinear, Float16ToInt8) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF16, {3}});
  MLGraph g = b.build({{"y", b.quantizeLinear(x, b.constant(kF16, 1), b.constant(kI8, 0))}});
  auto out = run_graph(c, g, {{"x", to_bytes(half_bits({1.5f, -2.5f, 300}))}});
  EXPECT_EQ(as<int8_t>(out.at("y")), (std::vector<int8_t>{2, -2, 127}));
}

TEST(RefQuantizeLinear, Int4OutputOddCountPacksLowNibbleFirst) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {5}});
  MLOperand s = b.constant({kF32, {1}}, to_bytes<float>({1}));
  MLOperand z = b.constant({kI4, {1}}, bytes_of({0x0F}));  // -1
  MLOperand y = b.quantizeLinear(x, s, z);
  ASSERT_EQ(y.dataType(), kI4);
  MLGraph g = b.build({{"y", y}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({0, 3, 100, -100, 8.5f})}});
  // -1, 2, 7 (saturated), -8 (saturated), 7 -> 0x2F, 0x87, 0x07 (the last high nibble 0).
  EXPECT_EQ(as<uint8_t>(out.at("y")), (std::vector<uint8_t>{0x2F, 0x87, 0x07}));
}

TEST(RefQuantizeLinear, Uint4BlockwiseZeroPoint) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {4}});
  MLOperand s = b.constant({kF32, {2}}, to_bytes<float>({1, 0.5f}));
  MLOperand z = b.input("z", {kU4, {2}});
  MLGraph g = b.build({{"y", b.quantizeLinear(x, s, z)}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({-3, 20, 1, -1})}, {"z", bytes_of({0x08})}});
  EXPECT_EQ(as<uint8_t>(out.at("y")), (std::vector<uint8_t>{0xF5, 0x02}));
}

TEST(RefDequantizeLinear, Int8ScalarScaleAndZeroPoint) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI8, {4}});
  MLGraph g = b.build({{"y", b.dequantizeLinear(x, b.constant(kF32, 0.5), b.constant(kI8, 1))}});
  auto out = run_graph(c, g, {{"x", to_bytes<int8_t>({-128, -1, 0, 127})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{-64.5f, -1, -0.5f, 63}));
}

TEST(RefDequantizeLinear, Uint8BlockwiseNegativeScale) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kU8, {2, 2}});
  MLOperand s = b.constant({kF32, {2, 1}}, to_bytes<float>({2, -1}));
  MLOperand z = b.constant({kU8, {2, 1}}, to_bytes<uint8_t>({10, 0}));
  MLGraph g = b.build({{"y", b.dequantizeLinear(x, s, z)}});
  auto out = run_graph(c, g, {{"x", to_bytes<uint8_t>({0, 255, 12, 3})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{-20, 490, -12, -3}));
}

TEST(RefDequantizeLinear, Int32ExtremesAndUint32Float16Overflow) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI32, {2}});
  MLOperand xs = b.constant({kF32, {1}}, to_bytes<float>({1}));
  MLOperand xz = b.constant({kI32, {1}}, to_bytes<int32_t>({-1}));
  MLOperand u = b.input("u", {kU32, {2}});
  MLOperand us = b.constant({kF16, {1}}, to_bytes(half_bits({1})));
  MLOperand uz = b.constant({kU32, {1}}, to_bytes<uint32_t>({0}));
  MLGraph g = b.build({{"y", b.dequantizeLinear(x, xs, xz)}, {"v", b.dequantizeLinear(u, us, uz)}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<int32_t>({std::numeric_limits<int32_t>::min(),
                                                 std::numeric_limits<int32_t>::max()})},
                        {"u", to_bytes<uint32_t>({4294967295u, 2048})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{-2147483648.0f, 2147483648.0f}));
  EXPECT_EQ(as<uint16_t>(out.at("v")), half_bits({INFINITY, 2048}));
}

TEST(RefDequantizeLinear, Int4OddCountToFloat16) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI4, {5}});
  MLOperand s = b.constant({kF16, {1}}, to_bytes(half_bits({0.5f})));
  MLOperand z = b.constant({kI4, {1}}, bytes_of({0x0F}));  // -1
  MLOperand y = b.dequantizeLinear(x, s, z);
  ASSERT_EQ(y.dataType(), kF16);
  MLGraph g = b.build({{"y", y}});
  // -8, 7, -1, 0, 3
  auto out = run_graph(c, g, {{"x", bytes_of({0x78, 0x0F, 0x03})}});
  EXPECT_EQ(as<uint16_t>(out.at("y")), half_bits({-3.5f, 4, 0, 0.5f, 2}));
}

TEST(RefDequantizeLinear, Uint4BlockwiseZeroPoint) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.constant({kU4, {2, 2}}, bytes_of({0xF0, 0x95}));  // 0, 15, 5, 9
  MLOperand s = b.input("s", {kF32, {2, 1}});
  MLOperand z = b.constant({kU4, {2, 1}}, bytes_of({0x18}));  // 8, 1
  MLGraph g = b.build({{"y", b.dequantizeLinear(x, s, z)}});
  auto out = run_graph(c, g, {{"s", to_bytes<float>({1, 0.25f})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{-8, 7, 1, 2}));
}

TEST(RefQuantization, RoundTripThroughInt8) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {4}});
  MLOperand s = b.constant({kF32, {2}}, to_bytes<float>({0.1f, 0.25f}));
  MLOperand z = b.constant({kI8, {2}}, to_bytes<int8_t>({0, 4}));
  MLGraph g = b.build({{"y", b.dequantizeLinear(b.quantizeLinear(x, s, z), s, z)}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({0.31f, -0.04f, 1.1f, -100})}});
  const std::vector<float> y = as<float>(out.at("y"));
  ASSERT_EQ(y.size(), 4u);
  EXPECT_FLOAT_EQ(y[0], 0.3f);
  EXPECT_FLOAT_EQ(y[1], -0.0f);
  EXPECT_FLOAT_EQ(y[2], 1.0f);
  EXPECT_FLOAT_EQ(y[3], -33.0f);  // (-128 - 4) · 0.25
}

}  // namespace
}  // namespace cppnn
