// Validation tests for gather, gatherElements, gatherND, scatterElements and scatterND
// (§2 rows 48-50, 83-84; §6 errata 3, 4, 11).
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class GatherScatterTest : public OpTest {};

// ---- gather ------------------------------------------------------------------------------------

struct GatherCase {
  Dims input, indices;
  uint32_t axis;
  Dims expected;
};

const GatherCase kGatherCases[] = {
    {{1, 2, 3, 4}, {5, 6}, 2, {1, 2, 5, 6, 4}},
    {{1, 2, 3, 4}, {5, 6}, 0, {5, 6, 2, 3, 4}},
    {{1, 2, 3, 4}, {5}, 3, {1, 2, 3, 5}},
    {{2, 3}, {}, 1, {2}},
    {{3}, {}, 0, {}},  // erratum 11: a rank-0 output
    {{3}, {2, 2}, 0, {2, 2}},
};

TEST_F(GatherScatterTest, GatherOutputShape) {
  for (const auto& c : kGatherCases)
    EXPECT_TRUE(HasDesc(builder.gather(in(c.input), in(I32, c.indices), {.axis = c.axis}), F32,
                        c.expected));
}

TEST_F(GatherScatterTest, GatherDefaultAxisIsZeroAndKeepsInputType) {
  EXPECT_TRUE(HasDesc(builder.gather(in(I8, {4, 3}), in(I64, {2})), I8, {2, 3}));
}

TEST_F(GatherScatterTest, GatherAcceptsEveryIndexType) {
  for (auto t : {I32, U32, I64})
    EXPECT_TRUE(HasDesc(builder.gather(in(F16, {4, 3}), in(t, {2})), F16, {2, 3}));
}

TEST_F(GatherScatterTest, GatherRejectsOtherIndexTypes) {
  for (auto t : {F32, F16, U64, I8, U8}) EXPECT_TYPE_ERROR(builder.gather(in({4, 3}), in(t, {2})));
}

TEST_F(GatherScatterTest, GatherRejectsScalarInput) {
  EXPECT_TYPE_ERROR(builder.gather(in(F16, {}), in(I64, {1})));
}

TEST_F(GatherScatterTest, GatherRejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.gather(in({1, 2, 3}), in(I32, {5, 6}), {.axis = 3}));
  EXPECT_TYPE_ERROR(builder.gather(in({1, 2, 3}), in(I32, {5, 6}), {.axis = 4}));
}

TEST_F(GatherScatterTest, GatherRejectsInvalidOutput) {
  // Output rank 9 exceeds the maximum rank; output element count exceeds 2^31-1.
  EXPECT_TYPE_ERROR(builder.gather(in({2, 2, 2, 2, 2}), in(I32, {1, 1, 1, 1, 1})));
  EXPECT_TYPE_ERROR(builder.gather(in({1, 3, 3, 4096}), in(I32, {1024, 1024}), {.axis = 2}));
}

TEST_F(GatherScatterTest, GatherRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.gather(foreign(F32, {2, 2}), in(I64, {2, 2})));
  EXPECT_TYPE_ERROR(builder.gather(in({2, 2}), foreign(I64, {2, 2})));
}

// ---- gatherElements ----------------------------------------------------------------------------

TEST_F(GatherScatterTest, GatherElementsOutputHasIndicesShape) {
  EXPECT_TRUE(HasDesc(builder.gatherElements(in({1, 2, 3}), in(I32, {2, 2, 3})), F32, {2, 2, 3}));
  EXPECT_TRUE(
      HasDesc(builder.gatherElements(in(I32, {1, 2, 3, 4}), in(U32, {1, 2, 1, 4}), {.axis = 2}),
              I32, {1, 2, 1, 4}));
  EXPECT_TRUE(HasDesc(builder.gatherElements(in(F16, {5}), in(I64, {7})), F16, {7}));
}

