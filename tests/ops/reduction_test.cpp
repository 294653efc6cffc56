// Validation tests for the reductions, argMin/argMax and cumulativeSum (§2 rows 1-2, 9, 69-78).
#include <algorithm>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class ReductionTest : public OpTest {
 protected:
  using ReduceFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLReduceOptions&);
  struct Reduction {
    const char* name;
    ReduceFn fn;
    std::vector<MLOperandDataType> allowed;
  };
  static const std::vector<Reduction>& reductions() {
    static const std::vector<MLOperandDataType> kAll{F32, F16, I32, U32, I64, U64, I8, U8};
    static const std::vector<MLOperandDataType> kNoInt8{F32, F16, I32, U32, I64, U64};
    static const std::vector<MLOperandDataType> kFloat{F32, F16};
    static const std::vector<Reduction> kReductions{
        {"reduceL1", &MLGraphBuilder::reduceL1, kNoInt8},
        {"reduceL2", &MLGraphBuilder::reduceL2, kFloat},
        {"reduceLogSum", &MLGraphBuilder::reduceLogSum, kFloat},
        {"reduceLogSumExp", &MLGraphBuilder::reduceLogSumExp, kFloat},
        {"reduceMax", &MLGraphBuilder::reduceMax, kAll},
        {"reduceMean", &MLGraphBuilder::reduceMean, kFloat},
        {"reduceMin", &MLGraphBuilder::reduceMin, kAll},
        {"reduceProduct", &MLGraphBuilder::reduceProduct, kNoInt8},
        {"reduceSum", &MLGraphBuilder::reduceSum, kNoInt8},
        {"reduceSumSquare", &MLGraphBuilder::reduceSumSquare, kNoInt8},
    };
    return kReductions;
  }
  MLOperand reduce(const Reduction& r, const MLOperand& input, const MLReduceOptions& o = {}) {
    return (builder.*r.fn)(input, o);
  }
  static MLReduceOptions axes(std::vector<uint32_t> a, bool keep = false) {
    return {.axes = OptionalList<uint32_t>(std::move(a)), .keepDimensions = keep};
  }
};

// ---- reductions (rows 69-78) --------------------------------------------------------------------

TEST_F(ReductionTest, AbsentAxesReduceEveryDimension) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(HasDesc(reduce(r, in({2, 3, 4})), F32, {}));
    EXPECT_TRUE(HasDesc(reduce(r, in({1, 3, 4, 4}), {.keepDimensions = true}), F32, {1, 1, 1, 1}));
  }
}

TEST_F(ReductionTest, GivenAxesAreDroppedOrKept) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(HasDesc(reduce(r, in({1, 3, 5, 5}), axes({0, 1})), F32, {5, 5}));
    EXPECT_TRUE(HasDesc(reduce(r, in({2, 3, 4}), axes({2, 0})), F32, {3}));
    EXPECT_TRUE(HasDesc(reduce(r, in({1, 7, 7, 8}), axes({1, 2}, true)), F32, {1, 1, 1, 8}));
  }
}

TEST_F(ReductionTest, EmptyAxesReduceNothing) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(HasDesc(reduce(r, in({2, 3}), axes({})), F32, {2, 3}));
    EXPECT_TRUE(HasDesc(reduce(r, in({2, 3}), axes({}, true)), F32, {2, 3}));
  }
}

TEST_F(ReductionTest, ScalarInputGivesScalarOutput) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(HasDesc(reduce(r, in({})), F32, {}));
    EXPECT_TRUE(HasDesc(reduce(r, in({}), {.keepDimensions = true}), F32, {}));
    EXPECT_TRUE(HasDesc(reduce(r, in({}), axes({})), F32, {}));
  }
}

TEST_F(ReductionTest, AcceptsExactlyTheAllowedDataTypes) {
  for (const auto& r : reductions()) {
    for (auto t : {F32, F16, I32, U32, I64, U64, I8, U8}) {
      SCOPED_TRACE(std::string(r.name) + " " + std::string(data_type_name(t)));
      bool allowed = std::find(r.allowed.begin(), r.allowed.end(), t) != r.allowed.end();
      if (allowed)
        EXPECT_TRUE(HasDesc(reduce(r, in(t, {2, 3, 4})), t, {}));
      else
        EXPECT_TYPE_ERROR(reduce(r, in(t, {2, 3, 4})));
    }
  }
}

TEST_F(ReductionTest, RejectsOutOfRangeAxis) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TYPE_ERROR(reduce(r, in({1, 2, 5, 5}), axes({4})));
    EXPECT_TYPE_ERROR(reduce(r, in({}), axes({0})));
  }
}

TEST_F(ReductionTest, RejectsDuplicateAxes) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TYPE_ERROR(reduce(r, in({1, 2, 5, 5}), axes({0, 1, 1})));
  }
}

TEST_F(ReductionTest, RejectsInputFromAnotherBuilder) {
  for (const auto& r : reductions()) {
    SCOPED_TRACE(r.name);
    EXPECT_TYPE_ERROR(reduce(r, foreign(F32, {2, 2})));
  }
}

