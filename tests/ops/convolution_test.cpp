// Validation tests for conv2d and convTranspose2d (§2 rows 7-8, §3.5).
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

using IL = MLInputOperandLayout;
using FL = MLConv2dFilterOperandLayout;
using TL = MLConvTranspose2dFilterOperandLayout;
constexpr uint32_t kU32Max = 4294967295u;

class Conv2dTest : public OpTest {};
class ConvTranspose2dTest : public OpTest {};

// ---- conv2d ---------------------------------------------------------------------------------

TEST_F(Conv2dTest, DefaultOptions) {
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3})), F32, {1, 1, 3, 3}));
  EXPECT_TRUE(
      HasDesc(builder.conv2d(in(F16, {2, 3, 7, 6}), in(F16, {4, 3, 2, 3})), F16, {2, 4, 6, 4}));
}

TEST_F(Conv2dTest, PaddingStridesAndDilations) {
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.padding = {1, 1, 1, 1}}),
                      F32, {1, 1, 5, 5}));
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 4, 2}),
                                     {.padding = {1, 2, 0, 1}, .strides = {2, 2}}),
                      F32, {1, 1, 3, 3}));
  EXPECT_TRUE(HasDesc(
      builder.conv2d(in({1, 65, 65, 1}), in({1, 3, 3, 1}),
                     {.dilations = {4, 4}, .inputLayout = IL::kNhwc, .filterLayout = FL::kIhwo}),
      F32, {1, 57, 57, 1}));
  // Non-divisible sizes are floored: (6 - 3 + 0) / 2 + 1 = 2.5 -> 2.
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 1, 6, 6}), in({1, 1, 3, 3}), {.strides = {2, 2}}), F32,
                      {1, 1, 2, 2}));
}

// Input [N=1, Cin=2, H=5, W=6]; filter Cout=4, Cin=2, kH=3, kW=2 in each layout.
struct FilterLayoutCase {
  FL layout;
  Dims filter;
};
const FilterLayoutCase kConv2dFilters[] = {{FL::kOihw, {4, 2, 3, 2}},
                                           {FL::kHwio, {3, 2, 2, 4}},
                                           {FL::kOhwi, {4, 3, 2, 2}},
                                           {FL::kIhwo, {2, 3, 2, 4}}};

TEST_F(Conv2dTest, EveryInputAndFilterLayout) {
  for (const auto& c : kConv2dFilters) {
    SCOPED_TRACE(static_cast<int>(c.layout));
    EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 2, 5, 6}), in(c.filter),
                                       {.inputLayout = IL::kNchw, .filterLayout = c.layout}),
                        F32, {1, 4, 3, 5}));
    EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 5, 6, 2}), in(c.filter),
                                       {.inputLayout = IL::kNhwc, .filterLayout = c.layout}),
                        F32, {1, 3, 5, 4}));
  }
}

TEST_F(Conv2dTest, FilterInputChannelsMustEqualInputChannelsPerGroupInEveryLayout) {
  for (const auto& c : kConv2dFilters) {
    SCOPED_TRACE(static_cast<int>(c.layout));
    // Cin=2 with groups=2 needs filter input channels 1, not 2.
    EXPECT_TYPE_ERROR(
        builder.conv2d(in({1, 2, 5, 6}), in(c.filter), {.groups = 2, .filterLayout = c.layout}));
    // Cin=3 does not match filter input channels 2.
    EXPECT_TYPE_ERROR(builder.conv2d(in({1, 5, 6, 3}), in(c.filter),
                                     {.inputLayout = IL::kNhwc, .filterLayout = c.layout}));
  }
}

TEST_F(Conv2dTest, GroupedAndDepthwise) {
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 4, 2, 2}), in({4, 1, 2, 2}), {.groups = 4}), F32,
                      {1, 4, 1, 1}));
  EXPECT_TRUE(
      HasDesc(builder.conv2d(in({1, 2, 2, 4}), in({1, 2, 2, 4}),
                             {.groups = 4, .inputLayout = IL::kNhwc, .filterLayout = FL::kIhwo}),
              F32, {1, 1, 1, 4}));
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 4, 5, 5}), in({6, 2, 3, 3}), {.groups = 2}), F32,
                      {1, 6, 3, 3}));
}

