// Reference kernels of conv2d and convTranspose2d (webnn-spec.md §2 rows 7-8): hand-computed
// results for the options, every input and filter layout, groups, float16, and the accumulation
// in double with one rounding.
#include <cmath>

#include "tests/backends/window_test_util.h"

namespace cppnn::testing {
namespace {

using IL = MLInputOperandLayout;
using FL = MLConv2dFilterOperandLayout;
using TL = MLConvTranspose2dFilterOperandLayout;

class RefConv2dTest : public WindowOpTest {};
class RefConvTranspose2dTest : public WindowOpTest {};

const std::vector<float> kOneToNine{1, 2, 3, 4, 5, 6, 7, 8, 9};

// ---- conv2d -----------------------------------------------------------------------------------

TEST_F(RefConv2dTest, DefaultOptions) {
  // out[y][x] = in[y][x] + in[y+1][x+1].
  auto out = builder().conv2d(f32({1, 1, 3, 3}, kOneToNine), f32({1, 1, 2, 2}, {1, 0, 0, 1}));
  EXPECT_EQ(run<float>(out), (std::vector<float>{6, 8, 12, 14}));
}

TEST_F(RefConv2dTest, PaddingStridesAndBias) {
  // 3x3 box sums centred on the corners of the zero-padded input, plus 10.
  auto out =
      builder().conv2d(f32({1, 1, 3, 3}, kOneToNine), f32({1, 1, 3, 3}, std::vector<float>(9, 1)),
                       {.padding = {1, 1, 1, 1}, .strides = {2, 2}, .bias = f32({1}, {10})});
  EXPECT_EQ(run<float>(out), (std::vector<float>{22, 26, 34, 38}));
}

TEST_F(RefConv2dTest, AsymmetricPaddingAndStrides) {
  // padding [top 1, bottom 0, left 0, right 1]; 2x2 box sums, stride 2 down, 1 across.
  auto out = builder().conv2d(f32({1, 1, 3, 3}, kOneToNine), f32({1, 1, 2, 2}, {1, 1, 1, 1}),
                              {.padding = {1, 0, 0, 1}, .strides = {2, 1}});
  // Rows: window rows {-1,0} and {1,2}; columns {0,1},{1,2},{2,3}.
  EXPECT_EQ(run<float>(out), (std::vector<float>{3, 5, 3, 24, 28, 15}));
}

TEST_F(RefConv2dTest, Dilations) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  // A 2x2 filter dilated by 2 sums the corners of each 3x3 patch.
  auto out = builder().conv2d(f32({1, 1, 4, 4}, x), f32({1, 1, 2, 2}, {1, 1, 1, 1}),
                              {.dilations = {2, 2}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{20, 24, 36, 40}));
}

TEST_F(RefConv2dTest, DepthwiseGroups) {
  auto out = builder().conv2d(f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                              f32({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1}), {.groups = 2});
  EXPECT_EQ(run<float>(out), (std::vector<float>{10, -3}));
}

TEST_F(RefConv2dTest, GroupsOfSeveralChannels) {
  // 4 input channels in 2 groups of 2, one output channel per group.
  auto out = builder().conv2d(f32({1, 4, 1, 1}, {1, 2, 3, 4}),
                              f32({2, 2, 1, 1}, {1, 10, 100, 1000}), {.groups = 2});
  EXPECT_EQ(run<float>(out), (std::vector<float>{21, 4300}));
}

TEST_F(RefConv2dTest, BatchesAndOutputChannels) {
  // Two batches; filter 1x1 with 2 output channels [x, -2x].
  auto out = builder().conv2d(f32({2, 1, 1, 2}, {1, 2, 3, 4}), f32({2, 1, 1, 1}, {1, -2}),
                              {.bias = f32({2}, {0.5f, 0})});
  EXPECT_EQ(run<float>(out), (std::vector<float>{1.5f, 2.5f, -2, -4, 3.5f, 4.5f, -6, -8}));
}

// Input [1, Cin=2, 2, 2], filter oihw [Cout=2, Cin=2, kH=2, kW=1]; output nchw [1, 2, 1, 2].
const Dims kLayoutInput{1, 2, 2, 2};
const std::vector<float> kLayoutInputData{1, 2, 3, 4, 5, 6, 7, 8};
const Dims kLayoutFilter{2, 2, 2, 1};
const std::vector<float> kLayoutFilterData{1, 2, 3, 4, -1, 0, 0, 10};
const std::vector<float> kLayoutExpected{50, 60, 69, 78};

TEST_F(RefConv2dTest, EveryInputAndFilterLayout) {
  struct FilterCase {
    FL layout;
    std::array<size_t, 4> perm;  // from oihw
  };
  const FilterCase filters[] = {{FL::kOihw, {0, 1, 2, 3}},
                                {FL::kHwio, {2, 3, 1, 0}},
                                {FL::kOhwi, {0, 2, 3, 1}},
                                {FL::kIhwo, {1, 2, 3, 0}}};
  for (IL input_layout : {IL::kNchw, IL::kNhwc}) {
    for (const FilterCase& fc : filters) {
      SCOPED_TRACE(std::to_string(static_cast<int>(input_layout)) + "/" +
                   std::to_string(static_cast<int>(fc.layout)));
      Dims x_shape = kLayoutInput, w_shape;
      std::vector<float> x = kLayoutInputData, expected = kLayoutExpected;
      if (input_layout == IL::kNhwc) {
        x = permute4(kLayoutInputData, kLayoutInput, kNchwToNhwc, &x_shape);
        expected = permute4(kLayoutExpected, {1, 2, 1, 2}, kNchwToNhwc);
      }
      std::vector<float> w = permute4(kLayoutFilterData, kLayoutFilter, fc.perm, &w_shape);
      auto out = builder().conv2d(f32(x_shape, x), f32(w_shape, w),
                                  {.inputLayout = input_layout, .filterLayout = fc.layout});
      EXPECT_EQ(run<float>(out), expected);
    }
  }
}

TEST_F(RefConv2dTest, Float16) {
  auto out = builder().conv2d(f16({1, 1, 3, 3}, kOneToNine), f16({1, 1, 2, 2}, {1, 0.5f, 0, -1}),
                              {.bias = f16({1}, {0.25f})});
  // in[y][x] + in[y][x+1] / 2 - in[y+1][x+1] + 0.25.
  EXPECT_EQ(run_f16(out), (std::vector<float>{-2.75f, -2.25f, -1.25f, -0.75f}));
}

TEST_F(RefConv2dTest, AccumulatesInDoubleAndRoundsOnce) {
  // 1 + 2^-24 + 2^-24: rounding each partial sum to float32 would give 1.
  const float e = std::ldexp(1.0f, -24);
  auto out = builder().conv2d(f32({1, 1, 1, 3}, {1, e, e}), f32({1, 1, 1, 3}, {1, 1, 1}));
  EXPECT_EQ(run<float>(out), (std::vector<float>{1 + 2 * e}));
}

TEST_F(RefConv2dTest, Float16AccumulatesInDoubleAndRoundsOnce) {
  // 1 + 2^-11 + 2^-11 = 1 + 2^-10 in float16; a float16 running sum stays at 1.
  const float e = std::ldexp(1.0f, -11);
  auto out = builder().conv2d(f16({1, 1, 1, 3}, {1, e, e}), f16({1, 1, 1, 3}, {1, 1, 1}));
  EXPECT_EQ(run_f16(out), (std::vector<float>{1 + 2 * e}));
}

TEST_F(RefConv2dTest, PaddingContributesNothingEvenWithInfiniteWeights) {
  // The padded position meets the infinite weight; it is skipped, not multiplied as 0 * Inf.
  const float inf = INFINITY;
  auto out = builder().conv2d(f32({1, 1, 1, 1}, {2}), f32({1, 1, 1, 2}, {inf, 3}),
                              {.padding = {0, 0, 1, 0}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{6}));
}

TEST_F(RefConv2dTest, NaNPropagates) {
  auto out = builder().conv2d(f32({1, 1, 1, 2}, {NAN, 1}), f32({1, 1, 1, 1}, {2}));
  auto y = run<float>(out);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 2);
}

