// Validation tests for the data movement ops (§2 rows 6, 47, 64, 81, 82, 86, 90, 92-95; errata
// §6 items 2, 6, 18): concat, split, reshape, expand, pad, slice, tile, transpose, triangular,
// reverse and where.
#include <string>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

constexpr uint32_t kMaxDim = 0x7fffffff;
constexpr uint32_t kMaxU32 = 0xffffffff;
const MLOperandDataType kAllTypes[] = {F32, F16, I32, U32, I64, U64, I8, U8};

// ---- concat (row 6) -----------------------------------------------------------------------------

class ConcatTest : public OpTest {};

TEST_F(ConcatTest, SumsTheAxisDimension) {
  EXPECT_TRUE(HasDesc(builder.concat({in({4, 4, 3})}, 2), F32, {4, 4, 3}));
  EXPECT_TRUE(HasDesc(builder.concat({in({3, 1, 5}), in({3, 2, 5})}, 1), F32, {3, 3, 5}));
  EXPECT_TRUE(
      HasDesc(builder.concat({in(I32, {3, 5, 1}), in(I32, {3, 5, 2}), in(I32, {3, 5, 3})}, 2), I32,
              {3, 5, 6}));
  EXPECT_TRUE(HasDesc(builder.concat({in({1}), in({1})}, 0), F32, {2}));
}

TEST_F(ConcatTest, AcceptsEveryDataType) {
  for (auto t : kAllTypes)
    EXPECT_TRUE(HasDesc(builder.concat({in(t, {2}), in(t, {3})}, 0), t, {5}));
}

TEST_F(ConcatTest, RejectsEmptyInputs) {
  EXPECT_TYPE_ERROR(builder.concat({}, 0));
}

TEST_F(ConcatTest, RejectsMoreThanTheMaximumTensorCount) {
  std::vector<MLOperand> inputs(8193, in({1}));
  EXPECT_TYPE_ERROR(builder.concat(inputs, 0));
  inputs.pop_back();
  EXPECT_TRUE(HasDesc(builder.concat(inputs, 0), F32, {8192}));
}

TEST_F(ConcatTest, RejectsMismatchedDataTypes) {
  EXPECT_TYPE_ERROR(builder.concat({in(F32, {1, 1}), in(I32, {1, 1})}, 0));
}

TEST_F(ConcatTest, RejectsDifferentRanks) {
  EXPECT_TYPE_ERROR(builder.concat({in({1, 1}), in({1, 1, 1})}, 0));
}

TEST_F(ConcatTest, RejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.concat({in({1, 1}), in({1, 1})}, 2));
}

TEST_F(ConcatTest, RejectsScalars) {
  EXPECT_TYPE_ERROR(builder.concat({in({}), in({})}, 0));
}

TEST_F(ConcatTest, RejectsDifferentNonAxisDimensions) {
  EXPECT_TYPE_ERROR(builder.concat({in({1, 1, 1}), in({1, 2, 3})}, 1));
}

TEST_F(ConcatTest, RejectsAxisSumThatIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.concat({in(U8, {0x40000000}), in(U8, {0x40000000})}, 0));
  // 3 * (2^31 - 1) wraps to a valid dimension in 32 bits: the sum must be computed wide.
  EXPECT_TYPE_ERROR(builder.concat({in(U8, {kMaxDim}), in(U8, {kMaxDim}), in(U8, {kMaxDim})}, 0));
}

TEST_F(ConcatTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.concat({in({2, 2}), foreign(F32, {2, 2}), in({2, 2})}, 0));
}

TEST_F(ConcatTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.concat({in({1, 1}), in({1, 1})}, 2, {.label = "concat_123"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("concat [concat_123]"), std::string::npos) << e.what();
  }
}

// ---- split (row 90) -----------------------------------------------------------------------------

class SplitTest : public OpTest {};

TEST_F(SplitTest, CountSplitsEquallyAlongDefaultAxis0) {
  auto outs = builder.split(in({6, 2}), 3);
  ASSERT_EQ(outs.size(), 3u);
  for (const auto& o : outs) EXPECT_TRUE(HasDesc(o, F32, {2, 2}));
  auto one = builder.split(in(I32, {2, 6}), Dims{2});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(HasDesc(one[0], I32, {2, 6}));
}