TEST_F(Conv2dTest, AcceptsBiasOfOutputChannels) {
  MLOperand bias = in({6});
  EXPECT_TRUE(
      HasDesc(builder.conv2d(in({1, 4, 5, 5}), in({6, 2, 3, 3}), {.groups = 2, .bias = bias}), F32,
              {1, 6, 3, 3}));
  EXPECT_TRUE(HasDesc(builder.conv2d(in({1, 7, 7, 2048}), in({1001, 1, 1, 2048}),
                                     {.padding = {0, 0, 0, 0},
                                      .inputLayout = IL::kNhwc,
                                      .filterLayout = FL::kOhwi,
                                      .bias = in({1001})}),
                      F32, {1, 7, 7, 1001}));
}

TEST_F(Conv2dTest, RejectsWrongListLengths) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.padding = {2, 2}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.padding = Dims{}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.strides = {2}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.strides = {1, 1, 1}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.dilations = {1}}));
}

TEST_F(Conv2dTest, RejectsZeroStridesAndDilations) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.strides = {0, 1}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.strides = {1, 0}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.dilations = {0, 1}}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.dilations = {1, 0}}));
}

TEST_F(Conv2dTest, RejectsZeroGroups) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 4, 5, 5}), in({1, 1, 2, 2}), {.groups = 0}));
}

TEST_F(Conv2dTest, RejectsInputChannelsNotDivisibleByGroups) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 4, 5, 5}), in({1, 1, 2, 2}), {.groups = 3}));
}

TEST_F(Conv2dTest, RejectsInputChannelsPerGroupDifferentFromFilter) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 4, 5, 5}), in({1, 1, 2, 2}), {.groups = 2}));
}

TEST_F(Conv2dTest, RejectsOutputChannelsNotDivisibleByGroups) {
  // #932: Cin=4, groups=2, filter Cin/groups=2 is fine but Cout=3 is not divisible by 2.
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 4, 5, 5}), in({3, 2, 3, 3}), {.groups = 2}));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 5, 5, 4}), in({3, 3, 2, 3}),
                     {.groups = 2, .inputLayout = IL::kNhwc, .filterLayout = FL::kHwio}));
}

TEST_F(Conv2dTest, RejectsBiasNotOfOutputChannels) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in({2})}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({2, 2, 1, 1}),
                                   {.filterLayout = FL::kHwio, .bias = in({2})}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 2, 2, 1}),
                                   {.filterLayout = FL::kOhwi, .bias = in({2})}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 2, 2, 1}),
                                   {.filterLayout = FL::kIhwo, .bias = in({2})}));
}

TEST_F(Conv2dTest, RejectsBiasOfWrongRankOrType) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in({1, 1})}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in({})}));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in(F16, {1})}));
}

TEST_F(Conv2dTest, RejectsNonFloatOrMismatchedTypes) {
  EXPECT_TYPE_ERROR(builder.conv2d(in(I32, {1, 1, 5, 5}), in(I32, {1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.conv2d(in(U8, {1, 1, 5, 5}), in(U8, {1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.conv2d(in(F32, {1, 1, 5, 5}), in(F16, {1, 1, 2, 2})));
}

TEST_F(Conv2dTest, RejectsInputOrFilterNot4D) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 5, 5}), in({1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 1, 5, 5}), in({1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({2, 2})));
}

TEST_F(Conv2dTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.conv2d(foreign(F32, {1, 1, 5, 5}), in({1, 1, 3, 3})));
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), foreign(F32, {1, 1, 3, 3})));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.bias = foreign(F32, {1})}));
}

TEST_F(Conv2dTest, RejectsWindowLargerThanPaddedInput) {
  EXPECT_TYPE_ERROR(builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 6, 3})));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 4, 2}),
                     {.padding = {1, 1, 1, 1}, .strides = {2, 2}, .dilations = {4, 1}}));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 8}),
                     {.padding = {1, 1, 1, 1}, .strides = {2, 2}, .dilations = {1, 4}}));
}

