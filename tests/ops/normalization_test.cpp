// Validation tests for batchNormalization, instanceNormalization and layerNormalization (§2 rows
// 3, 57, 58).
#include <limits>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- batchNormalization (row 3) -----------------------------------------------------------------

class BatchNormalizationTest : public OpTest {};

TEST_F(BatchNormalizationTest, DefaultOptionsNormalizeAxisOne) {
  EXPECT_TRUE(
      HasDesc(builder.batchNormalization(in({1, 2, 5, 5}), in({2}), in({2})), F32, {1, 2, 5, 5}));
  EXPECT_TRUE(HasDesc(builder.batchNormalization(in(F16, {3, 4}), in(F16, {4}), in(F16, {4})), F16,
                      {3, 4}));
}

TEST_F(BatchNormalizationTest, GivenAxisScaleBiasAndEpsilon) {
  EXPECT_TRUE(HasDesc(
      builder.batchNormalization(in({1, 2, 5, 5}), in({5}), in({5}),
                                 {.scale = in({5}), .bias = in({5}), .axis = 2, .epsilon = 1e-4}),
      F32, {1, 2, 5, 5}));
  EXPECT_TRUE(
      HasDesc(builder.batchNormalization(in({7}), in({7}), in({7}), {.axis = 0}), F32, {7}));
}

TEST_F(BatchNormalizationTest, RejectsNonFloatInput) {
  EXPECT_TYPE_ERROR(builder.batchNormalization(in(I32, {1, 2, 5, 5}), in(I32, {2}), in(I32, {2})));
}

TEST_F(BatchNormalizationTest, RejectsScalarInput) {
  EXPECT_TYPE_ERROR(builder.batchNormalization(in({}), in({1}), in({1}), {.axis = 0}));
}

TEST_F(BatchNormalizationTest, RejectsParameterDataTypeDifferentFromInput) {
  auto x = [&] { return in(F16, {1, 2, 5, 5}); };
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in(F32, {2}), in(F16, {2})));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in(F16, {2}), in(F32, {2})));
  EXPECT_TYPE_ERROR(
      builder.batchNormalization(x(), in(F16, {2}), in(F16, {2}), {.scale = in(F32, {2})}));
  EXPECT_TYPE_ERROR(
      builder.batchNormalization(x(), in(F16, {2}), in(F16, {2}), {.bias = in(F32, {2})}));
}

TEST_F(BatchNormalizationTest, RejectsParameterThatIsNotOneDimensional) {
  auto x = [&] { return in({1, 2, 5, 5}); };
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({1, 2}), in({2})));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({2}), in({2, 2})));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({2}), in({2}), {.scale = in({2, 1})}));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({2}), in({2}), {.bias = in({})}));
}

TEST_F(BatchNormalizationTest, RejectsParameterSizeDifferentFromAxisDimension) {
  auto x = [&] { return in({1, 2, 5, 5}); };
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({3}), in({2}), {.axis = 1}));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), in({5}), in({2}), {.axis = 2}));
  EXPECT_TYPE_ERROR(
      builder.batchNormalization(x(), in({5}), in({5}), {.scale = in({2}), .axis = 2}));
  EXPECT_TYPE_ERROR(
      builder.batchNormalization(x(), in({5}), in({5}), {.bias = in({2}), .axis = 2}));
}

TEST_F(BatchNormalizationTest, RejectsAxisNotLessThanRank) {
  EXPECT_TYPE_ERROR(builder.batchNormalization(in({1, 2, 5, 5}), in({5}), in({5}), {.axis = 4}));
}

TEST_F(BatchNormalizationTest, RejectsNonFiniteEpsilon) {
  for (double eps : {kNaN, kInf, -kInf})
    EXPECT_TYPE_ERROR(builder.batchNormalization(in({1, 2}), in({2}), in({2}), {.epsilon = eps}));
}

TEST_F(BatchNormalizationTest, RejectsOperandsFromAnotherBuilder) {
  auto x = [&] { return in({2, 2}); };
  auto p = [&] { return in({2}); };
  auto f = [&] { return foreign(F32, {2}); };
  EXPECT_TYPE_ERROR(builder.batchNormalization(foreign(F32, {2, 2}), p(), p()));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), f(), p()));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), p(), f()));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), p(), p(), {.scale = f()}));
  EXPECT_TYPE_ERROR(builder.batchNormalization(x(), p(), p(), {.bias = f()}));
}