TEST_F(SplitTest, ListGivesTheListedSizesAlongAxis) {
  auto outs = builder.split(in(F16, {2, 6}), Dims{1, 2, 3}, {.axis = 1});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_TRUE(HasDesc(outs[0], F16, {2, 1}));
  EXPECT_TRUE(HasDesc(outs[1], F16, {2, 2}));
  EXPECT_TRUE(HasDesc(outs[2], F16, {2, 3}));
}

TEST_F(SplitTest, RejectsScalarInput) {
  EXPECT_TYPE_ERROR(builder.split(in({}), 1));
}

TEST_F(SplitTest, RejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), 2, {.axis = 2}));
}

TEST_F(SplitTest, RejectsZeroCount) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), 0));
}

TEST_F(SplitTest, RejectsCountThatDoesNotDivideTheAxis) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 5}), 2, {.axis = 1}));
}

TEST_F(SplitTest, RejectsCountAboveTheMaximumTensorCount) {
  EXPECT_TYPE_ERROR(builder.split(in({8193}), 8193));
  EXPECT_EQ(builder.split(in({8192}), 8192).size(), 8192u);
}

TEST_F(SplitTest, RejectsEmptyList) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), Dims{}));
}

TEST_F(SplitTest, RejectsListLongerThanTheMaximumTensorCount) {
  EXPECT_TYPE_ERROR(builder.split(in({8193}), Dims(8193, 1)));
}

TEST_F(SplitTest, RejectsZeroInList) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), Dims{0}));
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), Dims{0, 6}, {.axis = 1}));
}

TEST_F(SplitTest, RejectsListNotSummingToTheAxis) {
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), Dims{2, 2, 3}, {.axis = 1}));
  EXPECT_TYPE_ERROR(builder.split(in({2, 5}), Dims{2}, {.axis = 1}));
  // 2^32 - 1 + 3 wraps to 2 in 32 bits.
  EXPECT_TYPE_ERROR(builder.split(in({2, 6}), Dims{kMaxU32, 3}));
}

TEST_F(SplitTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.split(foreign(F32, {4, 4}), 2));
}

// ---- reshape (row 81) ---------------------------------------------------------------------------

class ReshapeTest : public OpTest {};

TEST_F(ReshapeTest, GivesNewShape) {
  EXPECT_TRUE(HasDesc(builder.reshape(in({2, 3, 4}), {3, 8}), F32, {3, 8}));
  EXPECT_TRUE(HasDesc(builder.reshape(in(I8, {2, 3, 4}), {24}), I8, {24}));
  EXPECT_TRUE(HasDesc(builder.reshape(in({1}), {}), F32, {}));
  EXPECT_TRUE(HasDesc(builder.reshape(in(U8, {}), {1}), U8, {1}));
}

TEST_F(ReshapeTest, AcceptsEveryDataType) {
  for (auto t : kAllTypes) EXPECT_TRUE(HasDesc(builder.reshape(in(t, {2, 3}), {3, 2}), t, {3, 2}));
}

TEST_F(ReshapeTest, RejectsZeroDimension) {
  EXPECT_TYPE_ERROR(builder.reshape(in({2, 4}), {2, 4, 0}));
}

TEST_F(ReshapeTest, RejectsDimensionAboveTheMaximum) {
  EXPECT_TYPE_ERROR(builder.reshape(in({1}), {0x80000000u}));
}

TEST_F(ReshapeTest, RejectsDifferentElementCount) {
  EXPECT_TYPE_ERROR(builder.reshape(in({2, 3, 4}), {}));
  EXPECT_TYPE_ERROR(builder.reshape(in({2, 3, 4}), {3, 9}));
  // 65536 * 65537 wraps to 65536 in 32 bits.
  EXPECT_TYPE_ERROR(builder.reshape(in(U8, {65536}), {65536, 65537}));
}