TEST_F(Conv2dTest, ComputesSizesWithoutOverflow) {
  // Effective filter sizes beyond 2^32 must not wrap.
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 434983, 2}), {.dilations = {328442, 1}}));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 2, 234545}), {.dilations = {2, 843452}}));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.dilations = {kU32Max, 1}}));
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.dilations = {1, kU32Max}}));
  // Output sizes beyond a valid dimension.
  EXPECT_TYPE_ERROR(
      builder.conv2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.padding = {kU32Max, kU32Max, 0, 0}}));
}

TEST_F(Conv2dTest, ErrorMessageNamesOpAndLabel) {
  try {
    (void)builder.conv2d(in({1, 4, 5, 5}), in({1, 1, 2, 2}), {.groups = 3, .label = "stem"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d [stem]"), std::string::npos) << e.what();
  }
}

// ---- convTranspose2d ------------------------------------------------------------------------

TEST_F(ConvTranspose2dTest, DefaultOptions) {
  EXPECT_TRUE(
      HasDesc(builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 3, 3})), F32, {1, 1, 5, 5}));
  EXPECT_TRUE(HasDesc(builder.convTranspose2d(in(F16, {1, 1, 3, 3}), in(F16, {1, 2, 3, 3})), F16,
                      {1, 2, 5, 5}));
}

// Input [N=1, Cin=2, H=3, W=5]; filter Cin=2, Cout/groups=3, kH=3, kW=2 in each layout.
struct TransposeFilterCase {
  TL layout;
  Dims filter;
};
const TransposeFilterCase kTransposeFilters[] = {
    {TL::kIohw, {2, 3, 3, 2}}, {TL::kHwoi, {3, 2, 3, 2}}, {TL::kOhwi, {3, 3, 2, 2}}};

TEST_F(ConvTranspose2dTest, EveryInputAndFilterLayout) {
  for (const auto& c : kTransposeFilters) {
    SCOPED_TRACE(static_cast<int>(c.layout));
    EXPECT_TRUE(
        HasDesc(builder.convTranspose2d(in({1, 2, 3, 5}), in(c.filter),
                                        {.inputLayout = IL::kNchw, .filterLayout = c.layout}),
                F32, {1, 3, 5, 6}));
    EXPECT_TRUE(
        HasDesc(builder.convTranspose2d(in({1, 3, 5, 2}), in(c.filter),
                                        {.inputLayout = IL::kNhwc, .filterLayout = c.layout}),
                F32, {1, 5, 6, 3}));
  }
}

TEST_F(ConvTranspose2dTest, RejectsInputChannelsDifferentFromFilterInEveryLayout) {
  for (const auto& c : kTransposeFilters) {
    SCOPED_TRACE(static_cast<int>(c.layout));
    EXPECT_TYPE_ERROR(
        builder.convTranspose2d(in({1, 3, 3, 5}), in(c.filter), {.filterLayout = c.layout}));
    EXPECT_TYPE_ERROR(builder.convTranspose2d(
        in({1, 3, 5, 3}), in(c.filter), {.inputLayout = IL::kNhwc, .filterLayout = c.layout}));
  }
}

TEST_F(ConvTranspose2dTest, PaddingStridesAndDilations) {
  EXPECT_TRUE(HasDesc(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.padding = {1, 1, 1, 1}}), F32,
      {1, 1, 5, 5}));
  EXPECT_TRUE(
      HasDesc(builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 2, 3, 3}), {.strides = {2, 2}}), F32,
              {1, 2, 7, 7}));
  EXPECT_TRUE(HasDesc(builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 3, 3}),
                                              {.padding = {1, 1, 1, 1}, .strides = {2, 2}}),
                      F32, {1, 1, 5, 5}));
  // (3-1)*1 + (3-1)*2+1 = 7.
  EXPECT_TRUE(
      HasDesc(builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 3, 3}), {.dilations = {2, 2}}),
              F32, {1, 1, 7, 7}));
}

