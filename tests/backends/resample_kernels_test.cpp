// Reference kernel of resample2d (webnn-spec.md §2 row 80 and its numeric note): half-pixel
// nearest-neighbor and bilinear sampling, scale = output size / input size, any two axes, float16
// and the integer types.
#include <cmath>
#include <cstdint>

#include "tests/backends/window_test_util.h"

namespace cppnn::testing {
namespace {

using Mode = MLInterpolationMode;

class RefResample2dTest : public WindowOpTest {};

TEST_F(RefResample2dTest, DefaultOptionsCopy) {
  EXPECT_EQ(run<float>(builder().resample2d(f32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}))),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(RefResample2dTest, NearestIntegerUpscale) {
  auto out = builder().resample2d(f32({1, 1, 2, 2}, {1, 2, 3, 4}), {.scales = {2, 2}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

// The cases of WPT resample2d-nearest-half-pixel: x_in = clamp((x + 0.5) · in / out − 0.5) and
// index ceil(x_in − 0.5), so ties pick the smaller index.
TEST_F(RefResample2dTest, NearestHalfPixel) {
  struct Case {
    std::vector<float> input;
    MLResample2dOptions options;
    std::vector<float> expected;
  };
  const Case cases[] = {
      {{10, 20, 30}, {.scales = {1, 1.5f}}, {10, 20, 20, 30}},  // scale is 4/3, not 1.5
      {{10, 20, 30, 40}, {.scales = {1, 0.75f}}, {10, 20, 40}},
      {{10, 20, 30, 40, 50}, {.sizes = {1, 2}}, {20, 40}},
      {{10, 20}, {.sizes = {1, 3}}, {10, 10, 20}},  // the tie at x_in = 0.5 picks index 0
      {{10, 20, 30}, {.sizes = {1, 1}}, {20}},
      {{10}, {.sizes = {1, 4}}, {10, 10, 10, 10}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.size());
    auto out = builder().resample2d(f32({1, 1, 1, static_cast<uint32_t>(c.input.size())}, c.input),
                                    c.options);
    EXPECT_EQ(run<float>(out), c.expected);
  }
}

// The spec's linear example: a [4, 4] input resampled to [8, 8].
TEST_F(RefResample2dTest, LinearSpecExample) {
  const std::vector<float> x{0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15, 12, 13, 14, 15};
  const float rows[] = {0, 0, 0, 3, 9, 12, 12, 12};
  const float cols[] = {0, 0.25f, 0.75f, 1.25f, 1.75f, 2.25f, 2.75f, 3};
  std::vector<float> expected;
  for (float r : rows)
    for (float c : cols) expected.push_back(r + c);
  EXPECT_EQ(run<float>(builder().resample2d(f32({1, 1, 4, 4}, x),
                                            {.mode = Mode::kLinear, .sizes = {8, 8}})),
            expected);
  EXPECT_EQ(run_f16(builder().resample2d(f16({1, 1, 4, 4}, x),
                                         {.mode = Mode::kLinear, .scales = {2, 2}})),
            expected);
}

TEST_F(RefResample2dTest, LinearDownscale) {
  // 4 -> 2: x_in = 0.5 and 2.5, the midpoints of pairs.
  auto out = builder().resample2d(f32({1, 1, 1, 4}, {1, 2, 4, 8}),
                                  {.mode = Mode::kLinear, .scales = {1, 0.5f}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{1.5f, 6}));
}

TEST_F(RefResample2dTest, AnyAxesInAnyOrder) {
  const std::vector<float> x{1, 2, 3, 4};
  const std::vector<float> expected{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
  // The same 2x2 -> 4x4 upscale placed on dims (0, 1), (1, 2), (2, 3) and listed in reverse.
  EXPECT_EQ(
      run<float>(builder().resample2d(f32({2, 2, 1, 1}, x), {.sizes = {4, 4}, .axes = {0, 1}})),
      expected);
  EXPECT_EQ(
      run<float>(builder().resample2d(f32({1, 2, 2, 1}, x), {.sizes = {4, 4}, .axes = {1, 2}})),
      expected);
  EXPECT_EQ(
      run<float>(builder().resample2d(f32({1, 1, 2, 2}, x), {.scales = {2, 2}, .axes = {3, 2}})),
      expected);
  // axes [3, 1]: sizes[0] is for dim 3 and sizes[1] for dim 1; the other dims are copied.
  auto out = builder().resample2d(f32({1, 2, 2, 1}, x), {.sizes = {2, 1}, .axes = {3, 1}});
  // dim 1 (2 -> 1): x_in = 0.5 · 2 − 0.5 = 0.5, index ceil(0) = 0; dim 3 (1 -> 2) repeats.
  EXPECT_EQ(run<float>(out), (std::vector<float>{1, 1, 2, 2}));
}

TEST_F(RefResample2dTest, LinearAxesAndBatches) {
  // Two batches and two channels, nhwc-like axes [1, 2]; each 1x2 row is stretched to 1x4.
  auto out = builder().resample2d(f32({2, 1, 2, 2}, {0, 10, 4, 20, 1, 1, -4, -8}),
                                  {.mode = Mode::kLinear, .sizes = {1, 4}, .axes = {1, 2}});
  // Along dim 2 (2 -> 4): weights of the second element 0, 0.25, 0.75, 1.
  EXPECT_EQ(run<float>(out), (std::vector<float>{0, 10, 1, 12.5f, 3, 17.5f, 4, 20, 1, 1, -0.25f,
                                                 -1.25f, -2.75f, -5.75f, -4, -8}));
}

TEST_F(RefResample2dTest, ExactHitsIgnoreTheOtherTap) {
  // 2 -> 6: x_in = (x - 1) / 3, so x = 1 hits index 0 exactly and never reads the Infinity.
  const float inf = INFINITY;
  auto y = run<float>(
      builder().resample2d(f32({1, 1, 1, 2}, {3, inf}), {.mode = Mode::kLinear, .sizes = {1, 6}}));
  EXPECT_EQ(y, (std::vector<float>{3, 3, inf, inf, inf, inf}));
}

TEST_F(RefResample2dTest, NearestFloat16AndIntegersCopyExactly) {
  EXPECT_EQ(run_f16(builder().resample2d(f16({1, 1, 1, 2}, {0.1f, -65504}), {.scales = {1, 2}})),
            half_values(half_bits({0.1f, 0.1f, -65504, -65504})));
  EXPECT_EQ(
      run<int8_t>(builder().resample2d(
          input<int8_t>(MLOperandDataType::kInt8, {1, 1, 1, 2}, {-128, 127}), {.scales = {1, 2}})),
      (std::vector<int8_t>{-128, -128, 127, 127}));
  EXPECT_EQ(
      run<uint8_t>(builder().resample2d(
          input<uint8_t>(MLOperandDataType::kUint8, {1, 1, 2, 1}, {0, 255}), {.scales = {2, 1}})),
      (std::vector<uint8_t>{0, 0, 255, 255}));
}

TEST_F(RefResample2dTest, LinearIntegersRoundHalfToEven) {
  // 2 -> 3: x_in = 0, 0.5, 1; the middle is the average of the two inputs.
  const MLResample2dOptions o{.mode = Mode::kLinear, .sizes = {1, 3}};
  EXPECT_EQ(run<uint8_t>(builder().resample2d(
                input<uint8_t>(MLOperandDataType::kUint8, {1, 1, 1, 2}, {2, 3}), o)),
            (std::vector<uint8_t>{2, 2, 3}));  // 2.5 -> 2
  EXPECT_EQ(run<uint8_t>(builder().resample2d(
                input<uint8_t>(MLOperandDataType::kUint8, {1, 1, 1, 2}, {3, 4}), o)),
            (std::vector<uint8_t>{3, 4, 4}));  // 3.5 -> 4
  EXPECT_EQ(run<int8_t>(builder().resample2d(
                input<int8_t>(MLOperandDataType::kInt8, {1, 1, 1, 2}, {-3, -2}), o)),
            (std::vector<int8_t>{-3, -2, -2}));  // -2.5 -> -2
  // 2 -> 4: weights 0.25 and 0.75 give 1.25 -> 1 and 1.75 -> 2.
  EXPECT_EQ(run<uint8_t>(builder().resample2d(
                input<uint8_t>(MLOperandDataType::kUint8, {1, 1, 1, 2}, {1, 2}),
                {.mode = Mode::kLinear, .sizes = {1, 4}})),
            (std::vector<uint8_t>{1, 1, 2, 2}));
}

TEST_F(RefResample2dTest, LinearFloat16RoundsOnce) {
  // 2 -> 4 between 1 and 1 + 2^-10: 1 + 2^-12 is below the midpoint (-> 1) and 1 + 3·2^-12
  // above it (-> 1 + 2^-10).
  const float e = std::ldexp(1.0f, -10);
  EXPECT_EQ(run_f16(builder().resample2d(f16({1, 1, 1, 2}, {1, 1 + e}),
                                         {.mode = Mode::kLinear, .sizes = {1, 4}})),
            (std::vector<float>{1, 1, 1 + e, 1 + e}));
}

// resample2d.json "resample2d(upsample) float32 4D tensor options.scales options.mode='linear'".
TEST_F(RefResample2dTest, ConformanceLinearUpsample) {
  const std::vector<float> x{59.92947006225586, 41.98918914794922, 66.39534759521484,
                             90.7006607055664,  86.95105743408203, 79.10005187988281};
  const std::vector<float> expected{
      59.92947006225586, 55.444400787353516, 46.47425842285156, 48.090728759765625,
      60.29380798339844, 66.39534759521484,  67.62226867675781, 64.02411651611328,
      56.82780838012695, 57.31512451171875,  65.48605346679688, 69.57152557373047,
      83.00786590576172, 81.18354797363281,  77.534912109375,   75.76390838623047,
      75.87055206298828, 75.92387390136719,  90.7006607055664,  89.76325988769531,
      87.88845825195312, 84.9883041381836,   81.06280517578125, 79.10005187988281};
  auto y = run<float>(
      builder().resample2d(f32({1, 1, 2, 3}, x), {.mode = Mode::kLinear, .scales = {2, 2}}));
  ASSERT_EQ(y.size(), expected.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], expected[i]) << i;
}

}  // namespace
}  // namespace cppnn::testing
