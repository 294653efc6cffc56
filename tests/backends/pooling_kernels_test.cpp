// Reference kernels of averagePool2d, l2Pool2d and maxPool2d (webnn-spec.md §2 rows 65-67):
// hand-computed windows with padding (never counted), strides, dilations, floor/ceil rounding,
// outputSizes, both layouts, float16 and the integer types of maxPool2d.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/backends/window_test_util.h"

namespace cppnn::testing {
namespace {

using IL = MLInputOperandLayout;
using RT = MLRoundingType;

class RefPool2dTest : public WindowOpTest {};

const std::vector<float> kOneToFour{1, 2, 3, 4};
std::vector<float> iota16() {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST_F(RefPool2dTest, GlobalDefaults) {
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 2, 2}, kOneToFour))),
            (std::vector<float>{2.5f}));
  EXPECT_EQ(run<float>(builder().l2Pool2d(f32({1, 1, 2, 2}, {3, 4, 12, 0}))),
            (std::vector<float>{13}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 2, 2}, {-1, -5, -0.5f, -2}))),
            (std::vector<float>{-0.5f}));
}

TEST_F(RefPool2dTest, PaddingIsNeverCounted) {
  // 2x2 windows over the input padded by 1 on every side: averages divide by the in-bounds count.
  const MLPool2dOptions o{.windowDimensions = {2, 2}, .padding = {1, 1, 1, 1}};
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 2, 2}, kOneToFour), o)),
            (std::vector<float>{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 2, 2}, {-1, -2, -3, -4}), o)),
            (std::vector<float>{-1, -1, -2, -1, -1, -2, -3, -3, -4}));
  auto l2 = run<float>(builder().l2Pool2d(f32({1, 1, 2, 2}, {3, 4, 12, 0}), o));
  const std::vector<float> expected{3, 5, 4, std::sqrt(153.0f), 13, 4, 12, 12, 0};
  ASSERT_EQ(l2.size(), expected.size());
  for (size_t i = 0; i < l2.size(); ++i) EXPECT_FLOAT_EQ(l2[i], expected[i]) << i;
}

TEST_F(RefPool2dTest, StridesWithFloorAndCeilRounding) {
  // 4x4 input, 3x3 window, strides 2: floor gives one window, ceil adds the partial ones.
  const MLPool2dOptions floor{.windowDimensions = {3, 3}, .strides = {2, 2}};
  MLPool2dOptions ceil = floor;
  ceil.outputShapeRounding = RT::kCeil;
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 4, 4}, iota16()), floor)),
            (std::vector<float>{5}));
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 4, 4}, iota16()), ceil)),
            (std::vector<float>{5, 6.5f, 11, 12.5f}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 4, 4}, iota16()), ceil)),
            (std::vector<float>{10, 11, 14, 15}));
  // outputSizes picks the ceil shape whatever outputShapeRounding says.
  MLPool2dOptions sizes = floor;
  sizes.outputSizes = {2, 2};
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 4, 4}, iota16()), sizes)),
            (std::vector<float>{10, 11, 14, 15}));
}

TEST_F(RefPool2dTest, AsymmetricPaddingStridesAndDilations) {
  // 3x3 input, 2x2 window dilated by 2: the corners of the 3x3 patch.
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const MLPool2dOptions dilated{.windowDimensions = {2, 2}, .dilations = {2, 2}};
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 3, 3}, x), dilated)),
            (std::vector<float>{5}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 3, 3}, x), dilated)),
            (std::vector<float>{9}));
  // padding [top 1, bottom 0, left 0, right 1], strides [2, 1]: rows {-1,0} and {1,2}.
  const MLPool2dOptions padded{
      .windowDimensions = {2, 2}, .padding = {1, 0, 0, 1}, .strides = {2, 1}};
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({1, 1, 3, 3}, x), padded)),
            (std::vector<float>{1.5f, 2.5f, 3, 6, 7, 7.5f}));
}

TEST_F(RefPool2dTest, ChannelsBatchesAndNhwc) {
  // nchw [2, 2, 1, 2] and the same data in nhwc [2, 1, 2, 2].
  const std::vector<float> nchw{1, 3, 10, 30, -1, -3, -10, -30};
  EXPECT_EQ(run<float>(builder().averagePool2d(f32({2, 2, 1, 2}, nchw))),
            (std::vector<float>{2, 20, -2, -20}));
  Dims shape;
  const std::vector<float> nhwc = permute4(nchw, {2, 2, 1, 2}, kNchwToNhwc, &shape);
  const MLPool2dOptions o{.layout = IL::kNhwc};
  EXPECT_EQ(run<float>(builder().averagePool2d(f32(shape, nhwc), o)),
            (std::vector<float>{2, 20, -2, -20}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32(shape, nhwc), o)),
            (std::vector<float>{3, 30, -1, -10}));
  // nhwc with a window over width only: output [2, 1, 1, 2] keeps channels last.
  const MLPool2dOptions row{.windowDimensions = {1, 2}, .layout = IL::kNhwc};
  EXPECT_EQ(run<float>(builder().l2Pool2d(f32({1, 1, 2, 2}, {3, 5, 4, 12}), row)),
            (std::vector<float>{5, 13}));
}

