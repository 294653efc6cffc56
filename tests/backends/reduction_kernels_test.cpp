// Reference kernels of the reductions, argMin/argMax and cumulativeSum (§2 rows 1-2, 9, 69-78).
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/backends/ref_test_fixture.h"

namespace cppnn::testing {
namespace {

constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kI32 = MLOperandDataType::kInt32;
constexpr auto kU32 = MLOperandDataType::kUint32;
constexpr auto kI64 = MLOperandDataType::kInt64;
constexpr auto kU64 = MLOperandDataType::kUint64;
constexpr auto kI8 = MLOperandDataType::kInt8;
constexpr auto kU8 = MLOperandDataType::kUint8;

MLReduceOptions axes(std::vector<uint32_t> a, bool keep = false) {
  return {.axes = OptionalList<uint32_t>(std::move(a)), .keepDimensions = keep};
}

using RefReductionTest = RefGraphTest;

// Every reduction of x = [[1, -2, 3], [4, 5, -6]] along axis 1.
TEST_F(RefReductionTest, Float32AlongAxis) {
  const MLOperand x = f32({2, 3}, {1, -2, 3, 4, 5, -6});
  const auto o = axes({1});
  const auto r = run({{"l1", builder.reduceL1(x, o)},
                      {"l2", builder.reduceL2(x, o)},
                      {"logSum", builder.reduceLogSum(x, o)},
                      {"logSumExp", builder.reduceLogSumExp(x, o)},
                      {"max", builder.reduceMax(x, o)},
                      {"mean", builder.reduceMean(x, o)},
                      {"min", builder.reduceMin(x, o)},
                      {"product", builder.reduceProduct(x, o)},
                      {"sum", builder.reduceSum(x, o)},
                      {"sumSquare", builder.reduceSumSquare(x, o)}});
  auto f = [](double v) { return static_cast<float>(v); };
  ExpectFloats(as<float>(r.at("l1")), {6, 15});
  ExpectFloats(as<float>(r.at("l2")), {f(std::sqrt(14.0)), f(std::sqrt(77.0))});
  ExpectFloats(as<float>(r.at("logSum")), {f(std::log(2.0)), f(std::log(3.0))});
  const double lse0 = 3 + std::log(std::exp(1.0 - 3) + std::exp(-2.0 - 3) + 1);
  const double lse1 = 5 + std::log(std::exp(4.0 - 5) + 1 + std::exp(-6.0 - 5));
  ExpectFloats(as<float>(r.at("logSumExp")), {f(lse0), f(lse1)});
  ExpectFloats(as<float>(r.at("max")), {3, 5});
  ExpectFloats(as<float>(r.at("mean")), {f(2.0 / 3), 1});
  ExpectFloats(as<float>(r.at("min")), {-2, -6});
  ExpectFloats(as<float>(r.at("product")), {-6, -120});
  ExpectFloats(as<float>(r.at("sum")), {2, 3});
  ExpectFloats(as<float>(r.at("sumSquare")), {14, 77});
}

TEST_F(RefReductionTest, AbsentAxesReduceEverythingAndKeepDimensions) {
  const MLOperand x = f32({2, 3}, {1, -2, 3, 4, 5, -6});
  const MLOperand sum = builder.reduceSum(x, {.keepDimensions = true});
  const MLOperand max = builder.reduceMax(x);
  EXPECT_EQ(sum.shape(), (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(max.shape(), (std::vector<uint32_t>{}));
  const auto r = run({{"sum", sum}, {"max", max}});
  ExpectFloats(as<float>(r.at("sum")), {5});
  ExpectFloats(as<float>(r.at("max")), {5});
}

// axes = [] reduces nothing: each output is the function of one element.
TEST_F(RefReductionTest, EmptyAxesAreElementWise) {
  const MLOperand x = f32({3}, {-2, 0.5, 3});
  const auto none = axes({});
  const auto r = run({{"l1", builder.reduceL1(x, none)},
                      {"l2", builder.reduceL2(x, none)},
                      {"logSumExp", builder.reduceLogSumExp(x, none)},
                      {"mean", builder.reduceMean(x, none)},
                      {"sumSquare", builder.reduceSumSquare(x, none)}});
  ExpectFloats(as<float>(r.at("l1")), {2, 0.5, 3});
  ExpectFloats(as<float>(r.at("l2")), {2, 0.5, 3});
  ExpectFloats(as<float>(r.at("logSumExp")), {-2, 0.5, 3});
  ExpectFloats(as<float>(r.at("mean")), {-2, 0.5, 3});
  ExpectFloats(as<float>(r.at("sumSquare")), {4, 0.25, 9});
}

// Sums start from -0, so -0 passes through an element-wise (axes = []) reduction.
TEST_F(RefReductionTest, NegativeZeroIsKept) {
  const MLOperand x = f32({2}, {-0.0f, 1});
  const auto none = axes({});
  const auto r = run({{"sum", builder.reduceSum(x, none)},
                      {"mean", builder.reduceMean(x, none)},
                      {"logSumExp", builder.reduceLogSumExp(x, none)},
                      {"cumulative", builder.cumulativeSum(x, 0)},
                      {"exclusive", builder.cumulativeSum(x, 0, {.exclusive = true})}});
  for (const char* n : {"sum", "mean", "logSumExp", "cumulative"}) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(std::signbit(as<float>(r.at(n))[0]));
  }
  EXPECT_FALSE(std::signbit(as<float>(r.at("exclusive"))[0]));
}

// Non-adjacent axes [0, 2] of a [2, 3, 2] input, kept as 1.
TEST_F(RefReductionTest, NonAdjacentAxes) {
  std::vector<float> data(12);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  const MLOperand y = builder.reduceSum(f32({2, 3, 2}, data), axes({2, 0}, true));
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{1, 3, 1}));
  // Column j sums elements (i, j, k): 2j + 2j+1 + 6+2j + 7+2j.
  ExpectFloats(run1<float>(y), {14, 22, 30});
}

TEST_F(RefReductionTest, ScalarInput) {
  const MLOperand y = builder.reduceL1(f32({}, {-4}));
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{}));
  ExpectFloats(run1<float>(y), {4});
}