TEST_F(ReshapeTest, RejectsOutputRankAboveTheMaximum) {
  EXPECT_TYPE_ERROR(builder.reshape(in({1}), Dims(9, 1)));
}

TEST_F(ReshapeTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.reshape(foreign(F32, {1, 2, 3}), {3, 2, 1}));
}

// ---- expand (row 47, erratum 18) ----------------------------------------------------------------

class ExpandTest : public OpTest {};

TEST_F(ExpandTest, BroadcastsToNewShape) {
  EXPECT_TRUE(HasDesc(builder.expand(in({}), {3, 4, 5}), F32, {3, 4, 5}));
  EXPECT_TRUE(HasDesc(builder.expand(in({4}), {4}), F32, {4}));
  EXPECT_TRUE(HasDesc(builder.expand(in(I32, {3, 1, 5}), {3, 4, 5}), I32, {3, 4, 5}));
  EXPECT_TRUE(HasDesc(builder.expand(in(F16, {2, 5}), {3, 2, 5}), F16, {3, 2, 5}));
}

TEST_F(ExpandTest, AcceptsEveryDataType) {
  for (auto t : kAllTypes)
    EXPECT_TRUE(HasDesc(builder.expand(in(t, {1}), {1, 2, 3}), t, {1, 2, 3}));
}

TEST_F(ExpandTest, RejectsShapesNotUnidirectionallyBroadcastable) {
  EXPECT_TYPE_ERROR(builder.expand(in({3, 6, 2}), {4, 3, 5}));
  EXPECT_TYPE_ERROR(builder.expand(in({5, 4}), {5}));
  EXPECT_TYPE_ERROR(builder.expand(in({2, 3}), {1, 3}));  // only 1 may expand
}

TEST_F(ExpandTest, RejectsInvalidNewShapeDimensions) {
  EXPECT_TYPE_ERROR(builder.expand(in({1}), {0}));
  EXPECT_TYPE_ERROR(builder.expand(in({1, 2, 1, 1}), {1, 2, kMaxU32, kMaxU32}));
}

TEST_F(ExpandTest, RejectsTooManyOutputElements) {
  EXPECT_TYPE_ERROR(builder.expand(in({1, 1}), {65536, 65536}));
}

TEST_F(ExpandTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.expand(foreign(F32, {2, 1, 2}), {2, 2, 2}));
}

// ---- pad (row 64) -------------------------------------------------------------------------------

class PadTest : public OpTest {};

TEST_F(PadTest, AddsBeginningAndEndingPadding) {
  EXPECT_TRUE(HasDesc(builder.pad(in({2, 3}), {1, 2}, {1, 2}), F32, {4, 7}));
  EXPECT_TRUE(HasDesc(builder.pad(in(I32, {2, 3}), {5, 0}, {0, 9}, {.mode = MLPaddingMode::kEdge}),
                      I32, {7, 12}));
  EXPECT_TRUE(
      HasDesc(builder.pad(in(F16, {2, 3}), {1, 2}, {1, 0}, {.mode = MLPaddingMode::kReflection}),
              F16, {4, 5}));
}

TEST_F(PadTest, AcceptsScalarInput) {
  // Allowed since #894 (the 2025-03 WPT validation copy still expects a TypeError).
  EXPECT_TRUE(HasDesc(builder.pad(in({}), {}, {}), F32, {}));
}

TEST_F(PadTest, AcceptsEveryDataType) {
  for (auto t : kAllTypes) EXPECT_TRUE(HasDesc(builder.pad(in(t, {2}), {1}, {1}), t, {4}));
}

TEST_F(PadTest, RejectsBeginningPaddingLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {1}, {1, 2}));
}

TEST_F(PadTest, RejectsEndingPaddingLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {1, 0}, {1, 2, 0}));
  EXPECT_TYPE_ERROR(builder.pad(in({}), {}, {1}));
}

TEST_F(PadTest, RejectsReflectionPaddingNotLessThanTheDimension) {
  const MLPadOptions reflection{.mode = MLPaddingMode::kReflection};
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {2, 0}, {0, 0}, reflection));
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {0, 0}, {0, 3}, reflection));
}