// ---- instanceNormalization (row 57) -------------------------------------------------------------

class InstanceNormalizationTest : public OpTest {};

TEST_F(InstanceNormalizationTest, DefaultOptionsCopyTheInput) {
  EXPECT_TRUE(HasDesc(builder.instanceNormalization(in({1, 2, 3, 4})), F32, {1, 2, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.instanceNormalization(in(F16, {1, 2, 3, 4})), F16, {1, 2, 3, 4}));
}

TEST_F(InstanceNormalizationTest, ScaleAndBiasMatchChannelsOfTheLayout) {
  EXPECT_TRUE(HasDesc(builder.instanceNormalization(
                          in({1, 2, 3, 4}), {.scale = in({2}), .bias = in({2}), .epsilon = 1e-4}),
                      F32, {1, 2, 3, 4}));
  EXPECT_TRUE(
      HasDesc(builder.instanceNormalization(
                  in({1, 2, 3, 4}),
                  {.scale = in({4}), .bias = in({4}), .layout = MLInputOperandLayout::kNhwc}),
              F32, {1, 2, 3, 4}));
}

TEST_F(InstanceNormalizationTest, RejectsInputThatIsNotFourDimensional) {
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({1, 2, 5, 5, 2})));
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({1, 2, 5})));
}

TEST_F(InstanceNormalizationTest, RejectsNonFloatInput) {
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in(I32, {1, 2, 5, 5})));
}

TEST_F(InstanceNormalizationTest, RejectsParameterDataTypeDifferentFromInput) {
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in(F16, {1, 2, 5, 5}), {.scale = in(F32, {2})}));
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in(F16, {1, 2, 5, 5}), {.bias = in(F32, {2})}));
}

TEST_F(InstanceNormalizationTest, RejectsParameterThatIsNotOneDimensional) {
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({1, 2, 5, 5}), {.scale = in({2, 1})}));
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({1, 2, 5, 5}), {.bias = in({2, 1})}));
}

TEST_F(InstanceNormalizationTest, RejectsParameterSizeDifferentFromChannels) {
  constexpr auto kNhwc = MLInputOperandLayout::kNhwc;
  constexpr auto kNchw = MLInputOperandLayout::kNchw;
  EXPECT_TYPE_ERROR(
      builder.instanceNormalization(in({1, 2, 5, 5}), {.scale = in({2}), .layout = kNhwc}));
  EXPECT_TYPE_ERROR(
      builder.instanceNormalization(in({1, 5, 5, 2}), {.scale = in({2}), .layout = kNchw}));
  EXPECT_TYPE_ERROR(
      builder.instanceNormalization(in({1, 2, 5, 5}), {.bias = in({2}), .layout = kNhwc}));
  EXPECT_TYPE_ERROR(
      builder.instanceNormalization(in({1, 5, 5, 2}), {.bias = in({2}), .layout = kNchw}));
}

TEST_F(InstanceNormalizationTest, RejectsNonFiniteEpsilon) {
  for (double eps : {kNaN, kInf, -kInf})
    EXPECT_TYPE_ERROR(builder.instanceNormalization(in({1, 2, 3, 4}), {.epsilon = eps}));
}

TEST_F(InstanceNormalizationTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.instanceNormalization(foreign(F32, {2, 2, 2, 2})));
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({2, 2, 2, 2}), {.scale = foreign(F32, {2})}));
  EXPECT_TYPE_ERROR(builder.instanceNormalization(in({2, 2, 2, 2}), {.bias = foreign(F32, {2})}));
}

// ---- layerNormalization (row 58) ----------------------------------------------------------------

class LayerNormalizationTest : public OpTest {};

TEST_F(LayerNormalizationTest, DefaultOptionsCopyTheInput) {
  EXPECT_TRUE(HasDesc(builder.layerNormalization(in({})), F32, {}));
  EXPECT_TRUE(HasDesc(builder.layerNormalization(in(F16, {})), F16, {}));
  EXPECT_TRUE(
      HasDesc(builder.layerNormalization(in({1, 2, 3, 4}), {.epsilon = 1e-4}), F32, {1, 2, 3, 4}));
}

