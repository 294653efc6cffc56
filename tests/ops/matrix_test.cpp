// Validation tests for gemm and matmul (§2 rows 52, 63).
#include <limits>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- gemm (row 52) ------------------------------------------------------------------------------

class GemmTest : public OpTest {};

TEST_F(GemmTest, DefaultOptionsGiveMByN) {
  EXPECT_TRUE(HasDesc(builder.gemm(in({2, 3}), in({3, 4})), F32, {2, 4}));
  EXPECT_TRUE(HasDesc(builder.gemm(in(F16, {1, 1}), in(F16, {1, 7})), F16, {1, 7}));
}

TEST_F(GemmTest, TransposesSwapTheDimensionsOfAAndB) {
  EXPECT_TRUE(HasDesc(builder.gemm(in({2, 3}), in({2, 4}), {.aTranspose = true}), F32, {3, 4}));
  EXPECT_TRUE(HasDesc(builder.gemm(in({2, 3}), in({4, 3}), {.bTranspose = true}), F32, {2, 4}));
  EXPECT_TRUE(HasDesc(
      builder.gemm(in({3, 2}), in({4, 3}), {.aTranspose = true, .bTranspose = true}), F32, {2, 4}));
}

TEST_F(GemmTest, CBroadcastsToTheOutput) {
  for (Dims c : {Dims{}, Dims{4}, Dims{1, 4}, Dims{2, 1}, Dims{2, 4}, Dims{1}})
    EXPECT_TRUE(
        HasDesc(builder.gemm(in({2, 3}), in({3, 4}), {.c = in(c), .alpha = 0.5, .beta = -2.0}), F32,
                {2, 4}));
}

TEST_F(GemmTest, RejectsInnerDimensionMismatch) {
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.aTranspose = true}));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.bTranspose = true}));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.aTranspose = true, .bTranspose = true}));
}

TEST_F(GemmTest, RejectsAOrBThatIsNotTwoDimensional) {
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3, 1}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 4}), in({2, 3, 1})));
  EXPECT_TYPE_ERROR(builder.gemm(in({3}), in({3, 4})));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3})));
}

TEST_F(GemmTest, RejectsCNotBroadcastableToTheOutput) {
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.c = in({2, 3})}));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.c = in({3})}));
}

TEST_F(GemmTest, RejectsCOfRankThree) {
  EXPECT_TYPE_ERROR(builder.gemm(in({3, 2}), in({4, 3}),
                                 {.c = in({2, 3, 4}), .aTranspose = true, .bTranspose = true}));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.c = in({1, 2, 4})}));
}

TEST_F(GemmTest, RejectsNonFloatInputs) {
  EXPECT_TYPE_ERROR(builder.gemm(in(I32, {2, 3}), in(I32, {3, 4})));
}

TEST_F(GemmTest, RejectsMismatchedDataTypes) {
  EXPECT_TYPE_ERROR(builder.gemm(in(F32, {2, 3}), in(F16, {3, 4})));
  EXPECT_TYPE_ERROR(builder.gemm(in(F32, {3, 2}), in(F32, {4, 3}),
                                 {.c = in(F16, {2, 4}), .aTranspose = true, .bTranspose = true}));
}

TEST_F(GemmTest, RejectsNonFiniteAlphaOrBeta) {
  for (double v : {kNaN, kInf, -kInf}) {
    EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.alpha = v}));
    EXPECT_TYPE_ERROR(builder.gemm(in({2, 3}), in({3, 4}), {.beta = v}));
  }
}

TEST_F(GemmTest, RejectsOutputElementCountThatIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.gemm(in({65536, 1}), in({1, 65536})));
}

TEST_F(GemmTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.gemm(foreign(F32, {2, 2}), in({2, 2})));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 2}), foreign(F32, {2, 2})));
  EXPECT_TYPE_ERROR(builder.gemm(in({2, 2}), in({2, 2}), {.c = foreign(F32, {2, 2})}));
}

// ---- matmul (row 63) ----------------------------------------------------------------------------

class MatmulTest : public OpTest {};

TEST_F(MatmulTest, MultipliesTheLastTwoDimensions) {
  EXPECT_TRUE(HasDesc(builder.matmul(in({4, 2}), in({2, 3})), F32, {4, 3}));
  EXPECT_TRUE(HasDesc(builder.matmul(in({2, 3, 4}), in({2, 4, 5})), F32, {2, 3, 5}));
  EXPECT_TRUE(HasDesc(builder.matmul(in(F16, {1, 1}), in(F16, {1, 1})), F16, {1, 1}));
}

TEST_F(MatmulTest, BroadcastsTheBatchDimensions) {
  EXPECT_TRUE(HasDesc(builder.matmul(in({1, 4}), in({2, 2, 4, 2})), F32, {2, 2, 1, 2}));
  EXPECT_TRUE(HasDesc(builder.matmul(in({2, 3, 4}), in({1, 4, 1})), F32, {2, 3, 1}));
  EXPECT_TRUE(HasDesc(builder.matmul(in({2, 2, 3, 4}), in({1, 4, 5})), F32, {2, 2, 3, 5}));
  EXPECT_TRUE(HasDesc(builder.matmul(in({3, 1, 2, 4}), in({5, 4, 6})), F32, {3, 5, 2, 6}));
}

TEST_F(MatmulTest, RejectsRankBelowTwo) {
  EXPECT_TYPE_ERROR(builder.matmul(in({2}), in({2, 2})));
  EXPECT_TYPE_ERROR(builder.matmul(in({2, 2}), in({2})));
  EXPECT_TYPE_ERROR(builder.matmul(in({}), in({})));
}

TEST_F(MatmulTest, RejectsColumnsOfADifferentFromRowsOfB) {
  EXPECT_TYPE_ERROR(builder.matmul(in({2, 3}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.matmul(in({5, 2, 3}), in({5, 4, 3})));
}

TEST_F(MatmulTest, RejectsBatchDimensionsThatDoNotBroadcast) {
  EXPECT_TYPE_ERROR(builder.matmul(in({3, 3, 4}), in({2, 4, 1})));
}

TEST_F(MatmulTest, RejectsNonFloatInputs) {
  EXPECT_TYPE_ERROR(builder.matmul(in(U32, {2, 3, 4}), in(U32, {2, 4, 5})));
  EXPECT_TYPE_ERROR(builder.matmul(in(I32, {2, 2}), in(I32, {2, 2})));
}

TEST_F(MatmulTest, RejectsMismatchedDataTypes) {
  EXPECT_TYPE_ERROR(builder.matmul(in(F32, {2, 3, 4}), in(F16, {2, 4, 5})));
}

TEST_F(MatmulTest, RejectsOutputElementCountThatIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.matmul(in({65536, 1}), in({1, 65536})));
}

TEST_F(MatmulTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.matmul(foreign(F32, {2, 2}), in({2, 2})));
  EXPECT_TYPE_ERROR(builder.matmul(in({2, 2}), foreign(F32, {2, 2})));
}

}  // namespace
}  // namespace cppnn::testing