TEST_F(ReductionTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.reduceSum(in({2}), {.axes = {1}, .label = "my_sum"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("reduceSum [my_sum]"), std::string::npos) << e.what();
  }
}

// ---- argMin / argMax (rows 1-2) -----------------------------------------------------------------

class ArgMinMaxTest : public OpTest {
 protected:
  using ArgFn = MLOperand (MLGraphBuilder::*)(const MLOperand&, uint32_t,
                                              const MLArgMinMaxOptions&);
  static constexpr std::pair<const char*, ArgFn> kOps[] = {{"argMin", &MLGraphBuilder::argMin},
                                                           {"argMax", &MLGraphBuilder::argMax}};
};

TEST_F(ArgMinMaxTest, DefaultsDropTheAxisAndGiveInt32) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(HasDesc((builder.*fn)(in({1, 2, 3, 4}), 0, {}), I32, {2, 3, 4}));
    EXPECT_TRUE(HasDesc((builder.*fn)(in({1, 2, 3, 4}), 1, {}), I32, {1, 3, 4}));
    EXPECT_TRUE(HasDesc((builder.*fn)(in({5}), 0, {}), I32, {}));
  }
}

TEST_F(ArgMinMaxTest, KeepDimensionsKeepsTheAxisAsOne) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(
        HasDesc((builder.*fn)(in({1, 2, 3, 4}), 2, {.keepDimensions = true}), I32, {1, 2, 1, 4}));
  }
}

TEST_F(ArgMinMaxTest, OutputDataTypeInt32OrInt64) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(
        HasDesc((builder.*fn)(in({1, 2, 3, 4}), 1, {.outputDataType = I32}), I32, {1, 3, 4}));
    EXPECT_TRUE(
        HasDesc((builder.*fn)(in({1, 2, 3, 4}), 1, {.outputDataType = I64}), I64, {1, 3, 4}));
  }
}

TEST_F(ArgMinMaxTest, RejectsOtherOutputDataTypes) {
  for (auto [name, fn] : kOps) {
    for (auto t : {F32, F16, U32, U64, I8, U8}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(data_type_name(t)));
      EXPECT_TYPE_ERROR((builder.*fn)(in({2, 3}), 0, {.outputDataType = t}));
    }
  }
}

TEST_F(ArgMinMaxTest, AcceptsAnyInputDataType) {
  for (auto [name, fn] : kOps) {
    for (auto t : {F32, F16, I32, U32, I64, U64, I8, U8}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(data_type_name(t)));
      EXPECT_TRUE(HasDesc((builder.*fn)(in(t, {2, 3}), 1, {}), I32, {2}));
    }
  }
}

TEST_F(ArgMinMaxTest, RejectsAxisNotLessThanRank) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TYPE_ERROR((builder.*fn)(in({1, 2, 3, 4}), 4, {}));
  }
}

TEST_F(ArgMinMaxTest, RejectsScalarInput) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TYPE_ERROR((builder.*fn)(in({}), 0, {}));
  }
}

TEST_F(ArgMinMaxTest, RejectsInputFromAnotherBuilder) {
  for (auto [name, fn] : kOps) {
    SCOPED_TRACE(name);
    EXPECT_TYPE_ERROR((builder.*fn)(foreign(F32, {2, 2}), 0, {}));
  }
}

// ---- cumulativeSum (row 9) ----------------------------------------------------------------------

class CumulativeSumTest : public OpTest {};

TEST_F(CumulativeSumTest, OutputCopiesTheInput) {
  EXPECT_TRUE(HasDesc(builder.cumulativeSum(in({3, 2, 5}), 0), F32, {3, 2, 5}));
  EXPECT_TRUE(
      HasDesc(builder.cumulativeSum(in({3, 2, 5}), 2, {.exclusive = true}), F32, {3, 2, 5}));
  EXPECT_TRUE(HasDesc(builder.cumulativeSum(in(I64, {4}), 0, {.reversed = true}), I64, {4}));
}

TEST_F(CumulativeSumTest, AcceptsExactlyTheAllowedDataTypes) {
  for (auto t : {F32, F16, I32, U32, I64, U64})
    EXPECT_TRUE(HasDesc(builder.cumulativeSum(in(t, {2}), 0), t, {2}));
  EXPECT_TYPE_ERROR(builder.cumulativeSum(in(I8, {2}), 0));
  EXPECT_TYPE_ERROR(builder.cumulativeSum(in(U8, {2}), 0));
}

TEST_F(CumulativeSumTest, RejectsAxisNotLessThanRank) {
  EXPECT_TYPE_ERROR(builder.cumulativeSum(in({1, 2, 3}), 3));
}

TEST_F(CumulativeSumTest, RejectsScalarInput) {
  EXPECT_TYPE_ERROR(builder.cumulativeSum(in({}), 0));
}

TEST_F(CumulativeSumTest, RejectsInputFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.cumulativeSum(foreign(F32, {3, 2, 5}), 0));
}

}  // namespace
}  // namespace cppnn::testing