TEST_F(PadTest, RejectsPaddedSizeThatIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {kMaxDim, 0}, {0, 0}));
  // 2^32 - 1 + 2 wraps to 1 in 32 bits.
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {kMaxU32, 0}, {0, 0}, {.mode = MLPaddingMode::kEdge}));
  EXPECT_TYPE_ERROR(builder.pad(in({2, 3}), {2294967295u, 0}, {3294967295u, 2}));
}

TEST_F(PadTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.pad(foreign(F32, {2, 2}), {1, 1}, {1, 1}));
}

// ---- slice (row 86) -----------------------------------------------------------------------------

class SliceTest : public OpTest {};

TEST_F(SliceTest, GivesTheSizesWithDefaultStrides) {
  EXPECT_TRUE(HasDesc(builder.slice(in({3, 4, 5}), {0, 1, 2}, {1, 2, 3}), F32, {1, 2, 3}));
  EXPECT_TRUE(HasDesc(builder.slice(in(U8, {3, 4, 5}), {0, 0, 0}, {3, 4, 5}), U8, {3, 4, 5}));
  EXPECT_TRUE(HasDesc(builder.slice(in({}), {}, {}), F32, {}));
}

TEST_F(SliceTest, DividesSizesByStridesRoundingUp) {
  EXPECT_TRUE(HasDesc(builder.slice(in({3, 8, 5}), {0, 1, 0}, {3, 7, 5}, {.strides = {2, 3, 5}}),
                      F32, {2, 3, 1}));
}

TEST_F(SliceTest, RejectsStartsLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 1, 3}, {1, 1, 1}));
  EXPECT_TYPE_ERROR(builder.slice(in({}), {0}, {1}));
}

TEST_F(SliceTest, RejectsSizesLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 1}));
}

TEST_F(SliceTest, RejectsStridesLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 1, 1}, {.strides = {1, 1, 1, 1}}));
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 1, 1}, {.strides = Dims{}}));
}

TEST_F(SliceTest, RejectsZeroSize) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 0, 1}));
}

TEST_F(SliceTest, RejectsStrideLessThanOne) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 1, 1}, {.strides = {0, 0, 0}}));
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {1, 2, 3}, {1, 1, 1}, {.strides = {1, 0, 1}}));
}

TEST_F(SliceTest, RejectsSliceBeyondTheDimension) {
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {0, 4, 4}, {1, 1, 1}));
  EXPECT_TYPE_ERROR(builder.slice(in({3, 4, 5}), {0, 1, 2}, {3, 4, 1}));
  // 2^32 - 1 + 2 wraps to 1 in 32 bits.
  EXPECT_TYPE_ERROR(builder.slice(in({3}), {kMaxU32}, {2}));
}

TEST_F(SliceTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.slice(foreign(F32, {2, 2}), {1, 1}, {1, 1}));
}

// ---- tile (row 92) ------------------------------------------------------------------------------

class TileTest : public OpTest {};

TEST_F(TileTest, MultipliesDimensionsByRepetitions) {
  EXPECT_TRUE(HasDesc(builder.tile(in({1, 2, 3, 4}), {1, 1, 1, 1}), F32, {1, 2, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.tile(in(U32, {1, 2, 3, 4}), {1, 2, 3, 4}), U32, {1, 4, 9, 16}));
  EXPECT_TRUE(HasDesc(builder.tile(in(I64, {}), {}), I64, {}));
}

TEST_F(TileTest, RejectsRepetitionsLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.tile(in(I32, {1, 2, 4}), {1, 2, 3, 4}));
}

TEST_F(TileTest, RejectsZeroRepetition) {
  EXPECT_TYPE_ERROR(builder.tile(in(I32, {1, 2, 3, 4}), {0, 1, 2, 3}));
}

TEST_F(TileTest, RejectsTiledSizeThatIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.tile(in(I32, {1, 2, 3, 4}), {1, 1, kMaxU32, 3}));  // -1 in WPT
  // 2 * (2^31 + 1) wraps to 2 in 32 bits.
  EXPECT_TYPE_ERROR(builder.tile(in(U8, {2}), {0x80000001u}));
}

