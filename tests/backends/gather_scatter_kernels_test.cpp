// Reference backend: gather, gatherElements, gatherND, scatterElements and scatterND (§2 rows
// 48-50, 83-84), with index clamping and wrapping (§6.12), every index type and several element
// widths.
#include <gtest/gtest.h>

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
constexpr auto kI64 = MLOperandDataType::kInt64;
constexpr auto kI8 = MLOperandDataType::kInt8;
constexpr auto kU8 = MLOperandDataType::kUint8;

TEST(RefGather, Float32Axis0ClampsThenWrapsIndices) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {3, 2}});
  MLOperand i = b.input("i", {kI32, {4}});
  MLGraph g = b.build({{"y", b.gather(x, i)}});
  auto out = run_graph(
      c, g,
      {{"x", to_bytes<float>({1, 2, 3, 4, 5, 6})}, {"i", to_bytes<int32_t>({0, -1, 10, -10})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 2, 5, 6, 5, 6, 1, 2}));
}

TEST(RefGather, Float16Axis1Uint32Indices) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF16, {2, 3}});
  MLOperand i = b.input("i", {kU32, {2, 1}});
  MLOperand y = b.gather(x, i, {.axis = 1});
  ASSERT_EQ(y.shape(), (std::vector<uint32_t>{2, 2, 1}));
  MLGraph g = b.build({{"y", y}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes(half_bits({1, 2, 3, 4, 5, 6}))},
                        {"i", to_bytes<uint32_t>({1, 4000000000u})}});
  EXPECT_EQ(as<uint16_t>(out.at("y")), half_bits({2, 3, 5, 6}));
}

TEST(RefGather, Int64DataScalarInt64Index) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI64, {3}});
  MLOperand i = b.input("i", {kI64, {}});
  MLOperand y = b.gather(x, i);
  ASSERT_TRUE(y.shape().empty());
  MLGraph g = b.build({{"y", y}});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto out = run_graph(c, g,
                       {{"x", to_bytes<int64_t>({std::numeric_limits<int64_t>::min(), 5, kMax})},
                        {"i", to_bytes<int64_t>({-1})}});
  EXPECT_EQ(as<int64_t>(out.at("y")), (std::vector<int64_t>{kMax}));
}

TEST(RefGather, Int8MiddleAxisWithInnerBlocks) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI8, {2, 3, 2}});
  MLOperand i = b.input("i", {kI32, {2}});
  MLGraph g = b.build({{"y", b.gather(x, i, {.axis = 1})}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<int8_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -128})},
                        {"i", to_bytes<int32_t>({2, 0})}});
  EXPECT_EQ(as<int8_t>(out.at("y")), (std::vector<int8_t>{4, 5, 0, 1, 10, -128, 6, 7}));
}

TEST(RefGatherElements, Axis1Int64Indices) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 2}});
  MLOperand i = b.input("i", {kI64, {2, 3}});
  MLOperand y = b.gatherElements(x, i, {.axis = 1});
  ASSERT_EQ(y.shape(), (std::vector<uint32_t>{2, 3}));
  MLGraph g = b.build({{"y", y}});
  auto out = run_graph(
      c, g, {{"x", to_bytes<float>({1, 2, 3, 4})}, {"i", to_bytes<int64_t>({0, 0, 1, 1, 0, -1})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 1, 2, 4, 3, 4}));
}

TEST(RefGatherElements, Axis0Int32OutOfRangeClamps) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI32, {3, 2}});
  MLOperand i = b.input("i", {kU32, {1, 2}});
  MLGraph g = b.build({{"y", b.gatherElements(x, i)}});
  auto out = run_graph(
      c, g,
      {{"x", to_bytes<int32_t>({10, 11, 20, 21, 30, 31})}, {"i", to_bytes<uint32_t>({1, 99})}});
  EXPECT_EQ(as<int32_t>(out.at("y")), (std::vector<int32_t>{20, 31}));
}

TEST(RefGatherND, PointsSlicesAndOutOfRange) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 2}});
  MLOperand points = b.input("p", {kI32, {3, 2}});
  MLOperand rows = b.input("r", {kI64, {2, 1}});
  MLOperand y = b.gatherND(x, points);
  MLOperand z = b.gatherND(x, rows);
  ASSERT_EQ(y.shape(), (std::vector<uint32_t>{3}));
  ASSERT_EQ(z.shape(), (std::vector<uint32_t>{2, 2}));
  MLGraph g = b.build({{"y", y}, {"z", z}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<float>({0, 1, 2, 3})},
                        {"p", to_bytes<int32_t>({0, 0, 1, -1, 5, -7})},
                        {"r", to_bytes<int64_t>({-1, 0})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{0, 3, 2}));
  EXPECT_EQ(as<float>(out.at("z")), (std::vector<float>{2, 3, 0, 1}));
}