TEST_F(LayerNormalizationTest, DefaultAxesAreAllButTheFirst) {
  EXPECT_TRUE(HasDesc(builder.layerNormalization(in({1, 2, 3, 4}), {.scale = in({2, 3, 4})}), F32,
                      {1, 2, 3, 4}));
  // Rank 1: default axes are empty, so scale and bias are scalars.
  EXPECT_TRUE(
      HasDesc(builder.layerNormalization(in({5}), {.scale = in({}), .bias = in({})}), F32, {5}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({5}), {.scale = in({5})}));
}

TEST_F(LayerNormalizationTest, ScaleAndBiasFollowTheGivenAxesOrder) {
  EXPECT_TRUE(
      HasDesc(builder.layerNormalization(in({1, 2, 3, 4}), {.axes = {3}}), F32, {1, 2, 3, 4}));
  EXPECT_TRUE(
      HasDesc(builder.layerNormalization(in({1, 2, 3, 4}),
                                         {.scale = in({3, 4}), .bias = in({3, 4}), .axes = {2, 3}}),
              F32, {1, 2, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.layerNormalization(
                          in({1, 2, 3, 4, 5, 6}),
                          {.scale = in({2, 4, 6}), .bias = in({2, 4, 6}), .axes = {1, 3, 5}}),
                      F32, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(HasDesc(
      builder.layerNormalization(
          in({1, 2, 3, 4, 5, 6}),
          {.scale = in({6, 5, 4, 3, 2}), .bias = in({6, 5, 4, 3, 2}), .axes = {5, 4, 3, 2, 1}}),
      F32, {1, 2, 3, 4, 5, 6}));
}

TEST_F(LayerNormalizationTest, EmptyAxesTakeScalarScaleAndBias) {
  MLLayerNormalizationOptions o{.scale = in({}), .bias = in({})};
  o.axes = std::vector<uint32_t>{};
  EXPECT_TRUE(HasDesc(builder.layerNormalization(in({2, 3}), o), F32, {2, 3}));
}

TEST_F(LayerNormalizationTest, RejectsNonFloatInput) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(in(U32, {1, 2, 3, 4})));
}

TEST_F(LayerNormalizationTest, RejectsOutOfRangeAxis) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.axes = {1, 2, 4}}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({}), {.axes = {0}}));
}

TEST_F(LayerNormalizationTest, RejectsDuplicateAxes) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.axes = {3, 3}}));
}

TEST_F(LayerNormalizationTest, RejectsParameterDataTypeDifferentFromInput) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(
      in({1, 2, 3, 4}), {.scale = in(F32, {3, 4}), .bias = in(F16, {3, 4}), .axes = {2, 3}}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(
      in({1, 2, 3, 4}), {.scale = in(F16, {3, 4}), .bias = in(F32, {3, 4}), .axes = {2, 3}}));
}

TEST_F(LayerNormalizationTest, RejectsParameterShapeDifferentFromAxesDimensions) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.scale = in({3, 3, 4})}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.bias = in({3, 3, 4})}));
  EXPECT_TYPE_ERROR(
      builder.layerNormalization(in({1, 2, 3, 4}), {.scale = in({4, 3}), .axes = {2, 3}}));
}

TEST_F(LayerNormalizationTest, RejectsParameterRankDifferentFromAxesCount) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.scale = in({1, 2, 3, 4})}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({1, 2, 3, 4}), {.bias = in({1, 2, 3, 4})}));
}

TEST_F(LayerNormalizationTest, RejectsNonFiniteEpsilon) {
  for (double eps : {kNaN, kInf, -kInf})
    EXPECT_TYPE_ERROR(builder.layerNormalization(in({2, 3}), {.epsilon = eps}));
}

TEST_F(LayerNormalizationTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.layerNormalization(foreign(F32, {2, 2})));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({2, 2}), {.scale = foreign(F32, {2})}));
  EXPECT_TYPE_ERROR(builder.layerNormalization(in({2, 2}), {.bias = foreign(F32, {2})}));
}

}  // namespace
}  // namespace cppnn::testing