TEST_F(TileTest, RejectsTooManyOutputElements) {
  EXPECT_TYPE_ERROR(builder.tile(in(U8, {65536, 1}), {1, 65536}));
}

TEST_F(TileTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.tile(foreign(F32, {2, 2}), {1, 1}));
}

// ---- transpose (row 93, erratum 2) --------------------------------------------------------------

class TransposeTest : public OpTest {};

TEST_F(TransposeTest, DefaultReversesTheDimensions) {
  for (auto t : kAllTypes)
    EXPECT_TRUE(HasDesc(builder.transpose(in(t, {1, 2, 3, 4})), t, {4, 3, 2, 1}));
  EXPECT_TRUE(HasDesc(builder.transpose(in({})), F32, {}));
}

TEST_F(TransposeTest, PermutesTheShape) {
  EXPECT_TRUE(HasDesc(builder.transpose(in({1, 2, 3, 4}), {.permutation = {0, 2, 3, 1}}), F32,
                      {1, 3, 4, 2}));
  EXPECT_TRUE(HasDesc(builder.transpose(in({}), {.permutation = Dims{}}), F32, {}));
}

TEST_F(TransposeTest, RejectsPermutationLengthNotRank) {
  EXPECT_TYPE_ERROR(builder.transpose(in(I32, {1, 2, 4}), {.permutation = {0, 2, 3, 1}}));
  EXPECT_TYPE_ERROR(builder.transpose(in(I32, {1, 2}), {.permutation = Dims{}}));
}

TEST_F(TransposeTest, RejectsDuplicatePermutationValues) {
  EXPECT_TYPE_ERROR(builder.transpose(in(I32, {1, 2, 3, 4}), {.permutation = {0, 2, 3, 2}}));
}

TEST_F(TransposeTest, RejectsPermutationValueOutOfRange) {
  EXPECT_TYPE_ERROR(builder.transpose(in(I32, {1, 2, 3, 4}), {.permutation = {0, 1, 2, 4}}));
  EXPECT_TYPE_ERROR(builder.transpose(in(I32, {1, 2, 3, 4}), {.permutation = {0, kMaxU32, 2, 3}}));
}

TEST_F(TransposeTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.transpose(foreign(F32, {2, 2})));
}

// ---- triangular (row 94) ------------------------------------------------------------------------

class TriangularTest : public OpTest {};

TEST_F(TriangularTest, CopiesTheInput) {
  EXPECT_TRUE(HasDesc(builder.triangular(in({2, 3})), F32, {2, 3}));
  EXPECT_TRUE(HasDesc(builder.triangular(in(F16, {4, 2, 3}), {.upper = false, .diagonal = -2}), F16,
                      {4, 2, 3}));
  for (auto t : kAllTypes) EXPECT_TRUE(HasDesc(builder.triangular(in(t, {2, 2})), t, {2, 2}));
}

TEST_F(TriangularTest, RejectsRankBelowTwo) {
  for (auto t : kAllTypes) {
    EXPECT_TYPE_ERROR(builder.triangular(in(t, {})));
    EXPECT_TYPE_ERROR(builder.triangular(in(t, {2})));
  }
}

TEST_F(TriangularTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.triangular(foreign(F32, {2, 2})));
}

// ---- reverse (row 82, erratum 6) ----------------------------------------------------------------

class ReverseTest : public OpTest {};

TEST_F(ReverseTest, CopiesTheInput) {
  EXPECT_TRUE(HasDesc(builder.reverse(in({3, 3})), F32, {3, 3}));
  EXPECT_TRUE(HasDesc(builder.reverse(in(I32, {1, 2, 3}), {.axes = {0, 1}}), I32, {1, 2, 3}));
  EXPECT_TRUE(HasDesc(builder.reverse(in(U8, {1, 2}), {.axes = Dims{}}), U8, {1, 2}));
  EXPECT_TRUE(HasDesc(builder.reverse(in({})), F32, {}));
}