// ---- convTranspose2d --------------------------------------------------------------------------

TEST_F(RefConvTranspose2dTest, DefaultOptions) {
  // Each input element scatters input * filter onto its 2x2 patch of the 3x3 output.
  auto out =
      builder().convTranspose2d(f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(run<float>(out), (std::vector<float>{1, 4, 4, 6, 20, 16, 9, 24, 16}));
}

TEST_F(RefConvTranspose2dTest, Strides) {
  auto out = builder().convTranspose2d(f32({1, 1, 2, 2}, {1, 2, 3, 4}),
                                       f32({1, 1, 2, 2}, {1, 2, 3, 4}), {.strides = {2, 2}});
  EXPECT_EQ(run<float>(out),
            (std::vector<float>{1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16}));
}

TEST_F(RefConvTranspose2dTest, PaddingCropsTheOutput) {
  auto out = builder().convTranspose2d(f32({1, 1, 2, 2}, {1, 2, 3, 4}),
                                       f32({1, 1, 2, 2}, {1, 2, 3, 4}), {.padding = {1, 1, 0, 1}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{6, 20}));
}

TEST_F(RefConvTranspose2dTest, OutputPaddingAndOutputSizesExtendWithBias) {
  // Strides 2 give 4x4; the extra last row and column hold only the bias.
  const std::vector<float> expected{1.5f,  2.5f, 2.5f, 4.5f, 0.5f, 3.5f, 4.5f, 6.5f,  8.5f,
                                    0.5f,  3.5f, 6.5f, 4.5f, 8.5f, 0.5f, 9.5f, 12.5f, 12.5f,
                                    16.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  auto a = builder().convTranspose2d(
      f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, 2, 3, 4}),
      {.strides = {2, 2}, .outputPadding = {1, 1}, .bias = f32({1}, {0.5f})});
  EXPECT_EQ(run<float>(a), expected);
  auto b = builder().convTranspose2d(
      f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, 2, 3, 4}),
      {.strides = {2, 2}, .outputSizes = {5, 5}, .bias = f32({1}, {0.5f})});
  EXPECT_EQ(run<float>(b), expected);
}