// float16 sums accumulate in double and round once: 2048 + 1 + 1 is 2050 (an fp16-by-fp16
// accumulation would stay at 2048).
TEST_F(RefReductionTest, Float16AccumulatesInDouble) {
  const MLOperand x = f16_input({3}, {2048, 1, 1});
  const auto r = run({{"sum", builder.reduceSum(x)},
                      {"mean", builder.reduceMean(x)},
                      {"l1", builder.reduceL1(x)},
                      {"max", builder.reduceMax(x)}});
  auto decode = [&](const char* n) { return f16(as<uint16_t>(r.at(n))[0]); };
  EXPECT_EQ(decode("sum"), 2050);
  EXPECT_EQ(decode("mean"), f16(h16(2050.0 / 3)));
  EXPECT_EQ(decode("l1"), 2050);
  EXPECT_EQ(decode("max"), 2048);
}

TEST_F(RefReductionTest, FloatSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const MLOperand x = f32({2, 3}, {1, nan, 3, -inf, 2, inf});
  const MLOperand big = f32({2}, {1000, 1000});
  const MLOperand neg_inf = f32({2}, {-inf, -inf});
  const MLOperand zeros = f32({2}, {0, 0});
  const auto o = axes({1});
  const auto r = run({{"max", builder.reduceMax(x, o)},
                      {"min", builder.reduceMin(x, o)},
                      {"sum", builder.reduceSum(x, o)},
                      {"lseBig", builder.reduceLogSumExp(big)},
                      {"lseNegInf", builder.reduceLogSumExp(neg_inf)},
                      {"logSumZero", builder.reduceLogSum(zeros)}});
  ExpectFloats(as<float>(r.at("max")), {nan, inf});
  ExpectFloats(as<float>(r.at("min")), {nan, -inf});
  ExpectFloats(as<float>(r.at("sum")), {nan, nan});  // -inf + inf
  // ln(2·e¹⁰⁰⁰) without overflow.
  ExpectFloats(as<float>(r.at("lseBig")), {static_cast<float>(1000 + std::log(2.0))});
  ExpectFloats(as<float>(r.at("lseNegInf")), {-inf});
  ExpectFloats(as<float>(r.at("logSumZero")), {-inf});
}

