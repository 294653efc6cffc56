// Validation tests for the activations (§2 rows 5, 46, 51, 55, 56, 59, 60, 68, 79, 85, 87-89, 91).
#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class ActivationsTest : public OpTest {};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<MLOperandDataType> kAllTypes = {
    F32, F16, I32, U32, I64, U64, I8, U8, MLOperandDataType::kInt4, MLOperandDataType::kUint4};
const std::vector<MLOperandDataType> kSpecTypes = {F32, F16, I32, U32, I64, U64, I8, U8};
const std::vector<MLOperandDataType> kFloatTypes = {F32, F16};
const std::vector<MLOperandDataType> kSignedTypes = {F32, F16, I32, I64, I8};

bool contains(const std::vector<MLOperandDataType>& v, MLOperandDataType t) {
  return std::find(v.begin(), v.end(), t) != v.end();
}

// One single-input activation, called with default options.
struct ActivationCase {
  const char* name;
  std::function<MLOperand(MLGraphBuilder&, const MLOperand&)> call;
  std::vector<MLOperandDataType> allowed;
};

const std::vector<ActivationCase>& activation_cases() {
  static const std::vector<ActivationCase> cases = {
      {"clamp", [](MLGraphBuilder& b, const MLOperand& x) { return b.clamp(x); }, kSpecTypes},
      {"elu", [](MLGraphBuilder& b, const MLOperand& x) { return b.elu(x); }, kFloatTypes},
      {"gelu", [](MLGraphBuilder& b, const MLOperand& x) { return b.gelu(x); }, kFloatTypes},
      {"hardSigmoid", [](MLGraphBuilder& b, const MLOperand& x) { return b.hardSigmoid(x); },
       kFloatTypes},
      {"hardSwish", [](MLGraphBuilder& b, const MLOperand& x) { return b.hardSwish(x); },
       kFloatTypes},
      {"leakyRelu", [](MLGraphBuilder& b, const MLOperand& x) { return b.leakyRelu(x); },
       kFloatTypes},
      {"linear", [](MLGraphBuilder& b, const MLOperand& x) { return b.linear(x); }, kFloatTypes},
      {"relu", [](MLGraphBuilder& b, const MLOperand& x) { return b.relu(x); }, kSignedTypes},
      {"sigmoid", [](MLGraphBuilder& b, const MLOperand& x) { return b.sigmoid(x); }, kFloatTypes},
      {"softmax", [](MLGraphBuilder& b, const MLOperand& x) { return b.softmax(x, 0); },
       kFloatTypes},
      {"softplus", [](MLGraphBuilder& b, const MLOperand& x) { return b.softplus(x); },
       kFloatTypes},
      {"softsign", [](MLGraphBuilder& b, const MLOperand& x) { return b.softsign(x); },
       kFloatTypes},
      {"tanh", [](MLGraphBuilder& b, const MLOperand& x) { return b.tanh(x); }, kFloatTypes},
      {"prelu", [](MLGraphBuilder& b, const MLOperand& x) { return b.prelu(x, x); }, kSignedTypes},
  };
  return cases;
}

TEST_F(ActivationsTest, CopyInputDescriptorForAllowedTypesAndRejectOthers) {
  for (const auto& c : activation_cases()) {
    SCOPED_TRACE(c.name);
    for (MLOperandDataType t : kAllTypes) {
      SCOPED_TRACE(std::string(data_type_name(t)));
      MLOperand x = in(t, {2, 3});
      if (contains(c.allowed, t)) {
        EXPECT_TRUE(HasDesc(c.call(builder, x), t, {2, 3}));
      } else {
        EXPECT_TYPE_ERROR(c.call(builder, x));
      }
    }
  }
}

TEST_F(ActivationsTest, AcceptScalarsExceptSoftmax) {
  for (const auto& c : activation_cases()) {
    SCOPED_TRACE(c.name);
    MLOperand x = in(F16, {});
    if (std::string(c.name) == "softmax") {
      EXPECT_TYPE_ERROR(c.call(builder, x));
    } else {
      EXPECT_TRUE(HasDesc(c.call(builder, x), F16, {}));
    }
    EXPECT_TRUE(HasDesc(c.call(builder, in(F32, {2, 3, 4, 5, 6})), F32, {2, 3, 4, 5, 6}));
  }
}