TEST_F(ConvTranspose2dTest, OutputPaddingAddsToOutputSize) {
  EXPECT_TRUE(HasDesc(builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 2, 3, 3}),
                                              {.strides = {3, 2}, .outputPadding = {1, 1}}),
                      F32, {1, 2, 10, 8}));
}

TEST_F(ConvTranspose2dTest, OutputSizesWithinOneStrideOfCalculatedSize) {
  // Calculated sizes are 9 and 7; valid sizes are [9, 12) and [7, 9).
  auto call = [&](Dims sizes, Dims output_padding = {0, 0}) {
    return builder.convTranspose2d(
        in({1, 1, 3, 3}), in({1, 2, 3, 3}),
        {.strides = {3, 2}, .outputPadding = output_padding, .outputSizes = sizes});
  };
  EXPECT_TRUE(HasDesc(call({9, 7}), F32, {1, 2, 9, 7}));
  EXPECT_TRUE(HasDesc(call({10, 8}), F32, {1, 2, 10, 8}));
  EXPECT_TRUE(HasDesc(call({11, 8}), F32, {1, 2, 11, 8}));
  // outputPadding is ignored (not checked against strides) when outputSizes is given.
  EXPECT_TRUE(HasDesc(call({10, 8}, {3, 3}), F32, {1, 2, 10, 8}));
  EXPECT_TYPE_ERROR(call({8, 8}));
  EXPECT_TYPE_ERROR(call({12, 8}));
  EXPECT_TYPE_ERROR(call({10, 6}));
  EXPECT_TYPE_ERROR(call({10, 9}));
  EXPECT_TYPE_ERROR(call({0, 7}));
  EXPECT_TYPE_ERROR(call({9, 0}));
}

TEST_F(ConvTranspose2dTest, OutputSizesCalculatedWithoutOutputPadding) {
  // Calculated size (3-1)*2 + 3 - 2 = 5; outputPadding [1,1] does not shift the valid range.
  auto call = [&](Dims sizes) {
    return builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 3, 3}),
                                   {.padding = {1, 1, 1, 1},
                                    .strides = {2, 2},
                                    .outputPadding = {1, 1},
                                    .outputSizes = sizes});
  };
  EXPECT_TRUE(HasDesc(call({5, 6}), F32, {1, 1, 5, 6}));
  EXPECT_TYPE_ERROR(call({4, 4}));
  EXPECT_TYPE_ERROR(call({6, 8}));
}

TEST_F(ConvTranspose2dTest, GroupsMultiplyFilterOutputChannels) {
  // No Cin % groups check for convTranspose2d.
  EXPECT_TRUE(HasDesc(builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}),
                                              {.padding = {1, 1, 1, 1}, .groups = 3}),
                      F32, {1, 3, 5, 5}));
  EXPECT_TRUE(HasDesc(
      builder.convTranspose2d(in({1, 4, 2, 2}), in({4, 2, 3, 3}), {.groups = 2, .bias = in({4})}),
      F32, {1, 4, 4, 4}));
}

TEST_F(ConvTranspose2dTest, RejectsWrongListLengths) {
  auto call = [&](MLConvTranspose2dOptions o) {
    return builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 2, 3, 3}), o);
  };
  EXPECT_TYPE_ERROR(call({.padding = {2, 2}}));
  EXPECT_TYPE_ERROR(call({.strides = {2}}));
  EXPECT_TYPE_ERROR(call({.dilations = {1}}));
  EXPECT_TYPE_ERROR(call({.strides = {3, 2}, .outputPadding = {1, 1, 1, 1}}));
  EXPECT_TYPE_ERROR(call({.strides = {3, 2}, .outputSizes = {1, 2, 10, 8}}));
  // outputPadding is checked for length even when outputSizes is given.
  EXPECT_TYPE_ERROR(call({.strides = {3, 2}, .outputPadding = {1}, .outputSizes = {10, 8}}));
}

