// Validation tests for resample2d (§2 row 80, erratum §6.16).
#include <limits>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class Resample2dTest : public OpTest {};

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST_F(Resample2dTest, DefaultOptionsKeepTheShape) {
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4})), F32, {1, 1, 2, 4}));
  EXPECT_TRUE(
      HasDesc(builder.resample2d(in(F16, {1, 1, 2, 4}), {.mode = MLInterpolationMode::kLinear}),
              F16, {1, 1, 2, 4}));
}

TEST_F(Resample2dTest, ScalesAreFlooredProducts) {
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {2, 2}}), F32, {1, 1, 4, 8}));
  EXPECT_TRUE(
      HasDesc(builder.resample2d(in({1, 1, 5, 5}), {.scales = {0.5, 0.5}}), F32, {1, 1, 2, 2}));
  EXPECT_TRUE(
      HasDesc(builder.resample2d(in({1, 1, 3, 4}), {.scales = {1.5, 0.8f}}), F32, {1, 1, 4, 3}));
  // The float 0.7f is 0.699999988..., so 10 * 0.7f floors to 6.
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 10, 10}), {.scales = {0.7f, 0.75f}}), F32,
                      {1, 1, 6, 7}));
}

TEST_F(Resample2dTest, AxesSelectTheResampledDimensions) {
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 5, 5}), {.scales = {0.5, 0.5}, .axes = {2, 3}}),
                      F32, {1, 1, 2, 2}));
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {1, 2}, .axes = {0, 1}}), F32,
                      {1, 2, 2, 4}));
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {2, 2}, .axes = {1, 2}}), F32,
                      {1, 2, 4, 4}));
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.axes = {0, 2}}), F32, {1, 1, 2, 4}));
  // The scales follow the order of axes.
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {3, 2}, .axes = {3, 2}}), F32,
                      {1, 1, 4, 12}));
}

TEST_F(Resample2dTest, SizesTakePrecedenceOverScales) {
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {2, 2}, .sizes = {3, 6}}),
                      F32, {1, 1, 3, 6}));
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {7, 1}, .axes = {1, 3}}), F32,
                      {1, 7, 2, 1}));
  // Scales that would give an invalid size are unused.
  EXPECT_TRUE(HasDesc(builder.resample2d(in({1, 1, 2, 4}), {.scales = {0.01f, 1}, .sizes = {1, 4}}),
                      F32, {1, 1, 1, 4}));
}

TEST_F(Resample2dTest, DataTypes) {
  for (auto t : {F32, F16, U8, I8}) {
    SCOPED_TRACE(static_cast<int>(t));
    EXPECT_TRUE(HasDesc(builder.resample2d(in(t, {1, 1, 2, 4})), t, {1, 1, 2, 4}));
  }
  for (auto t : {I32, U32, I64, U64}) {
    SCOPED_TRACE(static_cast<int>(t));
    EXPECT_TYPE_ERROR(builder.resample2d(in(t, {1, 1, 2, 4})));
  }
}

TEST_F(Resample2dTest, RejectsInputNot4D) {
  EXPECT_TYPE_ERROR(builder.resample2d(in({2, 4})));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 1, 2, 4})));
}

TEST_F(Resample2dTest, RejectsWrongListLengths) {
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {1, 1, 2, 2}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {2}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {1, 1, 4, 6}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {4}}));
  // Erratum 16: the algorithm omits this check.
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.axes = {0, 1, 2}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.axes = {2}}));
}

TEST_F(Resample2dTest, RejectsScalesThatAreNotPositiveFiniteNumbers) {
  for (float bad : {-2.0f, 0.0f, -0.0f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(bad);
    EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {1, bad}}));
    EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {bad, 1}}));
    // Checked even when sizes are given.
    EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {bad, 1}, .sizes = {2, 2}}));
  }
}

TEST_F(Resample2dTest, RejectsZeroSizes) {
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {0, 1}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {1, 0}}));
}

TEST_F(Resample2dTest, RejectsAxesOutOfRangeOrDuplicated) {
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.axes = {3, 4}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.axes = {0, 0}}));
}

TEST_F(Resample2dTest, RejectsOutputSizesThatAreNotValidDimensions) {
  // floor(2 * 0.02) = 0 and floor(4 * 0.1) = 0.
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {0.02f, 0.8f}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {0.7f, 0.1f}}));
  // Beyond 2^31-1.
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {4294967295.0f, 1}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 4, 2}), {.scales = {1, 4294967295.0f}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.scales = {3.4e38f, 1}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {2147483648u, 1}}));
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {4294967295u, 4294967295u}}));
}

TEST_F(Resample2dTest, RejectsOutputsOverTheElementLimit) {
  // Each dim is valid but the element count is not.
  EXPECT_TYPE_ERROR(builder.resample2d(in({1, 1, 2, 4}), {.sizes = {65536, 65536}}));
}

TEST_F(Resample2dTest, RejectsInputFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.resample2d(foreign(F32, {2, 2, 2, 2})));
}

TEST_F(Resample2dTest, ErrorMessageNamesOpAndLabel) {
  try {
    (void)builder.resample2d(in({1, 1, 2, 4}), {.axes = {0, 0}, .label = "resample-2d"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("resample2d [resample-2d]"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
