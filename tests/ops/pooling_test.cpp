// Validation tests for averagePool2d, l2Pool2d and maxPool2d (§2 rows 65-67, §3.5, erratum §6.9).
#include <functional>

#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

using IL = MLInputOperandLayout;
constexpr uint32_t kU32Max = 4294967295u;

// One pooling op; every rule but the data types is shared by the three.
struct PoolCase {
  const char* name;
  std::function<MLOperand(MLGraphBuilder&, const MLOperand&, const MLPool2dOptions&)> call;
  bool integers;  // accepts the integer types (maxPool2d)
};

const PoolCase kPools[] = {
    {"averagePool2d",
     [](MLGraphBuilder& b, const MLOperand& x, const MLPool2dOptions& o) {
       return b.averagePool2d(x, o);
     },
     false},
    {"l2Pool2d",
     [](MLGraphBuilder& b, const MLOperand& x, const MLPool2dOptions& o) {
       return b.l2Pool2d(x, o);
     },
     false},
    {"maxPool2d",
     [](MLGraphBuilder& b, const MLOperand& x, const MLPool2dOptions& o) {
       return b.maxPool2d(x, o);
     },
     true},
};

class PoolingTest : public OpTest, public ::testing::WithParamInterface<PoolCase> {
 protected:
  MLOperand pool(const MLOperand& x, const MLPool2dOptions& o = {}) {
    return GetParam().call(builder, x, o);
  }
};

TEST_P(PoolingTest, DefaultWindowIsTheSpatialExtent) {
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 4, 4})), F32, {1, 3, 1, 1}));
  EXPECT_TRUE(HasDesc(pool(in(F16, {2, 3, 5, 7})), F16, {2, 3, 1, 1}));
  EXPECT_TRUE(HasDesc(pool(in({1, 7, 7, 2048}), {.layout = IL::kNhwc}), F32, {1, 1, 1, 2048}));
}

TEST_P(PoolingTest, WindowPaddingStridesAndDilations) {
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 4, 4}), {.windowDimensions = {3, 3}}), F32, {1, 3, 2, 2}));
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 5, 5}), {.windowDimensions = {5, 5}, .padding = {2, 2, 2, 2}}),
                      F32, {1, 3, 5, 5}));
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 5, 5}), {.windowDimensions = {2, 2}, .strides = {2, 2}}), F32,
                      {1, 3, 2, 2}));
  EXPECT_TRUE(
      HasDesc(pool(in({1, 3, 7, 7}),
                   {.windowDimensions = {4, 4}, .padding = {2, 1, 2, 1}, .strides = {2, 2}}),
              F32, {1, 3, 4, 4}));
  // Effective window (3-1)*2+1 = 5 on 7 rows and (2-1)*3+1 = 4 on 8 columns.
  EXPECT_TRUE(HasDesc(pool(in({1, 1, 7, 8}), {.windowDimensions = {3, 2}, .dilations = {2, 3}}),
                      F32, {1, 1, 3, 5}));
}

TEST_P(PoolingTest, NchwAndNhwcLayouts) {
  EXPECT_TRUE(HasDesc(pool(in({1, 2, 5, 6}), {.windowDimensions = {3, 2}, .layout = IL::kNchw}),
                      F32, {1, 2, 3, 5}));
  EXPECT_TRUE(HasDesc(pool(in({1, 5, 6, 2}), {.windowDimensions = {3, 2}, .layout = IL::kNhwc}),
                      F32, {1, 3, 5, 2}));
}

TEST_P(PoolingTest, OutputShapeRoundingFloorOrCeil) {
  // (7 - 4 + 2) / 2 + 1 = 3.5.
  MLPool2dOptions o{.windowDimensions = {4, 4}, .padding = {1, 1, 1, 1}, .strides = {2, 2}};
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 7}), o), F32, {1, 3, 3, 3}));
  o.outputShapeRounding = MLRoundingType::kFloor;
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 7}), o), F32, {1, 3, 3, 3}));
  o.outputShapeRounding = MLRoundingType::kCeil;
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 7}), o), F32, {1, 3, 4, 4}));
}

TEST_P(PoolingTest, OutputSizesMayBeTheFloorOrTheCeilAndOverrideRounding) {
  MLPool2dOptions o{.windowDimensions = {4, 4}, .padding = {1, 1, 1, 1}, .strides = {2, 2}};
  for (auto rounding : {MLRoundingType::kFloor, MLRoundingType::kCeil}) {
    o.outputShapeRounding = rounding;
    o.outputSizes = {3, 3};
    EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 7}), o), F32, {1, 3, 3, 3}));
    // Erratum 9: the padding is kept and outputSizes may exceed strides.
    o.outputSizes = {4, 4};
    EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 7}), o), F32, {1, 3, 4, 4}));
  }
}

