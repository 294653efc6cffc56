// Reference backend: concat, split, reshape, expand, pad, slice, tile, transpose, triangular,
// reverse and where (§2 rows 6, 47, 64, 81, 82, 86, 90, 92-95). These ops move elements, so every
// case checks exact bits, including float16 NaN payloads and -0.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/ref_test_fixture.h"

namespace cppnn::testing {
namespace {

constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kF16 = MLOperandDataType::kFloat16;
constexpr auto kI32 = MLOperandDataType::kInt32;
constexpr auto kI8 = MLOperandDataType::kInt8;
constexpr auto kU8 = MLOperandDataType::kUint8;

using F = std::vector<float>;
using H = std::vector<uint16_t>;
using I = std::vector<int32_t>;

constexpr uint16_t kHalfNegZero = 0x8000;
constexpr uint16_t kHalfQuietNaNPayload = 0x7e01;
constexpr uint16_t kHalfSignalingNaN = 0xfc01;

// 0, 1, ..., n-1 as T.
template <class T>
std::vector<T> iota_of(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(i);
  return v;
}

// Float32 bit patterns (NaN payloads, -0) compare exactly.
std::vector<uint32_t> bits_of(const F& v) {
  std::vector<uint32_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

using RefConcat = RefGraphTest;

TEST_F(RefConcat, Float32Axis1OfThreeInputs) {
  MLOperand a = f32({2, 1}, {1, 2});
  MLOperand b = f32({2, 2}, {3, 4, 5, 6});
  MLOperand c = f32({2, 1}, {7, 8});
  EXPECT_EQ(run1<float>(builder.concat({a, b, c}, 1)), (F{1, 3, 4, 7, 2, 5, 6, 8}));
}

TEST_F(RefConcat, Int32Axis0AndTheSameOperandTwice) {
  MLOperand a = input<int32_t>(kI32, {1, 3}, {1, -2, 3});
  MLOperand b = input<int32_t>(kI32, {2, 3}, {4, 5, 6, 7, 8, std::numeric_limits<int32_t>::min()});
  EXPECT_EQ(run1<int32_t>(builder.concat({a, b, a}, 0)),
            (I{1, -2, 3, 4, 5, 6, 7, 8, std::numeric_limits<int32_t>::min(), 1, -2, 3}));
}

TEST_F(RefConcat, Float16KeepsBitsOnTheMiddleAxis) {
  MLOperand a = input<uint16_t>(kF16, {2, 1, 2}, {kHalfNegZero, kHalfQuietNaNPayload, 1, 2});
  MLOperand b = input<uint16_t>(kF16, {2, 2, 2}, {3, 4, 5, 6, 7, 8, kHalfSignalingNaN, 9});
  EXPECT_EQ(run1<uint16_t>(builder.concat({a, b}, 1)),
            (H{kHalfNegZero, kHalfQuietNaNPayload, 3, 4, 5, 6, 1, 2, 7, 8, kHalfSignalingNaN, 9}));
}

TEST_F(RefConcat, SingleInput) {
  MLOperand a = f32({3}, {-0.0f, 1, 2});
  EXPECT_EQ(bits_of(run1<float>(builder.concat({a}, 0))), bits_of(F{-0.0f, 1, 2}));
}

using RefSplit = RefGraphTest;

TEST_F(RefSplit, CountAlongAxis1) {
  MLOperand x = f32({2, 6}, iota_of<float>(12));
  auto parts = builder.split(x, 3, {.axis = 1});
  ASSERT_EQ(parts.size(), 3u);
  auto out = run({{"a", parts[0]}, {"b", parts[1]}, {"c", parts[2]}});
  EXPECT_EQ(as<float>(out.at("a")), (F{0, 1, 6, 7}));
  EXPECT_EQ(as<float>(out.at("b")), (F{2, 3, 8, 9}));
  EXPECT_EQ(as<float>(out.at("c")), (F{4, 5, 10, 11}));
}

TEST_F(RefSplit, SizesAlongAxis0Int32) {
  MLOperand x = input<int32_t>(kI32, {4, 2}, iota_of<int32_t>(8));
  auto parts = builder.split(x, std::vector<uint32_t>{1, 3});
  auto out = run({{"a", parts[0]}, {"b", parts[1]}});
  EXPECT_EQ(as<int32_t>(out.at("a")), (I{0, 1}));
  EXPECT_EQ(as<int32_t>(out.at("b")), (I{2, 3, 4, 5, 6, 7}));
}

TEST_F(RefSplit, Float16LastAxisKeepsBits) {
  MLOperand x = input<uint16_t>(kF16, {2, 3}, {kHalfNegZero, 1, 2, 3, kHalfQuietNaNPayload, 5});
  auto parts = builder.split(x, std::vector<uint32_t>{2, 1}, {.axis = 1});
  auto out = run({{"a", parts[0]}, {"b", parts[1]}});
  EXPECT_EQ(as<uint16_t>(out.at("a")), (H{kHalfNegZero, 1, 3, kHalfQuietNaNPayload}));
  EXPECT_EQ(as<uint16_t>(out.at("b")), (H{2, 5}));
}

using RefReshape = RefGraphTest;

TEST_F(RefReshape, Float32ToAnotherShape) {
  MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  MLOperand y = builder.reshape(x, {3, 1, 2});
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{3, 1, 2}));
  EXPECT_EQ(run1<float>(y), (F{1, 2, 3, 4, 5, 6}));
}

TEST_F(RefReshape, Int8AndUint8AndScalar) {
  MLOperand a = input<int8_t>(kI8, {4}, {-128, -1, 0, 127});
  MLOperand b = input<uint8_t>(kU8, {1, 1}, {255});
  auto out = run({{"a", builder.reshape(a, {2, 2})}, {"b", builder.reshape(b, {})}});
  EXPECT_EQ(as<int8_t>(out.at("a")), (std::vector<int8_t>{-128, -1, 0, 127}));
  EXPECT_EQ(as<uint8_t>(out.at("b")), (std::vector<uint8_t>{255}));
}

TEST_F(RefReshape, ChainedThroughAnIntermediate) {
  MLOperand x = input<uint16_t>(kF16, {4}, {kHalfNegZero, kHalfSignalingNaN, 3, 4});
  EXPECT_EQ(run1<uint16_t>(builder.reshape(builder.reshape(x, {2, 2}), {4, 1})),
            (H{kHalfNegZero, kHalfSignalingNaN, 3, 4}));
}

using RefExpand = RefGraphTest;

TEST_F(RefExpand, Float32ToHigherRank) {
  MLOperand x = f32({3, 1}, {1, 2, 3});
  MLOperand y = builder.expand(x, {2, 3, 2});
  EXPECT_EQ(run1<float>(y), (F{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST_F(RefExpand, MiddleBroadcastInt32) {
  MLOperand x = input<int32_t>(kI32, {2, 1, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run1<int32_t>(builder.expand(x, {2, 3, 2})), (I{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST_F(RefExpand, Float16ScalarKeepsNaNPayload) {
  MLOperand x = input<uint16_t>(kF16, {}, {kHalfQuietNaNPayload});
  EXPECT_EQ(run1<uint16_t>(builder.expand(x, {2, 2})), H(4, kHalfQuietNaNPayload));
}

TEST_F(RefExpand, SameShapeIsACopy) {
  MLOperand x = f32({2, 2}, {1, -0.0f, 3, 4});
  EXPECT_EQ(bits_of(run1<float>(builder.expand(x, {2, 2}))), bits_of(F{1, -0.0f, 3, 4}));
}

using RefPad = RefGraphTest;

TEST_F(RefPad, ConstantDefaultZero) {
  MLOperand x = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run1<float>(builder.pad(x, {1, 0}, {0, 2})), (F{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
}

TEST_F(RefPad, ConstantValue) {
  MLOperand x = f32({1, 3}, {1, 2, 3});
  EXPECT_EQ(run1<float>(builder.pad(x, {0, 2}, {1, 1}, {.value = 2.5})),
            (F{2.5, 2.5, 1, 2, 3, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5}));
}

TEST_F(RefPad, ConstantValueCastToFloat16) {
  // 0.1 rounds to the nearest float16; 1e6 overflows to +Inf; NaN stays NaN.
  MLOperand x = input<uint16_t>(kF16, {2}, {kHalfNegZero, kHalfSignalingNaN});
  auto out =
      run({{"a", builder.pad(x, {1}, {0}, {.value = 0.1})},
           {"b", builder.pad(x, {0}, {1}, {.value = 1e6})},
           {"c", builder.pad(x, {1}, {1}, {.value = std::numeric_limits<double>::quiet_NaN()})}});
  EXPECT_EQ(as<uint16_t>(out.at("a")), (H{h16(0.1), kHalfNegZero, kHalfSignalingNaN}));
  EXPECT_EQ(as<uint16_t>(out.at("b")), (H{kHalfNegZero, kHalfSignalingNaN, 0x7c00}));
  const H c = as<uint16_t>(out.at("c"));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_TRUE(std::isnan(f16(c[0])));
  EXPECT_EQ(c[1], kHalfNegZero);
  EXPECT_EQ(c[2], kHalfSignalingNaN);
  EXPECT_TRUE(std::isnan(f16(c[3])));
}

TEST_F(RefPad, Edge2d) {
  MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run1<float>(builder.pad(x, {1, 2}, {1, 1}, {.mode = MLPaddingMode::kEdge})),
            (F{1, 1, 1, 2, 3, 3,  //
               1, 1, 1, 2, 3, 3,  //
               4, 4, 4, 5, 6, 6,  //
               4, 4, 4, 5, 6, 6}));
}

TEST_F(RefPad, Reflection2d) {
  MLOperand x = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(run1<float>(builder.pad(x, {1, 2}, {2, 1}, {.mode = MLPaddingMode::kReflection})),
            (F{6, 5, 4, 5, 6, 5,  //
               3, 2, 1, 2, 3, 2,  //
               6, 5, 4, 5, 6, 5,  //
               9, 8, 7, 8, 9, 8,  //
               6, 5, 4, 5, 6, 5,  //
               3, 2, 1, 2, 3, 2}));
}

TEST_F(RefPad, ReflectionAndEdge3dFloat16) {
  MLOperand x = input<uint16_t>(kF16, {2, 1, 2}, {1, kHalfNegZero, 3, kHalfQuietNaNPayload});
  auto out =
      run({{"e", builder.pad(x, {1, 1, 0}, {0, 0, 1}, {.mode = MLPaddingMode::kEdge})},
           {"r", builder.pad(x, {1, 0, 1}, {0, 0, 0}, {.mode = MLPaddingMode::kReflection})}});
  EXPECT_EQ(as<uint16_t>(out.at("e")),
            (H{1, kHalfNegZero, kHalfNegZero, 1, kHalfNegZero, kHalfNegZero,  //
               1, kHalfNegZero, kHalfNegZero, 1, kHalfNegZero, kHalfNegZero,  //
               3, kHalfQuietNaNPayload, kHalfQuietNaNPayload, 3, kHalfQuietNaNPayload,
               kHalfQuietNaNPayload}));
  EXPECT_EQ(as<uint16_t>(out.at("r")), (H{kHalfQuietNaNPayload, 3, kHalfQuietNaNPayload,  //
                                          kHalfNegZero, 1, kHalfNegZero,                  //
                                          kHalfQuietNaNPayload, 3, kHalfQuietNaNPayload}));
}

TEST_F(RefPad, ScalarAndNoPadding) {
  MLOperand s = f32({}, {7});
  MLOperand x = f32({2}, {1, 2});
  auto out = run({{"s", builder.pad(s, {}, {}, {.value = 3})},
                  {"x", builder.pad(x, {0}, {0}, {.mode = MLPaddingMode::kReflection})}});
  EXPECT_EQ(as<float>(out.at("s")), (F{7}));
  EXPECT_EQ(as<float>(out.at("x")), (F{1, 2}));
}

using RefSlice = RefGraphTest;

TEST_F(RefSlice, Float32StartsAndSizes) {
  MLOperand x = f32({3, 4}, iota_of<float>(12));
  EXPECT_EQ(run1<float>(builder.slice(x, {1, 1}, {2, 2})), (F{5, 6, 9, 10}));
}

TEST_F(RefSlice, Strides) {
  MLOperand x = input<int32_t>(kI32, {3, 5}, iota_of<int32_t>(15));
  MLOperand y = builder.slice(x, {0, 1}, {3, 4}, {.strides = std::vector<uint32_t>{2, 3}});
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(run1<int32_t>(y), (I{1, 4, 11, 14}));
}

TEST_F(RefSlice, Int8Uint8AndFloat16Bits) {
  MLOperand a = input<int8_t>(kI8, {4}, {-128, -1, 1, 127});
  MLOperand b = input<uint8_t>(kU8, {2, 2}, {1, 2, 3, 255});
  MLOperand c = input<uint16_t>(kF16, {3}, {1, kHalfNegZero, kHalfSignalingNaN});
  auto out = run({{"a", builder.slice(a, {1}, {3})},
                  {"b", builder.slice(b, {1, 0}, {1, 2})},
                  {"c", builder.slice(c, {1}, {2})}});
  EXPECT_EQ(as<int8_t>(out.at("a")), (std::vector<int8_t>{-1, 1, 127}));
  EXPECT_EQ(as<uint8_t>(out.at("b")), (std::vector<uint8_t>{3, 255}));
  EXPECT_EQ(as<uint16_t>(out.at("c")), (H{kHalfNegZero, kHalfSignalingNaN}));
}

TEST_F(RefSlice, WholeTensorAndScalar) {
  MLOperand x = f32({2, 2}, {1, 2, 3, 4});
  MLOperand s = f32({}, {5});
  auto out = run({{"x", builder.slice(x, {0, 0}, {2, 2})}, {"s", builder.slice(s, {}, {})}});
  EXPECT_EQ(as<float>(out.at("x")), (F{1, 2, 3, 4}));
  EXPECT_EQ(as<float>(out.at("s")), (F{5}));
}

using RefTile = RefGraphTest;

TEST_F(RefTile, Float32TwoDims) {
  MLOperand x = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run1<float>(builder.tile(x, {2, 3})), (F{1, 2, 1, 2, 1, 2,  //
                                                     3, 4, 3, 4, 3, 4,  //
                                                     1, 2, 1, 2, 1, 2,  //
                                                     3, 4, 3, 4, 3, 4}));
}

TEST_F(RefTile, Int32AndFloat16Bits) {
  MLOperand a = input<int32_t>(kI32, {3}, {-1, 0, 1});
  MLOperand b = input<uint16_t>(kF16, {1, 2}, {kHalfNegZero, kHalfQuietNaNPayload});
  auto out = run({{"a", builder.tile(a, {2})}, {"b", builder.tile(b, {2, 1})}});
  EXPECT_EQ(as<int32_t>(out.at("a")), (I{-1, 0, 1, -1, 0, 1}));
  EXPECT_EQ(as<uint16_t>(out.at("b")),
            (H{kHalfNegZero, kHalfQuietNaNPayload, kHalfNegZero, kHalfQuietNaNPayload}));
}

TEST_F(RefTile, ScalarAndOnes) {
  MLOperand s = f32({}, {9});
  MLOperand x = f32({1, 2}, {1, 2});
  auto out = run({{"s", builder.tile(s, {})}, {"x", builder.tile(x, {1, 1})}});
  EXPECT_EQ(as<float>(out.at("s")), (F{9}));
  EXPECT_EQ(as<float>(out.at("x")), (F{1, 2}));
}

using RefTranspose = RefGraphTest;

TEST_F(RefTranspose, DefaultReversesDimensions) {
  MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  MLOperand y = builder.transpose(x);
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(run1<float>(y), (F{1, 4, 2, 5, 3, 6}));
}

TEST_F(RefTranspose, Permutation3dInt32) {
  MLOperand x = input<int32_t>(kI32, {2, 3, 2}, iota_of<int32_t>(12));
  MLOperand y = builder.transpose(x, {.permutation = std::vector<uint32_t>{1, 0, 2}});
  EXPECT_EQ(run1<int32_t>(y), (I{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
}

TEST_F(RefTranspose, Float16Bits4dAndIdentity) {
  MLOperand x = input<uint16_t>(kF16, {1, 2, 1, 2}, {kHalfNegZero, 1, kHalfSignalingNaN, 2});
  auto out = run({{"t", builder.transpose(x, {.permutation = std::vector<uint32_t>{0, 3, 2, 1}})},
                  {"i", builder.transpose(x, {.permutation = std::vector<uint32_t>{0, 1, 2, 3}})}});
  EXPECT_EQ(as<uint16_t>(out.at("t")), (H{kHalfNegZero, kHalfSignalingNaN, 1, 2}));
  EXPECT_EQ(as<uint16_t>(out.at("i")), (H{kHalfNegZero, 1, kHalfSignalingNaN, 2}));
}

TEST_F(RefTranspose, Scalar) {
  MLOperand s = f32({}, {3});
  EXPECT_EQ(run1<float>(builder.transpose(s)), (F{3}));
}

using RefTriangular = RefGraphTest;

TEST_F(RefTriangular, UpperAndLowerWithDiagonals) {
  MLOperand x = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = run({{"u0", builder.triangular(x)},
                  {"u1", builder.triangular(x, {.diagonal = 1})},
                  {"um1", builder.triangular(x, {.diagonal = -1})},
                  {"l0", builder.triangular(x, {.upper = false})},
                  {"l1", builder.triangular(x, {.upper = false, .diagonal = 1})},
                  {"lm1", builder.triangular(x, {.upper = false, .diagonal = -1})}});
  EXPECT_EQ(as<float>(out.at("u0")), (F{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  EXPECT_EQ(as<float>(out.at("u1")), (F{0, 2, 3, 0, 0, 6, 0, 0, 0}));
  EXPECT_EQ(as<float>(out.at("um1")), (F{1, 2, 3, 4, 5, 6, 0, 8, 9}));
  EXPECT_EQ(as<float>(out.at("l0")), (F{1, 0, 0, 4, 5, 0, 7, 8, 9}));
  EXPECT_EQ(as<float>(out.at("l1")), (F{1, 2, 0, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(as<float>(out.at("lm1")), (F{0, 0, 0, 4, 0, 0, 7, 8, 0}));
}

TEST_F(RefTriangular, DiagonalsBeyondTheMatrix) {
  MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = run({{"a", builder.triangular(x, {.diagonal = 5})},
                  {"b", builder.triangular(x, {.diagonal = -5})},
                  {"c", builder.triangular(x, {.upper = false, .diagonal = 5})},
                  {"d", builder.triangular(x, {.upper = false, .diagonal = -5})},
                  {"e", builder.triangular(x, {.diagonal = std::numeric_limits<int32_t>::min()})},
                  {"f", builder.triangular(x, {.upper = false,
                                               .diagonal = std::numeric_limits<int32_t>::max()})}});
  EXPECT_EQ(as<float>(out.at("a")), F(6, 0));
  EXPECT_EQ(as<float>(out.at("b")), (F{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(as<float>(out.at("c")), (F{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(as<float>(out.at("d")), F(6, 0));
  EXPECT_EQ(as<float>(out.at("e")), (F{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(as<float>(out.at("f")), (F{1, 2, 3, 4, 5, 6}));
}

TEST_F(RefTriangular, BatchedFloat16ZerosArePositive) {
  // Kept elements keep their bits (-0, NaN payload); removed ones become +0.
  MLOperand x = input<uint16_t>(
      kF16, {2, 2, 2},
      {kHalfNegZero, kHalfNegZero, kHalfSignalingNaN, kHalfQuietNaNPayload, 1, 2, 3, 4});
  auto out = run({{"u", builder.triangular(x)}, {"l", builder.triangular(x, {.upper = false})}});
  EXPECT_EQ(as<uint16_t>(out.at("u")),
            (H{kHalfNegZero, kHalfNegZero, 0, kHalfQuietNaNPayload, 1, 2, 0, 4}));
  EXPECT_EQ(as<uint16_t>(out.at("l")),
            (H{kHalfNegZero, 0, kHalfSignalingNaN, kHalfQuietNaNPayload, 1, 0, 3, 4}));
}

TEST_F(RefTriangular, WideAndTallMatrices) {
  MLOperand w = f32({2, 4}, iota_of<float>(8));
  MLOperand t = f32({4, 2}, iota_of<float>(8));
  auto out = run({{"w", builder.triangular(w, {.diagonal = 1})},
                  {"t", builder.triangular(t, {.upper = false, .diagonal = -1})}});
  EXPECT_EQ(as<float>(out.at("w")), (F{0, 1, 2, 3, 0, 0, 6, 7}));
  EXPECT_EQ(as<float>(out.at("t")), (F{0, 0, 2, 0, 4, 5, 6, 7}));
}

using RefReverse = RefGraphTest;

TEST_F(RefReverse, DefaultReversesEveryAxis) {
  MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run1<float>(builder.reverse(x)), (F{6, 5, 4, 3, 2, 1}));
}

TEST_F(RefReverse, ListedAxesAndNone) {
  MLOperand x = input<int32_t>(kI32, {2, 2, 2}, iota_of<int32_t>(8));
  auto out = run({{"a", builder.reverse(x, {.axes = std::vector<uint32_t>{1}})},
                  {"b", builder.reverse(x, {.axes = std::vector<uint32_t>{2, 0}})},
                  {"c", builder.reverse(x, {.axes = std::vector<uint32_t>{}})}});
  EXPECT_EQ(as<int32_t>(out.at("a")), (I{2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_EQ(as<int32_t>(out.at("b")), (I{5, 4, 7, 6, 1, 0, 3, 2}));
  EXPECT_EQ(as<int32_t>(out.at("c")), (I{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(RefReverse, Float16BitsAndScalar) {
  MLOperand x = input<uint16_t>(kF16, {3}, {kHalfNegZero, 1, kHalfSignalingNaN});
  MLOperand s = f32({}, {4});
  auto out = run({{"x", builder.reverse(x)}, {"s", builder.reverse(s)}});
  EXPECT_EQ(as<uint16_t>(out.at("x")), (H{kHalfSignalingNaN, 1, kHalfNegZero}));
  EXPECT_EQ(as<float>(out.at("s")), (F{4}));
}

using RefWhere = RefGraphTest;

TEST_F(RefWhere, NonzeroConditionSelectsTrueValue) {
  MLOperand c = input<uint8_t>(kU8, {4}, {0, 1, 2, 255});
  MLOperand t = f32({4}, {1, 2, 3, 4});
  MLOperand f = f32({4}, {-1, -2, -3, -4});
  EXPECT_EQ(run1<float>(builder.where(c, t, f)), (F{-1, 2, 3, 4}));
}

TEST_F(RefWhere, BroadcastsAllThree) {
  MLOperand c = input<uint8_t>(kU8, {2, 1}, {1, 0});
  MLOperand t = input<int32_t>(kI32, {3}, {1, 2, 3});
  MLOperand f = input<int32_t>(kI32, {}, {-7});
  MLOperand y = builder.where(c, t, f);
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(run1<int32_t>(y), (I{1, 2, 3, -7, -7, -7}));
}

TEST_F(RefWhere, ConditionWiderThanValues) {
  MLOperand c = input<uint8_t>(kU8, {2, 2}, {1, 0, 0, 1});
  MLOperand t = f32({1}, {5});
  MLOperand f = f32({2, 1}, {6, 7});
  EXPECT_EQ(run1<float>(builder.where(c, t, f)), (F{5, 6, 7, 5}));
}

TEST_F(RefWhere, Float16KeepsBits) {
  MLOperand c = input<uint8_t>(kU8, {3}, {1, 0, 1});
  MLOperand t = input<uint16_t>(kF16, {3}, {kHalfNegZero, 1, kHalfSignalingNaN});
  MLOperand f = input<uint16_t>(kF16, {3}, {2, kHalfQuietNaNPayload, 3});
  EXPECT_EQ(run1<uint16_t>(builder.where(c, t, f)),
            (H{kHalfNegZero, kHalfQuietNaNPayload, kHalfSignalingNaN}));
}

}  // namespace
}  // namespace cppnn::testing