TEST_F(RefConvTranspose2dTest, Dilations) {
  auto out = builder().convTranspose2d(f32({1, 1, 1, 1}, {2}), f32({1, 1, 2, 2}, {1, 2, 3, 4}),
                                       {.dilations = {2, 2}});
  EXPECT_EQ(run<float>(out), (std::vector<float>{2, 0, 4, 0, 0, 0, 6, 0, 8}));
}

TEST_F(RefConvTranspose2dTest, ChannelsAndGroups) {
  // Filter iohw [2, 2, 1, 1] = [[1, 2], [3, 4]] on input channels [1, 2].
  const std::vector<float> w{1, 2, 3, 4};
  auto mixed = builder().convTranspose2d(f32({1, 2, 1, 1}, {1, 2}), f32({2, 2, 1, 1}, w));
  EXPECT_EQ(run<float>(mixed), (std::vector<float>{7, 10}));
  // groups 2: input channel g feeds output channels 2g and 2g+1 only.
  auto grouped =
      builder().convTranspose2d(f32({1, 2, 1, 1}, {1, 2}), f32({2, 2, 1, 1}, w), {.groups = 2});
  EXPECT_EQ(run<float>(grouped), (std::vector<float>{1, 2, 6, 8}));
}

TEST_F(RefConvTranspose2dTest, GroupsWithSeveralInputChannels) {
  // 4 input channels in 2 groups of 2, one output channel per group.
  auto out = builder().convTranspose2d(f32({1, 4, 1, 1}, {1, 2, 3, 4}),
                                       f32({4, 1, 1, 1}, {1, 10, 100, 1000}), {.groups = 2});
  EXPECT_EQ(run<float>(out), (std::vector<float>{21, 4300}));
}

TEST_F(RefConvTranspose2dTest, EveryInputAndFilterLayout) {
  // Input [1, Cin=2, 1, 2]; filter iohw [Cin=2, Cout=2, kH=2, kW=1]; output nchw [1, 2, 2, 2].
  const Dims x_nchw{1, 2, 1, 2}, w_iohw{2, 2, 2, 1}, y_nchw{1, 2, 2, 2};
  const std::vector<float> x_data{1, 10, 2, 20}, w_data{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> y_data{11, 110, 14, 140, 17, 170, 20, 200};
  struct FilterCase {
    TL layout;
    std::array<size_t, 4> perm;  // from iohw
  };
  const FilterCase filters[] = {
      {TL::kIohw, {0, 1, 2, 3}}, {TL::kHwoi, {2, 3, 1, 0}}, {TL::kOhwi, {1, 2, 3, 0}}};
  for (IL input_layout : {IL::kNchw, IL::kNhwc}) {
    for (const FilterCase& fc : filters) {
      SCOPED_TRACE(std::to_string(static_cast<int>(input_layout)) + "/" +
                   std::to_string(static_cast<int>(fc.layout)));
      Dims x_shape = x_nchw, w_shape;
      std::vector<float> x = x_data, expected = y_data;
      if (input_layout == IL::kNhwc) {
        x = permute4(x_data, x_nchw, kNchwToNhwc, &x_shape);
        expected = permute4(y_data, y_nchw, kNchwToNhwc);
      }
      std::vector<float> w = permute4(w_data, w_iohw, fc.perm, &w_shape);
      auto out =
          builder().convTranspose2d(f32(x_shape, x), f32(w_shape, w),
                                    {.inputLayout = input_layout, .filterLayout = fc.layout});
      EXPECT_EQ(run<float>(out), expected);
    }
  }
}

TEST_F(RefConvTranspose2dTest, Float16RoundsOnce) {
  // Overlapping taps 1 + 2^-11 + 2^-11 at the centre of a 1x3 output from a 1x2 input.
  const float e = std::ldexp(1.0f, -11);
  auto out = builder().convTranspose2d(f16({1, 1, 1, 2}, {1, e}), f16({1, 1, 1, 2}, {e, 1}),
                                       {.bias = f16({1}, {e})});
  // The centre is 1 + e*e + e: just above the midpoint 1 + 2^-11, so it rounds up to 1 + 2^-10;
  // rounding after each step would give 1.
  EXPECT_EQ(run_f16(out), (std::vector<float>{2 * e, 1.0f + 2 * e, 2 * e}));
}

TEST_F(RefConvTranspose2dTest, InputChannelsNotDivisibleByGroupsFailToBuild) {
  // Valid per the spec (no Cin % groups check) but without defined channel groups.
  auto out = builder().convTranspose2d(f32({1, 3, 1, 1}, {1, 2, 3}), f32({3, 1, 1, 1}, {1, 1, 1}),
                                       {.groups = 2});
  EXPECT_THROW((void)builder().build({{"out", out}}), OperationError);
}

}  // namespace
}  // namespace cppnn::testing