TEST_P(PoolingTest, OutputSizesUseOneRoundingForBothDimensions) {
  // Height 3.5 (floor 3, ceil 4); width (9 - 4 + 2) / 2 + 1 = 4.5 (floor 4, ceil 5).
  MLPool2dOptions o{.windowDimensions = {4, 4}, .padding = {1, 1, 1, 1}, .strides = {2, 2}};
  o.outputSizes = {3, 4};
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 9}), o), F32, {1, 3, 3, 4}));
  o.outputSizes = {4, 5};
  EXPECT_TRUE(HasDesc(pool(in({1, 3, 7, 9}), o), F32, {1, 3, 4, 5}));
  o.outputSizes = {3, 5};
  EXPECT_TYPE_ERROR(pool(in({1, 3, 7, 9}), o));
  o.outputSizes = {4, 4};
  EXPECT_TYPE_ERROR(pool(in({1, 3, 7, 9}), o));
}

TEST_P(PoolingTest, RejectsOutputSizesOtherThanFloorOrCeil) {
  // (5 - 2 + 4) / 2 + 1 = 4.5: only [4,4] and [5,5] are allowed.
  MLPool2dOptions o{.windowDimensions = {2, 2}, .padding = {2, 2, 2, 2}, .strides = {2, 2}};
  o.outputSizes = {3, 3};
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), o));
  o.outputSizes = {0, 4};
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), o));
  o.outputSizes = {4, 0};
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), o));
  o.outputSizes = {6, 6};
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), o));
}

TEST_P(PoolingTest, RejectsWrongListLengths) {
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {1, 1, 1, 1}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.padding = {2, 2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.strides = {2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.dilations = {1, 1, 2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {2, 2},
                                            .padding = {2, 2, 2, 2},
                                            .strides = {2, 2},
                                            .outputSizes = {1, 2, 4, 4}}));
}

TEST_P(PoolingTest, RejectsZeroWindowStridesAndDilations) {
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {0, 2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {2, 0}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.strides = {0, 2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.strides = {2, 0}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.dilations = {1, 0}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.dilations = {0, 1}}));
}

TEST_P(PoolingTest, RejectsOutputSizesThatAreNotValidDimensions) {
  // Window larger than the input, or an output size of 0.
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {8, 2}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {2, 8}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {6, 3}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {3, 6}}));
  EXPECT_TYPE_ERROR(pool(in({1, 2, 5, 5}), {.windowDimensions = {3, 3}, .dilations = {3, 1}}));
  // Sizes beyond 2^31-1, computed without wrapping.
  EXPECT_TYPE_ERROR(pool(in({1, 3, 5, 5}), {.padding = {kU32Max, kU32Max, 0, 0}}));
  EXPECT_TYPE_ERROR(pool(in({1, 3, 5, 5}), {.padding = {0, 0, kU32Max, kU32Max}}));
  EXPECT_TYPE_ERROR(
      pool(in({1, 3, 5, 5}), {.windowDimensions = {3, 3}, .dilations = {kU32Max, 1}}));
  EXPECT_TYPE_ERROR(pool(in({1, 3, 5, 5}), {.windowDimensions = {kU32Max, 3},
                                            .padding = {kU32Max, kU32Max, 0, 0},
                                            .dilations = {kU32Max, 1}}));
}

TEST_P(PoolingTest, CeilRoundingFollowsTheSizeFormulaWhenTheWindowOverhangs) {
  // (5 - 6) / 2 + 1 = 0.5: floor gives 0 (invalid), ceil gives 1.
  EXPECT_TYPE_ERROR(pool(in({1, 1, 5, 5}), {.windowDimensions = {6, 6}, .strides = {2, 2}}));
  EXPECT_TRUE(HasDesc(pool(in({1, 1, 5, 5}), {.windowDimensions = {6, 6},
                                              .strides = {2, 2},
                                              .outputShapeRounding = MLRoundingType::kCeil}),
                      F32, {1, 1, 1, 1}));
}

TEST_P(PoolingTest, RejectsInputNot4D) {
  EXPECT_TYPE_ERROR(pool(in({1, 5, 5})));
  EXPECT_TYPE_ERROR(pool(in({1, 1, 1, 5, 5})));
}

TEST_P(PoolingTest, DataTypes) {
  for (auto t : {I32, U32, I64, U64, I8, U8}) {
    SCOPED_TRACE(static_cast<int>(t));
    if (GetParam().integers)
      EXPECT_TRUE(HasDesc(pool(in(t, {1, 3, 4, 4})), t, {1, 3, 1, 1}));
    else
      EXPECT_TYPE_ERROR(pool(in(t, {1, 3, 4, 4})));
  }
}

TEST_P(PoolingTest, RejectsInputFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(pool(foreign(F32, {2, 2, 2, 2})));
}

TEST_P(PoolingTest, ErrorMessageNamesOpAndLabel) {
  try {
    (void)pool(in({1, 2, 5, 5}), {.windowDimensions = {0, 2}, .label = "pool_2d_xxx"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    std::string expected = std::string(GetParam().name) + " [pool_2d_xxx]";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Pools, PoolingTest, ::testing::ValuesIn(kPools),
                         [](const ::testing::TestParamInfo<PoolCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace cppnn::testing