TEST_F(RefPool2dTest, Float16AccumulatesInDouble) {
  // 2048 + 1 + 1 + 0 = 2050, / 4 = 512.5; a float16 running sum would stay at 2048 (-> 512).
  EXPECT_EQ(run_f16(builder().averagePool2d(f16({1, 1, 2, 2}, {2048, 1, 1, 0}))),
            (std::vector<float>{512.5f}));
  // sqrt(3² + 4²) = 5; the float16 maximum is exact.
  EXPECT_EQ(run_f16(builder().l2Pool2d(f16({1, 1, 1, 2}, {3, 4}))), (std::vector<float>{5}));
  EXPECT_EQ(run_f16(builder().maxPool2d(f16({1, 1, 1, 3}, {0.1f, -65504, 0.2f}))),
            (std::vector<float>{half_bits_to_float(float_to_half_bits(0.2f))}));
}

TEST_F(RefPool2dTest, L2AccumulatesSquaresInDouble) {
  // (3·2^100)² overflows float32 but not double; the result 5·2^100 is exact.
  EXPECT_EQ(run<float>(builder().l2Pool2d(
                f32({1, 1, 1, 2}, {std::ldexp(3.0f, 100), std::ldexp(4.0f, 100)}))),
            (std::vector<float>{std::ldexp(5.0f, 100)}));
}

TEST_F(RefPool2dTest, MaxPoolNaNAndInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  auto y = run<float>(
      builder().maxPool2d(f32({1, 1, 2, 2}, {1, NAN, inf, -inf}), {.windowDimensions = {1, 2}}));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], inf);
  auto avg = run<float>(builder().averagePool2d(f32({1, 1, 1, 2}, {inf, 1})));
  EXPECT_EQ(avg, (std::vector<float>{inf}));
}

TEST_F(RefPool2dTest, MaxPoolIntegerTypes) {
  const MLPool2dOptions o{.windowDimensions = {1, 2}, .strides = {1, 2}};
  EXPECT_EQ(run<int8_t>(builder().maxPool2d(
                input<int8_t>(MLOperandDataType::kInt8, {1, 1, 1, 4}, {-128, -127, 5, 127}), o)),
            (std::vector<int8_t>{-127, 127}));
  EXPECT_EQ(run<uint8_t>(builder().maxPool2d(
                input<uint8_t>(MLOperandDataType::kUint8, {1, 1, 1, 4}, {0, 255, 7, 3}), o)),
            (std::vector<uint8_t>{255, 7}));
  EXPECT_EQ(
      run<int32_t>(builder().maxPool2d(
          input<int32_t>(MLOperandDataType::kInt32, {1, 1, 1, 4}, {-7, -9, INT32_MIN, 0}), o)),
      (std::vector<int32_t>{-7, 0}));
  EXPECT_EQ(
      run<uint32_t>(builder().maxPool2d(
          input<uint32_t>(MLOperandDataType::kUint32, {1, 1, 1, 4}, {1, UINT32_MAX, 2, 1}), o)),
      (std::vector<uint32_t>{UINT32_MAX, 2}));
  // int64 beyond 2^53 compares exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  EXPECT_EQ(
      run<int64_t>(builder().maxPool2d(
          input<int64_t>(MLOperandDataType::kInt64, {1, 1, 1, 4}, {big, big - 1, -big, 0}), o)),
      (std::vector<int64_t>{big, 0}));
  EXPECT_EQ(
      run<uint64_t>(builder().maxPool2d(input<uint64_t>(MLOperandDataType::kUint64, {1, 1, 1, 4},
                                                        {UINT64_MAX - 1, UINT64_MAX, 0, 1}),
                                        o)),
      (std::vector<uint64_t>{UINT64_MAX, 1}));
}