// Integer reductions wrap like two's complement hardware.
TEST_F(RefReductionTest, IntegersWrap) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const MLOperand i = input<int32_t>(kI32, {3}, {kMax, 1, 7});
  const MLOperand l1 = input<int32_t>(kI32, {3}, {-3, 4, kMin});
  const MLOperand u = input<uint32_t>(kU32, {2}, {65536, 65536});
  const MLOperand sq = input<int32_t>(kI32, {2}, {3, -4});
  const auto r = run({{"sum", builder.reduceSum(i)},
                      {"l1", builder.reduceL1(l1)},
                      {"product", builder.reduceProduct(u)},
                      {"sumSquare", builder.reduceSumSquare(sq)},
                      {"sumSquareWrap", builder.reduceSumSquare(u)}});
  EXPECT_EQ(as<int32_t>(r.at("sum"))[0], kMin + 7);
  EXPECT_EQ(as<int32_t>(r.at("l1"))[0], kMin + 7);  // |kMin| wraps to kMin
  EXPECT_EQ(as<uint32_t>(r.at("product"))[0], 0u);
  EXPECT_EQ(as<int32_t>(r.at("sumSquare"))[0], 25);
  EXPECT_EQ(as<uint32_t>(r.at("sumSquareWrap"))[0], 0u);
}