TEST_F(ActivationsTest, RejectOperandFromAnotherBuilder) {
  for (const auto& c : activation_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_TYPE_ERROR(c.call(builder, foreign(F32, {2, 2})));
  }
}

TEST_F(ActivationsTest, ReportsRoleNamesInSupportLimits) {
  MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_EQ(limits.op("prelu")["slope"].dataTypes, kSignedTypes);
  EXPECT_EQ(limits.op("relu")["output"].dataTypes, kSignedTypes);
  EXPECT_EQ(limits.op("clamp")["input"].dataTypes, kSpecTypes);
  EXPECT_EQ(limits.op("softmax")["input"].rankRange.min, 1u);
  EXPECT_EQ(limits.op("tanh")["input"].dataTypes, kFloatTypes);
}

// clamp

TEST_F(ActivationsTest, ClampAcceptsBounds) {
  EXPECT_TRUE(
      HasDesc(builder.clamp(in({1, 2, 3}), {.minValue = 1, .maxValue = 3}), F32, {1, 2, 3}));
  EXPECT_TRUE(HasDesc(builder.clamp(in({4}), {.minValue = 0, .maxValue = 0}), F32, {4}));
  EXPECT_TRUE(HasDesc(builder.clamp(in(I64, {2}), {.minValue = -5}), I64, {2}));
  EXPECT_TRUE(HasDesc(builder.clamp(in(U32, {2}), {.maxValue = 4294967290u}), U32, {2}));
}

TEST_F(ActivationsTest, ClampRejectsMinGreaterThanMax) {
  EXPECT_TYPE_ERROR(builder.clamp(in({1, 2, 3}), {.minValue = 3, .maxValue = 1}));
  EXPECT_TYPE_ERROR(builder.clamp(in(I32, {2}), {.minValue = 1, .maxValue = 0.5}));
}

TEST_F(ActivationsTest, ClampComparesBoundsAfterCastToInputType) {
  // On uint8 both 300 and 1000 saturate to 255: equal bounds are legal.
  EXPECT_TRUE(HasDesc(builder.clamp(in(U8, {2}), {.minValue = 1000, .maxValue = 300}), U8, {2}));
  // On int32 3.9 truncates to 3, equal to maxValue 3.
  EXPECT_TRUE(HasDesc(builder.clamp(in(I32, {2}), {.minValue = 3.9, .maxValue = 3}), I32, {2}));
  // On float32 the same bounds stay apart.
  EXPECT_TYPE_ERROR(builder.clamp(in(F32, {2}), {.minValue = 3.9, .maxValue = 3}));
  // Negative bounds saturate to 0 on unsigned types.
  EXPECT_TRUE(HasDesc(builder.clamp(in(U64, {2}), {.minValue = -1, .maxValue = -7}), U64, {2}));
}

TEST_F(ActivationsTest, ClampAcceptsInfiniteBounds) {
  EXPECT_TRUE(HasDesc(builder.clamp(in({}), {.minValue = -kInf}), F32, {}));
  EXPECT_TRUE(HasDesc(builder.clamp(in({2}), {.minValue = kInf}), F32, {2}));
  EXPECT_TRUE(HasDesc(builder.clamp(in({2}), {.maxValue = -kInf}), F32, {2}));
  EXPECT_TRUE(HasDesc(builder.clamp(in({2}), {.minValue = -kInf, .maxValue = kInf}), F32, {2}));
  EXPECT_TYPE_ERROR(builder.clamp(in({2}), {.minValue = kInf, .maxValue = -kInf}));
}

TEST_F(ActivationsTest, ClampTreatsNaNBoundsAsAbsent) {
  EXPECT_TRUE(HasDesc(builder.clamp(in({2}), {.minValue = kNaN, .maxValue = 1}), F32, {2}));
  EXPECT_TRUE(HasDesc(builder.clamp(in({2}), {.minValue = 1, .maxValue = kNaN}), F32, {2}));
  // NaN would cast to 0 on integers; as absent it must not conflict with minValue 5.
  EXPECT_TRUE(HasDesc(builder.clamp(in(I8, {2}), {.minValue = 5, .maxValue = kNaN}), I8, {2}));
}

// Finite double options.