TEST_F(RefPool2dTest, WindowEntirelyInThePadding) {
  // padding top 1 with a 1x1 window: the first output row sees no input element. The average of
  // nothing is 0/0 = NaN, the l2 norm of nothing 0, and the maximum of nothing -Infinity (the
  // lowest value for integers).
  const MLPool2dOptions o{.windowDimensions = {1, 1}, .padding = {1, 0, 0, 0}};
  auto avg = run<float>(builder().averagePool2d(f32({1, 1, 1, 1}, {5}), o));
  ASSERT_EQ(avg.size(), 2u);
  EXPECT_TRUE(std::isnan(avg[0]));
  EXPECT_EQ(avg[1], 5);
  EXPECT_EQ(run<float>(builder().l2Pool2d(f32({1, 1, 1, 1}, {-5}), o)), (std::vector<float>{0, 5}));
  EXPECT_EQ(run<float>(builder().maxPool2d(f32({1, 1, 1, 1}, {5}), o)),
            (std::vector<float>{-INFINITY, 5}));
  EXPECT_EQ(run<int8_t>(
                builder().maxPool2d(input<int8_t>(MLOperandDataType::kInt8, {1, 1, 1, 1}, {5}), o)),
            (std::vector<int8_t>{-128, 5}));
}

// pooling.json "averagePool2d float32 4D tensor options.roundingType=ceil".
TEST_F(RefPool2dTest, ConformanceAveragePoolCeil) {
  const std::vector<float> x{
      22.975555419921875, 78.15438079833984,  9.686111450195312,  51.298038482666016,
      32.193084716796875, 87.65037536621094,  87.25082397460938,  39.49794006347656,
      80.0996322631836,   10.220142364501953, 52.602699279785156, 1.4128639698028564,
      11.95406436920166,  85.00074768066406,  64.78374481201172,  88.03128814697266,
      11.333850860595703, 70.61659240722656,  84.90442657470703,  79.06687927246094,
      7.3287248611450195, 35.97796630859375,  10.177306175231934, 1.4140757322311401,
      78.10037994384766,  91.59549713134766,  65.64701080322266,  55.14215087890625,
      18.432437896728516, 49.34624099731445,  15.648024559020996, 68.02723693847656,
      20.342548370361328, 26.727949142456055, 64.87446594238281,  46.5671501159668,
      79.57833099365234,  4.33846378326416,   38.183837890625,    45.25398254394531,
      80.9718017578125,   67.58124542236328,  6.0264997482299805, 29.7788143157959,
      58.58993148803711,  2.2384984493255615, 14.50549030303955,  68.72449493408203,
      76.45657348632812,  23.53263282775879};
  const std::vector<float> expected{54.20252990722656,  37.16582489013672, 21.206613540649414,
                                    50.038944244384766, 58.46046447753906, 51.3569221496582,
                                    37.24428939819336,  54.04661178588867, 78.58363342285156,
                                    52.73374557495117,  39.1442985534668,  57.1103515625,
                                    43.23125457763672,  32.67961120605469, 56.23945999145508,
                                    40.00800323486328,  43.85149002075195, 41.061283111572266};
  const MLPool2dOptions o{.windowDimensions = {3, 3},
                          .padding = {1, 0, 0, 1},
                          .strides = {2, 2},
                          .outputShapeRounding = RT::kCeil};
  auto y = run<float>(builder().averagePool2d(f32({1, 2, 5, 5}, x), o));
  ASSERT_EQ(y.size(), expected.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], expected[i]) << i;
}

// pooling.json "maxPool2d float32 4D tensor options.dilations".
TEST_F(RefPool2dTest, ConformanceMaxPoolDilations) {
  const std::vector<float> x{
      89.00830078125,      -45.72039031982422,  -61.306129455566406, -4.014514446258545,
      -94.54893493652344,  46.28090286254883,   99.28312683105469,   -10.057873725891113,
      9.742474555969238,   -39.03501892089844,  75.08192443847656,   12.819415092468262,
      -33.01505661010742,  38.691341400146484,  66.09259033203125,   97.90348052978516,
      -8.737770080566406,  -53.42162322998047,  72.1085205078125,    -40.423091888427734,
      -35.68864440917969,  -87.64779663085938,  38.874244689941406,  39.383602142333984,
      7.429088115692139,   -76.72171020507812,  50.217063903808594,  -52.895477294921875,
      -44.642333984375,    -97.86752319335938,  81.73119354248047,   5.428491115570068,
      -29.22772789001465,  72.44898986816406,   -59.34124755859375,  39.19960021972656,
      -65.99439239501953,  -4.204323768615723,  -60.54586410522461,  55.890525817871094,
      80.30484008789062,   72.8883056640625,    -46.59611129760742,  20.50387954711914,
      -31.126462936401367, -57.294559478759766, -26.623577117919922, 15.935754776000977,
      -78.77953338623047,  72.33577728271484};
  auto y = run<float>(
      builder().maxPool2d(f32({1, 2, 5, 5}, x), {.windowDimensions = {3, 3}, .dilations = {2, 2}}));
  EXPECT_EQ(y, (std::vector<float>{89.00830078125, 72.33577728271484}));
}

}  // namespace
}  // namespace cppnn::testing