// 64-bit integers stay exact beyond 2^53 and wrap at 2^64.
TEST_F(RefReductionTest, Int64AndUint64AreExact) {
  const int64_t odd = (int64_t{1} << 53) + 1;
  const MLOperand i = input<int64_t>(kI64, {2, 2}, {odd, 2, int64_t{1} << 62, int64_t{1} << 62});
  const MLOperand u = input<uint64_t>(kU64, {3}, {~uint64_t{0}, 1, 5});
  const auto r = run({{"sum", builder.reduceSum(i, axes({1}))},
                      {"product", builder.reduceProduct(i, axes({0}))},
                      {"max", builder.reduceMax(u)},
                      {"min", builder.reduceMin(u)},
                      {"usum", builder.reduceSum(u)}});
  EXPECT_EQ(as<int64_t>(r.at("sum")),
            (std::vector<int64_t>{odd + 2, std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(as<int64_t>(r.at("product")),
            (std::vector<int64_t>{int64_t{1} << 62, std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(as<uint64_t>(r.at("max"))[0], ~uint64_t{0});
  EXPECT_EQ(as<uint64_t>(r.at("min"))[0], 1u);
  EXPECT_EQ(as<uint64_t>(r.at("usum"))[0], 5u);
}

// reduceMax and reduceMin accept the 8-bit integers.
TEST_F(RefReductionTest, EightBitMaxMin) {
  const MLOperand i = input<int8_t>(kI8, {4}, {-128, 5, 127, -1});
  const MLOperand u = input<uint8_t>(kU8, {2, 2}, {200, 3, 7, 255});
  const auto r = run({{"imax", builder.reduceMax(i)},
                      {"imin", builder.reduceMin(i)},
                      {"umax", builder.reduceMax(u, axes({0}))},
                      {"umin", builder.reduceMin(u, axes({1}))}});
  EXPECT_EQ(as<int8_t>(r.at("imax"))[0], 127);
  EXPECT_EQ(as<int8_t>(r.at("imin"))[0], -128);
  EXPECT_EQ(as<uint8_t>(r.at("umax")), (std::vector<uint8_t>{200, 255}));
  EXPECT_EQ(as<uint8_t>(r.at("umin")), (std::vector<uint8_t>{3, 7}));
}

// WPT reduce_mean.json "reduceMean float32 4D tensor options.axes": axes [0, 2] (ULP 6).
TEST_F(RefReductionTest, WptReduceMeanCase) {
  const MLOperand x =
      f32({2, 2, 2, 3},
          {95.84498596191406f, 75.6937026977539f,   1.5417721271514893f, 8.787034034729004f,
           70.08280181884766f, 13.784331321716309f, 20.006067276000977f, 94.80963897705078f,
           25.82918930053711f, 94.13260650634766f,  67.72958374023438f,  16.09935188293457f,
           92.1943359375f,     11.567352294921875f, 52.70549774169922f,  22.471792221069336f,
           3.662332534790039f, 20.210277557373047f, 58.56523132324219f,  28.673492431640625f,
           42.13419723510742f, 21.63775062561035f,  14.160697937011719f, 15.127351760864258f});
  const MLOperand y = builder.reduceMean(x, axes({0, 2}));
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 3}));
  const std::vector<float> got = run1<float>(y);
  const std::vector<float> expected{54.82453536987305f, 40.251548767089844f, 22.060470581054688f,
                                    48.58541488647461f, 51.343353271484375f, 24.797523498535156f};
  for (size_t k = 0; k < expected.size(); ++k) EXPECT_FLOAT_EQ(got[k], expected[k]) << k;
}

// ---- argMin / argMax ----------------------------------------------------------------------------

using RefArgMinMaxTest = RefGraphTest;

// Ties pick the first index (erratum §6.12).
TEST_F(RefArgMinMaxTest, FirstIndexOnTies) {
  const MLOperand x = f32({2, 3}, {1, 3, 3, 0, 0, -1});
  const auto r = run({{"max1", builder.argMax(x, 1)},
                      {"min1", builder.argMin(x, 1)},
                      {"max0", builder.argMax(x, 0)},
                      {"min0", builder.argMin(x, 0)}});
  EXPECT_EQ(as<int32_t>(r.at("max1")), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(as<int32_t>(r.at("min1")), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(as<int32_t>(r.at("max0")), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(as<int32_t>(r.at("min0")), (std::vector<int32_t>{1, 1, 1}));
}

TEST_F(RefArgMinMaxTest, Int64OutputAndKeepDimensions) {
  const MLOperand x = f16_input({2, 2, 2}, {1, 8, 3, 4, 5, 6, 9, 2});
  const MLOperand y =
      builder.argMax(x, 1, {.keepDimensions = true, .outputDataType = MLOperandDataType::kInt64});
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 1, 2}));
  EXPECT_EQ(y.dataType(), MLOperandDataType::kInt64);
  EXPECT_EQ(run1<int64_t>(y), (std::vector<int64_t>{1, 0, 1, 0}));
}

TEST_F(RefArgMinMaxTest, IntegerInputs) {
  const MLOperand i = input<int32_t>(kI32, {4}, {5, -7, 9, -7});
  const MLOperand b = input<int8_t>(kI8, {3}, {-128, 127, 127});
  const MLOperand u = input<uint64_t>(kU64, {3}, {1, ~uint64_t{0}, 0});
  const auto r = run({{"imin", builder.argMin(i, 0)},
                      {"imax", builder.argMax(i, 0)},
                      {"bmax", builder.argMax(b, 0)},
                      {"umax", builder.argMax(u, 0)},
                      {"umin", builder.argMin(u, 0)}});
  EXPECT_EQ(as<int32_t>(r.at("imin"))[0], 1);
  EXPECT_EQ(as<int32_t>(r.at("imax"))[0], 2);
  EXPECT_EQ(as<int32_t>(r.at("bmax"))[0], 1);
  EXPECT_EQ(as<int32_t>(r.at("umax"))[0], 1);
  EXPECT_EQ(as<int32_t>(r.at("umin"))[0], 2);
}

// The first NaN wins, like reduceMax/reduceMin propagating it.
TEST_F(RefArgMinMaxTest, NaNWins) {
  const MLOperand x = f32({4}, {1, std::nanf(""), 5, std::nanf("")});
  const auto r = run({{"max", builder.argMax(x, 0)}, {"min", builder.argMin(x, 0)}});
  EXPECT_EQ(as<int32_t>(r.at("max"))[0], 1);
  EXPECT_EQ(as<int32_t>(r.at("min"))[0], 1);
}

// ---- cumulativeSum ------------------------------------------------------------------------------

using RefCumulativeSumTest = RefGraphTest;

TEST_F(RefCumulativeSumTest, ExclusiveAndReversed) {
  const MLOperand x = f32({4}, {1, 2, 3, 4});
  const auto r =
      run({{"plain", builder.cumulativeSum(x, 0)},
           {"exclusive", builder.cumulativeSum(x, 0, {.exclusive = true})},
           {"reversed", builder.cumulativeSum(x, 0, {.reversed = true})},
           {"both", builder.cumulativeSum(x, 0, {.exclusive = true, .reversed = true})}});
  ExpectFloats(as<float>(r.at("plain")), {1, 3, 6, 10});
  ExpectFloats(as<float>(r.at("exclusive")), {0, 1, 3, 6});
  ExpectFloats(as<float>(r.at("reversed")), {10, 9, 7, 4});
  ExpectFloats(as<float>(r.at("both")), {9, 7, 4, 0});
}

TEST_F(RefCumulativeSumTest, AlongEachAxisOf2D) {
  const MLOperand x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto r = run({{"axis0", builder.cumulativeSum(x, 0)},
                      {"axis1", builder.cumulativeSum(x, 1, {.reversed = true})}});
  ExpectFloats(as<float>(r.at("axis0")), {1, 2, 3, 5, 7, 9});
  ExpectFloats(as<float>(r.at("axis1")), {6, 5, 3, 15, 11, 6});
}

// The running sum is kept in double; each output rounds once to float16.
TEST_F(RefCumulativeSumTest, Float16RunningSumInDouble) {
  const MLOperand y = builder.cumulativeSum(f16_input({3}, {2048, 1, 1}), 0);
  // 2049 is a tie between 2048 and 2050 and rounds to even 2048; 2050 is exact.
  ExpectFloats(run_f16(y), {2048, 2048, 2050});
}

TEST_F(RefCumulativeSumTest, IntegersWrap) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const MLOperand i = input<int32_t>(kI32, {3}, {kMax, 1, -2});
  const MLOperand u = input<uint64_t>(kU64, {2}, {~uint64_t{0}, 3});
  const MLOperand l = input<int64_t>(kI64, {2, 2}, {1, 2, 3, 4});
  const auto r = run({{"i", builder.cumulativeSum(i, 0)},
                      {"u", builder.cumulativeSum(u, 0, {.exclusive = true})},
                      {"l", builder.cumulativeSum(l, 0, {.reversed = true})}});
  EXPECT_EQ(as<int32_t>(r.at("i")),
            (std::vector<int32_t>{kMax, std::numeric_limits<int32_t>::min(), kMax - 1}));
  EXPECT_EQ(as<uint64_t>(r.at("u")), (std::vector<uint64_t>{0, ~uint64_t{0}}));
  EXPECT_EQ(as<int64_t>(r.at("l")), (std::vector<int64_t>{4, 6, 3, 4}));
}

}  // namespace
}  // namespace cppnn::testing