TEST_F(GatherScatterTest, GatherElementsRejectsScalars) {
  EXPECT_TYPE_ERROR(builder.gatherElements(in({}), in(I32, {})));
}

TEST_F(GatherScatterTest, GatherElementsRejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3}), in(I32, {1, 2, 3}), {.axis = 3}));
}

TEST_F(GatherScatterTest, GatherElementsRejectsBadIndexType) {
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3}), in(F32, {1, 2, 3})));
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3}), in(U64, {1, 2, 3})));
}

TEST_F(GatherScatterTest, GatherElementsIndicesRankMustEqualInputRank) {
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3}), in(I32, {1, 2})));
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2}), in(I32, {1, 2, 3})));
}

TEST_F(GatherScatterTest, GatherElementsIndicesMustMatchInputExceptAtAxis) {
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3, 4}), in(I32, {3, 2, 3, 4}), {.axis = 3}));
  EXPECT_TYPE_ERROR(builder.gatherElements(in({1, 2, 3}), in(I32, {1, 3, 3})));
}

TEST_F(GatherScatterTest, GatherElementsRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.gatherElements(foreign(F32, {2, 2}), in(I32, {2, 2})));
  EXPECT_TYPE_ERROR(builder.gatherElements(in({2, 2}), foreign(I32, {2, 2})));
}

// ---- gatherND ----------------------------------------------------------------------------------

TEST_F(GatherScatterTest, GatherNDOutputShape) {
  EXPECT_TRUE(
      HasDesc(builder.gatherND(in({2, 2, 3, 3, 4}), in(I32, {5, 4, 3})), F32, {5, 4, 3, 4}));
  EXPECT_TRUE(HasDesc(builder.gatherND(in(U8, {2, 3}), in(I64, {4, 1})), U8, {4, 3}));
  // k == input rank gives elements; a rank-1 index then gives a scalar output.
  EXPECT_TRUE(HasDesc(builder.gatherND(in({2, 3}), in(U32, {4, 2})), F32, {4}));
  EXPECT_TRUE(HasDesc(builder.gatherND(in({2, 3}), in(I32, {2})), F32, {}));
}

TEST_F(GatherScatterTest, GatherNDRejectsScalars) {
  EXPECT_TYPE_ERROR(builder.gatherND(in({}), in(I32, {1, 1, 1})));
  EXPECT_TYPE_ERROR(builder.gatherND(in({1, 1, 1}), in(I32, {})));
}

TEST_F(GatherScatterTest, GatherNDRejectsBadIndexType) {
  EXPECT_TYPE_ERROR(builder.gatherND(in({1, 2, 3}), in(F32, {1, 1, 1})));
}

TEST_F(GatherScatterTest, GatherNDRejectsIndexLengthAboveInputRank) {
  EXPECT_TYPE_ERROR(builder.gatherND(in({1, 2, 3}), in(I32, {1, 1, 4})));
}

TEST_F(GatherScatterTest, GatherNDRejectsInvalidOutput) {
  EXPECT_TYPE_ERROR(builder.gatherND(in({2, 65536}), in(I32, {65536, 1})));
}

TEST_F(GatherScatterTest, GatherNDRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.gatherND(foreign(F32, {2, 2}), in(I32, {2, 1})));
  EXPECT_TYPE_ERROR(builder.gatherND(in({2, 1}), foreign(I32, {2, 2})));
}

// ---- scatterElements ---------------------------------------------------------------------------

TEST_F(GatherScatterTest, ScatterElementsOutputCopiesInput) {
  EXPECT_TRUE(
      HasDesc(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in({2, 3})), F32, {3, 3}));
  EXPECT_TRUE(HasDesc(
      builder.scatterElements(in(I32, {3, 3}), in(I64, {3, 2}), in(I32, {3, 2}), {.axis = 1}), I32,
      {3, 3}));
  EXPECT_TRUE(HasDesc(builder.scatterElements(in(F16, {3}), in(U32, {5}), in(F16, {5})), F16, {3}));
}