TEST_F(ActivationsTest, DoubleOptionsAcceptFiniteValues) {
  EXPECT_TRUE(HasDesc(builder.elu(in({1, 2, 3}), {.alpha = 1.5}), F32, {1, 2, 3}));
  EXPECT_TRUE(
      HasDesc(builder.hardSigmoid(in(F16, {1, 2, 3}), {.alpha = 0.5, .beta = 1}), F16, {1, 2, 3}));
  EXPECT_TRUE(HasDesc(builder.leakyRelu(in({1, 2, 3}), {.alpha = 0.02}), F32, {1, 2, 3}));
  EXPECT_TRUE(HasDesc(builder.linear(in({1, 2, 3}), {.alpha = 1.5, .beta = 0.3}), F32, {1, 2, 3}));
}

TEST_F(ActivationsTest, EluRejectsNonFiniteAlpha) {
  EXPECT_TYPE_ERROR(builder.elu(in(F16, {}), {.alpha = kNaN}));
  EXPECT_TYPE_ERROR(builder.elu(in({1}), {.alpha = kInf}));
}

TEST_F(ActivationsTest, HardSigmoidRejectsNonFiniteAlphaOrBeta) {
  EXPECT_TYPE_ERROR(builder.hardSigmoid(in({}), {.beta = kNaN}));
  EXPECT_TYPE_ERROR(builder.hardSigmoid(in({1}), {.alpha = kInf}));
}

TEST_F(ActivationsTest, LeakyReluRejectsNonFiniteAlpha) {
  EXPECT_TYPE_ERROR(builder.leakyRelu(in(F16, {}), {.alpha = kInf}));
  EXPECT_TYPE_ERROR(builder.leakyRelu(in({1}), {.alpha = kNaN}));
}

TEST_F(ActivationsTest, LinearRejectsNonFiniteAlphaOrBeta) {
  EXPECT_TYPE_ERROR(builder.linear(in({}), {.beta = -kInf}));
  EXPECT_TYPE_ERROR(builder.linear(in({1}), {.alpha = kNaN}));
}

// prelu

TEST_F(ActivationsTest, PreluBroadcastsInputAndSlope) {
  EXPECT_TRUE(HasDesc(builder.prelu(in({3, 2, 5}), in({3, 2, 5})), F32, {3, 2, 5}));
  EXPECT_TRUE(HasDesc(builder.prelu(in({3, 2, 5}), in({5})), F32, {3, 2, 5}));
  EXPECT_TRUE(HasDesc(builder.prelu(in({3, 2, 5}), in({})), F32, {3, 2, 5}));
  EXPECT_TRUE(HasDesc(builder.prelu(in(F16, {3, 2, 5}), in(F16, {2, 5})), F16, {3, 2, 5}));
  // Bidirectional: the slope may be larger than the input.
  EXPECT_TRUE(HasDesc(builder.prelu(in(I8, {2, 1}), in(I8, {4, 1, 3})), I8, {4, 2, 3}));
}

TEST_F(ActivationsTest, PreluRejectsNonBroadcastableShapes) {
  EXPECT_TYPE_ERROR(builder.prelu(in({3, 2, 5}), in({2})));
}

TEST_F(ActivationsTest, PreluRejectsSlopeOfAnotherType) {
  EXPECT_TYPE_ERROR(builder.prelu(in({3, 2, 5}), in(I32, {3, 2, 5})));
}

TEST_F(ActivationsTest, PreluRejectsSlopeFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.prelu(in({2, 2}), foreign(F32, {2, 2})));
}

// softmax

TEST_F(ActivationsTest, SoftmaxCopiesInputForEachAxis) {
  EXPECT_TRUE(HasDesc(builder.softmax(in({4, 4, 3}), 1), F32, {4, 4, 3}));
  EXPECT_TRUE(HasDesc(builder.softmax(in(F16, {3, 1, 5, 2}), 3), F16, {3, 1, 5, 2}));
  EXPECT_TRUE(HasDesc(builder.softmax(in({7}), 0), F32, {7}));
}

TEST_F(ActivationsTest, SoftmaxRejectsAxisOutOfRange) {
  EXPECT_TYPE_ERROR(builder.softmax(in(F16, {3, 1, 5, 2}), 4));
  EXPECT_TYPE_ERROR(builder.softmax(in({3}), 0xffffffffu));
}

TEST_F(ActivationsTest, SoftmaxRejectsScalarInput) {
  EXPECT_TYPE_ERROR(builder.softmax(in({}), 0));
}

TEST_F(ActivationsTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.clamp(in({2}), {.minValue = 3, .maxValue = 1, .label = "123_clamp"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("clamp [123_clamp]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
