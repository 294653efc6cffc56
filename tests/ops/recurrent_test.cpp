// Validation tests for the recurrent ops gru, gruCell, lstm and lstmCell (§2 rows 53, 54, 61, 62).
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

using Act = MLRecurrentNetworkActivation;
using Dir = MLRecurrentNetworkDirection;

// steps 2, batch 3, input size 4, hidden size 5 (gates 3H = 15, 4H = 20).
constexpr uint32_t kSteps = 2, kB = 3, kI = 4, kH = 5;

class RecurrentTest : public OpTest {
 protected:
  std::vector<MLOperand> gru(MLOperandDataType t, uint32_t dirs, const MLGruOptions& o = {}) {
    return builder.gru(in(t, {kSteps, kB, kI}), in(t, {dirs, 3 * kH, kI}),
                       in(t, {dirs, 3 * kH, kH}), kSteps, kH, o);
  }
  std::vector<MLOperand> gru(const MLGruOptions& o = {}) { return gru(F32, 1, o); }
  MLOperand gruCell(const MLGruCellOptions& o = {}) {
    return builder.gruCell(in({kB, kI}), in({3 * kH, kI}), in({3 * kH, kH}), in({kB, kH}), kH, o);
  }
  std::vector<MLOperand> lstm(MLOperandDataType t, uint32_t dirs, const MLLstmOptions& o = {}) {
    return builder.lstm(in(t, {kSteps, kB, kI}), in(t, {dirs, 4 * kH, kI}),
                        in(t, {dirs, 4 * kH, kH}), kSteps, kH, o);
  }
  std::vector<MLOperand> lstm(const MLLstmOptions& o = {}) { return lstm(F32, 1, o); }
  std::vector<MLOperand> lstmCell(const MLLstmCellOptions& o = {}) {
    return builder.lstmCell(in({kB, kI}), in({4 * kH, kI}), in({4 * kH, kH}), in({kB, kH}),
                            in({kB, kH}), kH, o);
  }
};

// ---- gru ---------------------------------------------------------------------------------------

TEST_F(RecurrentTest, GruDefaultsReturnOneOutput) {
  auto out = gru();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(HasDesc(out[0], F32, {1, kB, kH}));
}

TEST_F(RecurrentTest, GruBothDirectionsWithSequenceAndAllOptions) {
  auto out = gru(F16, 2,
                 {.bias = in(F16, {2, 15}),
                  .recurrentBias = in(F16, {2, 15}),
                  .initialHiddenState = in(F16, {2, kB, kH}),
                  .resetAfter = false,
                  .returnSequence = true,
                  .direction = Dir::kBoth,
                  .layout = MLGruWeightLayout::kRzn,
                  .activations = {Act::kSigmoid, Act::kRelu}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(HasDesc(out[0], F16, {2, kB, kH}));
  EXPECT_TRUE(HasDesc(out[1], F16, {kSteps, 2, kB, kH}));
}

TEST_F(RecurrentTest, GruBackwardHasOneDirection) {
  auto out = gru({.returnSequence = true, .direction = Dir::kBackward});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(HasDesc(out[1], F32, {kSteps, 1, kB, kH}));
}

TEST_F(RecurrentTest, GruRejectsNonFloatTypes) {
  EXPECT_TYPE_ERROR(gru(U32, 1));
  EXPECT_TYPE_ERROR(gru(I8, 1));
}

TEST_F(RecurrentTest, GruRejectsMixedTypes) {
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in(F16, {1, 15, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in(F16, {1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(gru({.bias = in(F16, {1, 15})}));
  EXPECT_TYPE_ERROR(gru({.recurrentBias = in(I32, {1, 15})}));
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = in(U32, {1, kB, kH})}));
}

TEST_F(RecurrentTest, GruRejectsWrongRanks) {
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB}), in({1, 15, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB, kI}), in({15, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15}), kSteps, kH));
  EXPECT_TYPE_ERROR(gru({.bias = in({15})}));
  EXPECT_TYPE_ERROR(gru({.recurrentBias = in({1, 1, 15})}));
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = in({kB, kH})}));
}

TEST_F(RecurrentTest, GruRejectsZeroSteps) {
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), 0, kH));
}