TEST(RefGatherND, Uint8Uint32Indices) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kU8, {2, 2, 2}});
  MLOperand i = b.input("i", {kU32, {1, 2}});
  MLGraph g = b.build({{"y", b.gatherND(x, i)}});
  auto out = run_graph(
      c, g,
      {{"x", to_bytes<uint8_t>({0, 1, 2, 3, 4, 5, 6, 255})}, {"i", to_bytes<uint32_t>({1, 1})}});
  EXPECT_EQ(as<uint8_t>(out.at("y")), (std::vector<uint8_t>{6, 255}));
}

TEST(RefScatterElements, Axis0AndAxis1) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {3, 3}});
  MLOperand i = b.input("i", {kI32, {2, 3}});
  MLOperand u = b.input("u", {kF32, {2, 3}});
  MLOperand x1 = b.input("x1", {kI32, {1, 5}});
  MLOperand i1 = b.input("i1", {kI64, {1, 2}});
  MLOperand u1 = b.input("u1", {kI32, {1, 2}});
  MLGraph g = b.build(
      {{"y", b.scatterElements(x, i, u)}, {"y1", b.scatterElements(x1, i1, u1, {.axis = 1})}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<float>({0, 0, 0, 0, 0, 0, 0, 0, 0})},
                        {"i", to_bytes<int32_t>({1, 0, 2, 0, 2, 1})},
                        {"u", to_bytes<float>({1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})},
                        {"x1", to_bytes<int32_t>({1, 2, 3, 4, 5})},
                        {"i1", to_bytes<int64_t>({1, -2})},
                        {"u1", to_bytes<int32_t>({-11, -21})}});
  EXPECT_EQ(as<float>(out.at("y")),
            (std::vector<float>{2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
  EXPECT_EQ(as<int32_t>(out.at("y1")), (std::vector<int32_t>{1, -11, 3, -21, 5}));
}

TEST(RefScatterElements, DuplicatesLastWinsAndClamps) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF16, {3}});
  MLOperand i = b.input("i", {kU32, {3}});
  MLOperand u = b.input("u", {kF16, {3}});
  MLGraph g = b.build({{"y", b.scatterElements(x, i, u)}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes(half_bits({1, 2, 3}))},
                        {"i", to_bytes<uint32_t>({0, 0, 7})},
                        {"u", to_bytes(half_bits({-1, -2, -3}))}});
  EXPECT_EQ(as<uint16_t>(out.at("y")), half_bits({-2, 2, -3}));
}

TEST(RefScatterND, ElementsAndSlices) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {8}});
  MLOperand i = b.input("i", {kI64, {4, 1}});
  MLOperand u = b.input("u", {kF32, {4}});
  MLOperand x3 = b.input("x3", {kI32, {2, 2, 2}});
  MLOperand i3 = b.input("i3", {kI32, {1, 1}});
  MLOperand u3 = b.input("u3", {kI32, {1, 2, 2}});
  MLGraph g = b.build({{"y", b.scatterND(x, i, u)}, {"y3", b.scatterND(x3, i3, u3)}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<float>({1, 2, 3, 4, 5, 6, 7, 8})},
                        {"i", to_bytes<int64_t>({4, 3, 1, -1})},
                        {"u", to_bytes<float>({9, 10, 11, 12})},
                        {"x3", to_bytes<int32_t>({1, 2, 3, 4, 5, 6, 7, 8})},
                        {"i3", to_bytes<int32_t>({-1})},
                        {"u3", to_bytes<int32_t>({-5, -6, -7, -8})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  EXPECT_EQ(as<int32_t>(out.at("y3")), (std::vector<int32_t>{1, 2, 3, 4, -5, -6, -7, -8}));
}

// WPT scatterND "2D int8 tensors with index out of bound": 2147483647 clamps to the last row.
TEST(RefScatterND, Int8OutOfBoundIndexClamps) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kI8, {2, 1}});
  MLOperand i = b.input("i", {kI32, {1, 1}});
  MLOperand u = b.input("u", {kI8, {1, 1}});
  MLGraph g = b.build({{"y", b.scatterND(x, i, u)}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<int8_t>({0, 0})},
                        {"i", to_bytes<int32_t>({2147483647})},
                        {"u", to_bytes<int8_t>({1})}});
  EXPECT_EQ(as<int8_t>(out.at("y")), (std::vector<int8_t>{0, 1}));
}

TEST(RefScatterND, ConstantInputIsNotModified) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  const std::vector<float> data{1, 2, 3};
  MLOperand x = b.constant({kF32, {3}}, to_bytes(data));
  MLOperand i = b.input("i", {kU32, {1, 1}});
  MLOperand u = b.input("u", {kF32, {1}});
  MLGraph g = b.build({{"y", b.scatterND(x, i, u)}});
  for (uint32_t k = 0; k < 3; ++k) {
    auto out = run_graph(c, g, {{"i", to_bytes<uint32_t>({k})}, {"u", to_bytes<float>({9})}});
    std::vector<float> expected = data;
    expected[k] = 9;
    EXPECT_EQ(as<float>(out.at("y")), expected);
  }
}

}  // namespace
}  // namespace cppnn