TEST_F(ConvTranspose2dTest, RejectsZeroStridesDilationsAndGroups) {
  auto call = [&](MLConvTranspose2dOptions o) {
    return builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), o);
  };
  EXPECT_TYPE_ERROR(call({.strides = {1, 0}}));
  EXPECT_TYPE_ERROR(call({.strides = {0, 1}}));
  EXPECT_TYPE_ERROR(call({.dilations = {1, 0}}));
  EXPECT_TYPE_ERROR(call({.dilations = {0, 1}}));
  EXPECT_TYPE_ERROR(call({.groups = 0}));
}

TEST_F(ConvTranspose2dTest, RejectsOutputPaddingNotSmallerThanStrides) {
  auto call = [&](Dims output_padding) {
    return builder.convTranspose2d(
        in({1, 1, 2, 2}), in({1, 1, 3, 3}),
        {.padding = {0, 0, 3, 3}, .strides = {2, 2}, .outputPadding = output_padding});
  };
  EXPECT_TYPE_ERROR(call({0, 2}));
  EXPECT_TYPE_ERROR(call({2, 0}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 3, 3}), {.outputPadding = {1, 0}}));
}

TEST_F(ConvTranspose2dTest, RejectsOutputChannelsThatAreNotAValidDimension) {
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 4, 5, 5}), in({4, 2, 2, 2}), {.groups = kU32Max}));
}

TEST_F(ConvTranspose2dTest, RejectsBiasNotOfOutputChannels) {
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}),
                                            {.filterLayout = TL::kIohw, .bias = in({2})}));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 1, 5, 5}), in({2, 2, 1, 1}),
                                            {.filterLayout = TL::kHwoi, .bias = in({2})}));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 2, 2, 1}),
                                            {.filterLayout = TL::kOhwi, .bias = in({2})}));
  // Bias must be [filterCout * groups].
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.groups = 3, .bias = in({1})}));
}

TEST_F(ConvTranspose2dTest, RejectsBiasOfWrongRankOrType) {
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in({1, 2})}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 2}), {.bias = in(I32, {1})}));
}

TEST_F(ConvTranspose2dTest, RejectsNonFloatOrMismatchedTypes) {
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in(I32, {1, 1, 5, 5}), in(I32, {1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in(F32, {1, 1, 5, 5}), in(I32, {1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in(F16, {1, 1, 5, 5}), in(F32, {1, 1, 2, 2})));
}

TEST_F(ConvTranspose2dTest, RejectsInputOrFilterNot4D) {
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 5, 5}), in({1, 1, 2, 2})));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 1, 5, 5}), in({2, 2})));
}

TEST_F(ConvTranspose2dTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.convTranspose2d(foreign(F32, {1, 1, 5, 5}), in({1, 1, 3, 3})));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(in({1, 1, 5, 5}), foreign(F32, {1, 1, 3, 3})));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 3, 3}), {.bias = foreign(F32, {1})}));
}

TEST_F(ConvTranspose2dTest, RejectsOutputSizesThatAreNotValidDimensions) {
  // Padding larger than the output: (2-1)*2 + 3 - 8 + 1 = -2.
  EXPECT_TYPE_ERROR(builder.convTranspose2d(
      in({1, 1, 2, 2}), in({1, 1, 3, 3}),
      {.padding = {4, 4, 0, 0}, .strides = {2, 2}, .outputPadding = {1, 0}}));
  EXPECT_TYPE_ERROR(builder.convTranspose2d(
      in({1, 1, 2, 2}), in({1, 1, 3, 3}),
      {.padding = {0, 0, 4, 4}, .strides = {2, 2}, .outputPadding = {0, 1}}));
  // Sizes beyond 2^31-1, computed without wrapping.
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 434983, 2}), {.dilations = {328443, 1}}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 2, 234545}), {.dilations = {2, 843452}}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 3, 2}), {.dilations = {kU32Max, 1}}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 5, 5}), in({1, 1, 3, 2}), {.dilations = {1, kU32Max}}));
  EXPECT_TYPE_ERROR(
      builder.convTranspose2d(in({1, 1, 3, 3}), in({1, 1, 2, 2}), {.strides = {kU32Max, 1}}));
}

}  // namespace
}  // namespace cppnn::testing