TEST_F(RecurrentTest, GruRejectsStepsDifferentFromInputDim0) {
  EXPECT_TYPE_ERROR(builder.gru(in({1000, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), kSteps, kH));
}

TEST_F(RecurrentTest, GruRejectsHiddenSizeWhose6xIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), kSteps, 0));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), kSteps, 4294967295u));
  // 6 * 357913942 = 2^31 + 4 > 2^31 - 1.
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), kSteps, 357913942u));
}

TEST_F(RecurrentTest, GruRejectsWrongWeightShapes) {
  // weight [D, 3H, I]: wrong 3H, wrong I, wrong D.
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(builder.gru(in({kSteps, kB, kI}), in({1, 15, 3}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({2, 15, kI}), in({2, 15, kH}), kSteps, kH));
  // recurrentWeight [D, 3H, H].
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 20, kI}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kI}), kSteps, kH));
}

TEST_F(RecurrentTest, GruBothDirectionsNeedsTwoDirectionWeights) {
  EXPECT_TYPE_ERROR(gru(F32, 1, {.direction = Dir::kBoth}));
}

TEST_F(RecurrentTest, GruRejectsWrongBiasShapes) {
  EXPECT_TYPE_ERROR(gru({.bias = in({1, 5})}));
  EXPECT_TYPE_ERROR(gru({.bias = in({2, 15})}));
  EXPECT_TYPE_ERROR(gru({.recurrentBias = in({1, 20})}));
}

TEST_F(RecurrentTest, GruRejectsWrongInitialHiddenStateShape) {
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = in({1, kB, 15})}));
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = in({1, 4, kH})}));
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = in({2, kB, kH})}));
}

TEST_F(RecurrentTest, GruActivationsMustHaveTwoEntries) {
  EXPECT_TYPE_ERROR(gru({.activations = {Act::kSigmoid, Act::kTanh, Act::kRelu}}));
  EXPECT_TYPE_ERROR(gru({.activations = {Act::kSigmoid}}));
  EXPECT_TYPE_ERROR(gru({.activations = std::vector<Act>{}}));
}