TEST_F(GatherScatterTest, ScatterElementsRejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in({2, 3}), {.axis = 2}));
}

TEST_F(GatherScatterTest, ScatterElementsUpdatesTypeMustEqualInputType) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in(F16, {2, 3})));
}

TEST_F(GatherScatterTest, ScatterElementsRejectsBadIndexType) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(F32, {2, 3}), in({2, 3})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(U8, {2, 3}), in({2, 3})));
}

TEST_F(GatherScatterTest, ScatterElementsRejectsScalars) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({}), in(I32, {}), in({})));
}

TEST_F(GatherScatterTest, ScatterElementsIndicesRankMustEqualInputRank) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3, 3}), in({2, 3, 3})));
}

TEST_F(GatherScatterTest, ScatterElementsIndicesMustMatchInputExceptAtAxis) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 4}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 2}), in({2, 2}), {.axis = 1}));
}

TEST_F(GatherScatterTest, ScatterElementsUpdatesShapeMustEqualIndicesShape) {
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in({2, 3, 3})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), in({3, 3})));
}

TEST_F(GatherScatterTest, ScatterElementsRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.scatterElements(foreign(F32, {3, 3}), in(I32, {2, 3}), in({2, 3})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), foreign(I32, {2, 3}), in({2, 3})));
  EXPECT_TYPE_ERROR(builder.scatterElements(in({3, 3}), in(I32, {2, 3}), foreign(F32, {2, 3})));
}

// ---- scatterND ---------------------------------------------------------------------------------

TEST_F(GatherScatterTest, ScatterNDOutputCopiesInput) {
  EXPECT_TRUE(
      HasDesc(builder.scatterND(in({4, 4, 4}), in(I32, {2, 1}), in({2, 4, 4})), F32, {4, 4, 4}));
  EXPECT_TRUE(HasDesc(builder.scatterND(in(I32, {8}), in(I64, {4, 1}), in(I32, {4})), I32, {8}));
  // k == input rank with rank-1 indices: updates is a scalar (erratum 4: output keeps the rank).
  EXPECT_TRUE(HasDesc(builder.scatterND(in({4, 5}), in(U32, {2}), in({})), F32, {4, 5}));
}

TEST_F(GatherScatterTest, ScatterNDUpdatesTypeMustEqualInputType) {
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {2, 1}), in(F16, {2, 4, 4})));
}

TEST_F(GatherScatterTest, ScatterNDRejectsBadIndexType) {
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(F32, {2, 1}), in({2, 4, 4})));
}

TEST_F(GatherScatterTest, ScatterNDRejectsScalarInputOrIndices) {
  EXPECT_TYPE_ERROR(builder.scatterND(in({}), in(I32, {2, 1}), in({2, 4, 4})));
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {}), in({2, 4, 4})));
}

TEST_F(GatherScatterTest, ScatterNDRejectsIndexLengthAboveInputRank) {
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {2, 4}), in({2, 4, 4})));
}

TEST_F(GatherScatterTest, ScatterNDRejectsWrongUpdatesShape) {
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {2, 1}), in({2, 3, 4})));
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {2, 1}), in({2, 4})));
  EXPECT_TYPE_ERROR(builder.scatterND(in({4, 4, 4}), in(I32, {2, 2}), in({2, 4, 4})));
}

TEST_F(GatherScatterTest, ScatterNDRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.scatterND(foreign(F32, {8}), in(I32, {4, 1}), in({4})));
  EXPECT_TYPE_ERROR(builder.scatterND(in({8}), foreign(I32, {4, 1}), in({4})));
  EXPECT_TYPE_ERROR(builder.scatterND(in({8}), in(I32, {4, 1}), foreign(F32, {4})));
}

TEST_F(GatherScatterTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.gatherND(in({1, 2, 3}), in(I32, {1, 1, 4}), {.label = "gatherND_"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("gatherND [gatherND_]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
