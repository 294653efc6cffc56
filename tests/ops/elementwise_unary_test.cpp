// Validation tests for the element-wise unary ops and cast (§2 rows 4, 23, 27-43).
#include <algorithm>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class ElementwiseUnaryTest : public OpTest {};

using UnaryFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLOperatorOptions&);

// One element-wise unary op: its method, the data types it accepts and its output type
// (nullopt: the input's).
struct UnaryCase {
  const char* name;
  UnaryFn fn;
  std::vector<MLOperandDataType> allowed;
  std::optional<MLOperandDataType> output;
};

const std::vector<MLOperandDataType> kSpecTypes = {F32, F16, I32, U32, I64, U64, I8, U8};
const std::vector<MLOperandDataType> kFloatTypes = {F32, F16};
const std::vector<MLOperandDataType> kSignedTypes = {F32, F16, I32, I64, I8};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"logicalNot", &MLGraphBuilder::logicalNot, {U8}, U8},
      {"isNaN", &MLGraphBuilder::isNaN, kFloatTypes, U8},
      {"isInfinite", &MLGraphBuilder::isInfinite, kFloatTypes, U8},
      {"abs", &MLGraphBuilder::abs, kSignedTypes, std::nullopt},
      {"ceil", &MLGraphBuilder::ceil, kFloatTypes, std::nullopt},
      {"cos", &MLGraphBuilder::cos, kFloatTypes, std::nullopt},
      {"erf", &MLGraphBuilder::erf, kFloatTypes, std::nullopt},
      {"exp", &MLGraphBuilder::exp, kFloatTypes, std::nullopt},
      {"floor", &MLGraphBuilder::floor, kFloatTypes, std::nullopt},
      {"identity", &MLGraphBuilder::identity, kSpecTypes, std::nullopt},
      {"log", &MLGraphBuilder::log, kFloatTypes, std::nullopt},
      {"neg", &MLGraphBuilder::neg, kSignedTypes, std::nullopt},
      {"reciprocal", &MLGraphBuilder::reciprocal, kFloatTypes, std::nullopt},
      {"roundEven", &MLGraphBuilder::roundEven, kFloatTypes, std::nullopt},
      {"sin", &MLGraphBuilder::sin, kFloatTypes, std::nullopt},
      {"sign", &MLGraphBuilder::sign, kSignedTypes, std::nullopt},
      {"sqrt", &MLGraphBuilder::sqrt, kFloatTypes, std::nullopt},
      {"tan", &MLGraphBuilder::tan, kFloatTypes, std::nullopt},
  };
  return cases;
}

bool contains(const std::vector<MLOperandDataType>& v, MLOperandDataType t) {
  return std::find(v.begin(), v.end(), t) != v.end();
}

TEST_F(ElementwiseUnaryTest, AcceptsAllowedTypesAndRejectsOthers) {
  for (const auto& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    for (MLOperandDataType t : {F32, F16, I32, U32, I64, U64, I8, U8, MLOperandDataType::kInt4,
                                MLOperandDataType::kUint4}) {
      SCOPED_TRACE(std::string(data_type_name(t)));
      MLOperand x = in(t, {2, 3});
      if (contains(c.allowed, t)) {
        EXPECT_TRUE(HasDesc((builder.*c.fn)(x, {}), c.output.value_or(t), {2, 3}));
      } else {
        EXPECT_TYPE_ERROR((builder.*c.fn)(x, {}));
      }
    }
  }
}

TEST_F(ElementwiseUnaryTest, AcceptsAnyRankIncludingScalars) {
  for (const auto& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    MLOperandDataType t = c.allowed.front();
    MLOperandDataType out = c.output.value_or(t);
    EXPECT_TRUE(HasDesc((builder.*c.fn)(in(t, {}), {}), out, {}));
    EXPECT_TRUE(HasDesc((builder.*c.fn)(in(t, {2, 3, 4, 5, 6}), {}), out, {2, 3, 4, 5, 6}));
    EXPECT_TRUE(HasDesc((builder.*c.fn)(in(t, {1, 1, 1, 1, 1, 1, 1, 2}), {}), out,
                        {1, 1, 1, 1, 1, 1, 1, 2}));
  }
}

TEST_F(ElementwiseUnaryTest, RejectsOperandFromAnotherBuilder) {
  for (const auto& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_TYPE_ERROR((builder.*c.fn)(foreign(c.allowed.front(), {2, 2}), {}));
  }
}

TEST_F(ElementwiseUnaryTest, ReportsRoleNamesInSupportLimits) {
  MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_EQ(limits.op("logicalNot")["a"].dataTypes, std::vector<MLOperandDataType>{U8});
  EXPECT_EQ(limits.op("isNaN")["a"].dataTypes, kFloatTypes);
  EXPECT_EQ(limits.op("isInfinite")["output"].dataTypes, std::vector<MLOperandDataType>{U8});
  EXPECT_EQ(limits.op("sqrt")["input"].dataTypes, kFloatTypes);
  EXPECT_EQ(limits.op("cast")["output"].dataTypes, kSpecTypes);
}

TEST_F(ElementwiseUnaryTest, CastOutputTakesDataType) {
  EXPECT_TRUE(HasDesc(builder.cast(in(I32, {2, 2}), I64), I64, {2, 2}));
  EXPECT_TRUE(HasDesc(builder.cast(in(F32, {}), U8), U8, {}));
  EXPECT_TRUE(HasDesc(builder.cast(in(F16, {3}), F16), F16, {3}));
}

TEST_F(ElementwiseUnaryTest, CastAcceptsEverySpecTypePair) {
  for (MLOperandDataType from : kSpecTypes) {
    for (MLOperandDataType to : kSpecTypes) {
      SCOPED_TRACE(std::string(data_type_name(from)) + " -> " + std::string(data_type_name(to)));
      EXPECT_TRUE(HasDesc(builder.cast(in(from, {4, 1}), to), to, {4, 1}));
    }
  }
}

TEST_F(ElementwiseUnaryTest, CastRejectsStorageTypes) {
  EXPECT_TYPE_ERROR(builder.cast(in(MLOperandDataType::kInt4, {2}), F32));
  EXPECT_TYPE_ERROR(builder.cast(in(F32, {2}), MLOperandDataType::kUint4));
}

TEST_F(ElementwiseUnaryTest, CastRejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.cast(foreign(I32, {2, 2}), I64));
}

TEST_F(ElementwiseUnaryTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.sqrt(in(I32, {2}), {.label = "my_sqrt"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("sqrt [my_sqrt]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