TEST_F(ReverseTest, RejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.reverse(in({3, 3}), {.axes = {3}}));
  EXPECT_TYPE_ERROR(builder.reverse(in({3, 3}), {.axes = {2}}));
  EXPECT_TYPE_ERROR(builder.reverse(in({}), {.axes = {0}}));
}

TEST_F(ReverseTest, RejectsDuplicateAxes) {
  EXPECT_TYPE_ERROR(builder.reverse(in({1, 2, 3, 4}), {.axes = {2, 2, 3}}));
}

TEST_F(ReverseTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.reverse(foreign(F32, {3, 3})));
}

// ---- where (row 95) -----------------------------------------------------------------------------

class WhereTest : public OpTest {};

TEST_F(WhereTest, BroadcastsAllThreeWithTrueValueType) {
  EXPECT_TRUE(HasDesc(builder.where(in(U8, {2, 1}), in({2, 4}), in({2, 4})), F32, {2, 4}));
  EXPECT_TRUE(
      HasDesc(builder.where(in(U8, {1, 4}), in(F16, {3, 4}), in(F16, {2, 3, 4})), F16, {2, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.where(in(U8, {2, 1, 4}), in(I32, {2, 3, 4}), in(I32, {1, 4})), I32,
                      {2, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.where(in(U8, {2, 3, 4, 5}), in(U32, {3, 4, 5}), in(U32, {4, 5})), U32,
                      {2, 3, 4, 5}));
  EXPECT_TRUE(HasDesc(builder.where(in(U8, {}), in(I8, {}), in(I8, {})), I8, {}));
}

TEST_F(WhereTest, AcceptsEveryValueDataType) {
  for (auto t : kAllTypes)
    EXPECT_TRUE(HasDesc(builder.where(in(U8, {2}), in(t, {2}), in(t, {1})), t, {2}));
}

TEST_F(WhereTest, RejectsConditionThatIsNotUint8) {
  EXPECT_TYPE_ERROR(builder.where(in(F32, {2, 4}), in({2, 4}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.where(in(I8, {2, 4}), in({2, 4}), in({2, 4})));
}

TEST_F(WhereTest, RejectsFalseValueTypeDifferentFromTrueValue) {
  EXPECT_TYPE_ERROR(builder.where(in(U8, {2, 4}), in(F16, {2, 4}), in(F32, {2, 4})));
}

TEST_F(WhereTest, RejectsValuesNotBroadcastable) {
  EXPECT_TYPE_ERROR(builder.where(in(U8, {2, 4}), in({2, 4}), in({2, 3})));
}

TEST_F(WhereTest, RejectsConditionNotBroadcastable) {
  EXPECT_TYPE_ERROR(builder.where(in(U8, {2, 4}), in({2, 3}), in({2, 1})));
}

TEST_F(WhereTest, RejectsTooManyOutputElements) {
  EXPECT_TYPE_ERROR(builder.where(in(U8, {1, 65536}), in({65536, 1}), in({1, 1})));
}

TEST_F(WhereTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.where(foreign(U8, {2, 4}), in({2, 4}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.where(in(U8, {2, 4}), foreign(F32, {2, 4}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.where(in(U8, {2, 4}), in({2, 4}), foreign(F32, {2, 4})));
}

// ---- support limits -----------------------------------------------------------------------------

TEST(DataMovementLimitsTest, UsesTheSpecRoleNames) {
  MLContext context = MLContext::create();
  const MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_EQ(limits.op("concat")["inputs"].rankRange.min, 1u);
  EXPECT_EQ(limits.op("split")["outputs"].rankRange.min, 1u);
  EXPECT_EQ(limits.op("triangular")["input"].rankRange.min, 2u);
  const MLOpLimits& where = limits.op("where");
  EXPECT_EQ(where["condition"].dataTypes, std::vector<MLOperandDataType>{U8});
  EXPECT_EQ(where["falseValue"].dataTypes, where["trueValue"].dataTypes);
  EXPECT_EQ(where["output"].dataTypes.size(), 8u);
}

}  // namespace
}  // namespace cppnn::testing