TEST_F(RecurrentTest, GruRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(
      builder.gru(foreign(F32, {kSteps, kB, kI}), in({1, 15, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), foreign(F32, {1, 15, kI}), in({1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.gru(in({kSteps, kB, kI}), in({1, 15, kI}), foreign(F32, {1, 15, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(gru({.bias = foreign(F32, {1, 15})}));
  EXPECT_TYPE_ERROR(gru({.recurrentBias = foreign(F32, {1, 15})}));
  EXPECT_TYPE_ERROR(gru({.initialHiddenState = foreign(F32, {1, kB, kH})}));
}

// ---- gruCell -----------------------------------------------------------------------------------

TEST_F(RecurrentTest, GruCellDefaults) {
  EXPECT_TRUE(HasDesc(gruCell(), F32, {kB, kH}));
}

TEST_F(RecurrentTest, GruCellWithAllOptionsInFloat16) {
  auto out = builder.gruCell(in(F16, {kB, kI}), in(F16, {15, kI}), in(F16, {15, kH}),
                             in(F16, {kB, kH}), kH,
                             {.bias = in(F16, {15}),
                              .recurrentBias = in(F16, {15}),
                              .resetAfter = false,
                              .layout = MLGruWeightLayout::kRzn,
                              .activations = {Act::kSigmoid, Act::kRelu}});
  EXPECT_TRUE(HasDesc(out, F16, {kB, kH}));
}

TEST_F(RecurrentTest, GruCellRejectsNonFloatOrMixedTypes) {
  EXPECT_TYPE_ERROR(builder.gruCell(in(U32, {kB, kI}), in(U32, {15, kI}), in(U32, {15, kH}),
                                    in(U32, {kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in(I8, {15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in({15, kI}), in(I32, {15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), in(F16, {kB, kH}), kH));
  EXPECT_TYPE_ERROR(gruCell({.bias = in(U32, {15})}));
  EXPECT_TYPE_ERROR(gruCell({.recurrentBias = in(I8, {15})}));
}

TEST_F(RecurrentTest, GruCellRejectsWrongRanks) {
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB}), in({15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15, kI}), in({15}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), in({kH}), kH));
  EXPECT_TYPE_ERROR(gruCell({.bias = in({kB, 15})}));
  EXPECT_TYPE_ERROR(gruCell({.recurrentBias = in({kB, 15})}));
}

TEST_F(RecurrentTest, GruCellRejectsHiddenSizeWhose6xIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), in({kB, kH}), 0));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), in({kB, kH}), 4294967295u));
}

TEST_F(RecurrentTest, GruCellRejectsWrongShapes) {
  // input.shape[0] (batch) disagrees with hiddenState; input.shape[1] with weight.
  EXPECT_TYPE_ERROR(builder.gruCell(in({4, kI}), in({15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, 3}), in({15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({20, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15, kI}), in({20, kI}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), in({kB, 15}), kH));
  EXPECT_TYPE_ERROR(gruCell({.bias = in({10})}));
  EXPECT_TYPE_ERROR(gruCell({.recurrentBias = in({20})}));
}

TEST_F(RecurrentTest, GruCellActivationsMustHaveTwoEntries) {
  EXPECT_TYPE_ERROR(gruCell({.activations = {Act::kSigmoid, Act::kTanh, Act::kRelu}}));
}

TEST_F(RecurrentTest, GruCellRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(
      builder.gruCell(foreign(F32, {kB, kI}), in({15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), foreign(F32, {15, kI}), in({15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in({15, kI}), foreign(F32, {15, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.gruCell(in({kB, kI}), in({15, kI}), in({15, kH}), foreign(F32, {kB, kH}), kH));
  EXPECT_TYPE_ERROR(gruCell({.bias = foreign(F32, {15})}));
  EXPECT_TYPE_ERROR(gruCell({.recurrentBias = foreign(F32, {15})}));
}

// ---- lstm --------------------------------------------------------------------------------------

TEST_F(RecurrentTest, LstmDefaultsReturnHiddenAndCell) {
  auto out = lstm(F16, 1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(HasDesc(out[0], F16, {1, kB, kH}));
  EXPECT_TRUE(HasDesc(out[1], F16, {1, kB, kH}));
}

TEST_F(RecurrentTest, LstmBothDirectionsWithSequenceAndAllOptions) {
  auto out = lstm(F32, 2,
                  {.bias = in({2, 20}),
                   .recurrentBias = in({2, 20}),
                   .peepholeWeight = in({2, 15}),
                   .initialHiddenState = in({2, kB, kH}),
                   .initialCellState = in({2, kB, kH}),
                   .returnSequence = true,
                   .direction = Dir::kBoth,
                   .layout = MLLstmWeightLayout::kIfgo,
                   .activations = {Act::kSigmoid, Act::kRelu, Act::kTanh}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(HasDesc(out[0], F32, {2, kB, kH}));
  EXPECT_TRUE(HasDesc(out[1], F32, {2, kB, kH}));
  EXPECT_TRUE(HasDesc(out[2], F32, {kSteps, 2, kB, kH}));
}

TEST_F(RecurrentTest, LstmRejectsNonFloatOrMixedTypes) {
  EXPECT_TYPE_ERROR(lstm(U32, 1));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in(F16, {1, 20, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(lstm({.bias = in(F16, {1, 20})}));
  EXPECT_TYPE_ERROR(lstm({.recurrentBias = in(I32, {1, 20})}));
  EXPECT_TYPE_ERROR(lstm(F16, 1, {.peepholeWeight = in(F32, {1, 15})}));
  EXPECT_TYPE_ERROR(lstm(F16, 1, {.initialHiddenState = in(U64, {1, kB, kH})}));
  EXPECT_TYPE_ERROR(lstm({.initialCellState = in(F16, {1, kB, kH})}));
}

TEST_F(RecurrentTest, LstmRejectsWrongRanks) {
  EXPECT_TYPE_ERROR(builder.lstm(in({kSteps, kB}), in({1, 20, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(builder.lstm(in({kSteps, kB, kI}), in({20, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20}), kSteps, kH));
  EXPECT_TYPE_ERROR(lstm({.bias = in({1})}));
  EXPECT_TYPE_ERROR(lstm({.recurrentBias = in({20})}));
  EXPECT_TYPE_ERROR(lstm({.peepholeWeight = in({15})}));
  EXPECT_TYPE_ERROR(lstm({.initialHiddenState = in({kB, kH})}));
  EXPECT_TYPE_ERROR(lstm({.initialCellState = in({1, 1, kB, kH})}));
}

TEST_F(RecurrentTest, LstmRejectsZeroStepsOrStepsDifferentFromInputDim0) {
  EXPECT_TYPE_ERROR(builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), 0, kH));
  EXPECT_TYPE_ERROR(builder.lstm(in({1000, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), kSteps, kH));
}

TEST_F(RecurrentTest, LstmRejectsHiddenSizeWhose8xIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), kSteps, 0));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), kSteps, 4294967295u));
  // 8 * 268435456 = 2^31.
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), kSteps, 268435456u));
}

TEST_F(RecurrentTest, LstmRejectsWrongWeightShapes) {
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, 1000}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 15, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kI}), kSteps, kH));
  EXPECT_TYPE_ERROR(lstm(F32, 1, {.direction = Dir::kBoth}));
}

TEST_F(RecurrentTest, LstmRejectsWrongOptionShapes) {
  EXPECT_TYPE_ERROR(lstm({.bias = in({1, 15})}));
  EXPECT_TYPE_ERROR(lstm({.recurrentBias = in({1, 1000})}));
  EXPECT_TYPE_ERROR(lstm({.peepholeWeight = in({1, 20})}));
  EXPECT_TYPE_ERROR(lstm({.initialHiddenState = in({1, 4, kH})}));
  EXPECT_TYPE_ERROR(lstm({.initialCellState = in({1, kB, 1000})}));
}

TEST_F(RecurrentTest, LstmActivationsMustHaveThreeEntries) {
  EXPECT_TYPE_ERROR(lstm({.activations = {Act::kSigmoid, Act::kTanh}}));
}

TEST_F(RecurrentTest, LstmRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(
      builder.lstm(foreign(F32, {kSteps, kB, kI}), in({1, 20, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), foreign(F32, {1, 20, kI}), in({1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(
      builder.lstm(in({kSteps, kB, kI}), in({1, 20, kI}), foreign(F32, {1, 20, kH}), kSteps, kH));
  EXPECT_TYPE_ERROR(lstm({.bias = foreign(F32, {1, 20})}));
  EXPECT_TYPE_ERROR(lstm({.recurrentBias = foreign(F32, {1, 20})}));
  EXPECT_TYPE_ERROR(lstm({.peepholeWeight = foreign(F32, {1, 15})}));
  EXPECT_TYPE_ERROR(lstm({.initialHiddenState = foreign(F32, {1, kB, kH})}));
  EXPECT_TYPE_ERROR(lstm({.initialCellState = foreign(F32, {1, kB, kH})}));
}

// ---- lstmCell ----------------------------------------------------------------------------------

TEST_F(RecurrentTest, LstmCellDefaultsReturnHiddenAndCell) {
  auto out = lstmCell();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(HasDesc(out[0], F32, {kB, kH}));
  EXPECT_TRUE(HasDesc(out[1], F32, {kB, kH}));
}

TEST_F(RecurrentTest, LstmCellWithAllOptionsInFloat16) {
  auto out = builder.lstmCell(in(F16, {kB, kI}), in(F16, {20, kI}), in(F16, {20, kH}),
                              in(F16, {kB, kH}), in(F16, {kB, kH}), kH,
                              {.bias = in(F16, {20}),
                               .recurrentBias = in(F16, {20}),
                               .peepholeWeight = in(F16, {15}),
                               .layout = MLLstmWeightLayout::kIfgo,
                               .activations = {Act::kSigmoid, Act::kRelu, Act::kTanh}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(HasDesc(out[0], F16, {kB, kH}));
  EXPECT_TRUE(HasDesc(out[1], F16, {kB, kH}));
}

TEST_F(RecurrentTest, LstmCellRejectsNonFloatOrMixedTypes) {
  auto cell = [&](MLOperandDataType a, MLOperandDataType b, MLOperandDataType c,
                  MLOperandDataType d, MLOperandDataType e) {
    return builder.lstmCell(in(a, {kB, kI}), in(b, {20, kI}), in(c, {20, kH}), in(d, {kB, kH}),
                            in(e, {kB, kH}), kH);
  };
  EXPECT_TYPE_ERROR(cell(U32, F32, F32, F32, F32));
  EXPECT_TYPE_ERROR(cell(F32, F16, F32, F32, F32));
  EXPECT_TYPE_ERROR(cell(F32, F32, F16, F32, F32));
  EXPECT_TYPE_ERROR(cell(F16, F16, F16, I64, F16));
  EXPECT_TYPE_ERROR(cell(F16, F16, F16, F16, F32));
  EXPECT_TYPE_ERROR(lstmCell({.bias = in(I8, {20})}));
  EXPECT_TYPE_ERROR(lstmCell({.recurrentBias = in(U8, {20})}));
  EXPECT_TYPE_ERROR(lstmCell({.peepholeWeight = in(F16, {15})}));
}

TEST_F(RecurrentTest, LstmCellRejectsWrongRanks) {
  EXPECT_TYPE_ERROR(
      builder.lstmCell(in({kB}), in({20, kI}), in({20, kH}), in({kB, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.lstmCell(in({kB, kI}), in({20, kI, 1}), in({20, kH}), in({kB, kH}),
                                     in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.lstmCell(in({kB, kI}), in({20, kI}), in({1, 20, kH}), in({kB, kH}),
                                     in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.lstmCell(in({kB, kI}), in({20, kI}), in({20, kH}), in({kB}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(
      builder.lstmCell(in({kB, kI}), in({20, kI}), in({20, kH}), in({kB, kH}), in({kB}), kH));
  EXPECT_TYPE_ERROR(lstmCell({.bias = in({20, 1})}));
  EXPECT_TYPE_ERROR(lstmCell({.recurrentBias = in({20, 1})}));
  EXPECT_TYPE_ERROR(lstmCell({.peepholeWeight = in({})}));
}

TEST_F(RecurrentTest, LstmCellRejectsHiddenSizeWhose8xIsNotAValidDimension) {
  EXPECT_TYPE_ERROR(
      builder.lstmCell(in({kB, kI}), in({20, kI}), in({20, kH}), in({kB, kH}), in({kB, kH}), 0));
  EXPECT_TYPE_ERROR(builder.lstmCell(in({kB, kI}), in({20, kI}), in({20, kH}), in({kB, kH}),
                                     in({kB, kH}), 4294967295u));
}

TEST_F(RecurrentTest, LstmCellRejectsWrongShapes) {
  auto cell = [&](Dims input, Dims w, Dims r, Dims h, Dims c) {
    return builder.lstmCell(in(input), in(w), in(r), in(h), in(c), kH);
  };
  EXPECT_TYPE_ERROR(cell({kB, 1000}, {20, kI}, {20, kH}, {kB, kH}, {kB, kH}));
  EXPECT_TYPE_ERROR(cell({kB, kI}, {1000, kI}, {20, kH}, {kB, kH}, {kB, kH}));
  EXPECT_TYPE_ERROR(cell({kB, kI}, {20, kI}, {1000, kH}, {kB, kH}, {kB, kH}));
  EXPECT_TYPE_ERROR(cell({kB, kI}, {20, kI}, {20, kH}, {kB, 1000}, {kB, kH}));
  EXPECT_TYPE_ERROR(cell({kB, kI}, {20, kI}, {20, kH}, {kB, kH}, {kB, 1000}));
  EXPECT_TYPE_ERROR(cell({kB, kI}, {20, kI}, {20, kH}, {kB, kH}, {4, kH}));
  EXPECT_TYPE_ERROR(lstmCell({.bias = in({1000})}));
  EXPECT_TYPE_ERROR(lstmCell({.recurrentBias = in({1000})}));
  EXPECT_TYPE_ERROR(lstmCell({.peepholeWeight = in({1000})}));
}

TEST_F(RecurrentTest, LstmCellActivationsMustHaveThreeEntries) {
  EXPECT_TYPE_ERROR(
      lstmCell({.activations = {Act::kSigmoid, Act::kTanh, Act::kSigmoid, Act::kTanh}}));
}

TEST_F(RecurrentTest, LstmCellRejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.lstmCell(foreign(F32, {kB, kI}), in({20, kI}), in({20, kH}),
                                     in({kB, kH}), in({kB, kH}), kH));
  EXPECT_TYPE_ERROR(builder.lstmCell(in({kB, kI}), in({20, kI}), in({20, kH}), in({kB, kH}),
                                     foreign(F32, {kB, kH}), kH));
  EXPECT_TYPE_ERROR(lstmCell({.bias = foreign(F32, {20})}));
  EXPECT_TYPE_ERROR(lstmCell({.recurrentBias = foreign(F32, {20})}));
  EXPECT_TYPE_ERROR(lstmCell({.peepholeWeight = foreign(F32, {15})}));
}

TEST_F(RecurrentTest, ErrorMessageNamesOpLabelAndOperand) {
  try {
    gru({.bias = in({1, 5}), .label = "g"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("gru [g]"), std::string::npos) << m;
    EXPECT_NE(m.find("bias"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace cppnn::testing
