// Validation tests for quantizeLinear and dequantizeLinear (§2 rows 44-45, §6 erratum 17).
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

inline constexpr auto I4 = MLOperandDataType::kInt4;
inline constexpr auto U4 = MLOperandDataType::kUint4;

class QuantizationTest : public OpTest {};

struct BlockwiseCase {
  Dims input, scale;
};

// scale/zeroPoint shapes that build for input [6, 4, 5]: equal rank, lower rank (left-padded
// with 1s, erratum 17), scalar, and blockwise with block sizes dividing the input dims.
const BlockwiseCase kValidScaleShapes[] = {
    {{6, 4, 5}, {6, 4, 5}}, {{6, 4, 5}, {5}},    {{6, 4, 5}, {}}, {{6, 4, 5}, {2, 2, 1}},
    {{6, 4, 5}, {3, 2, 1}}, {{6, 4, 5}, {4, 1}}, {{}, {}},        {{7}, {1}},
};

TEST_F(QuantizationTest, DequantizeOutputHasInputShapeAndScaleType) {
  for (const auto& c : kValidScaleShapes) {
    EXPECT_TRUE(
        HasDesc(builder.dequantizeLinear(in(I8, c.input), in(F32, c.scale), in(I8, c.scale)), F32,
                c.input));
    EXPECT_TRUE(
        HasDesc(builder.dequantizeLinear(in(U8, c.input), in(F16, c.scale), in(U8, c.scale)), F16,
                c.input));
  }
}

TEST_F(QuantizationTest, QuantizeOutputHasInputShapeAndZeroPointType) {
  for (const auto& c : kValidScaleShapes) {
    EXPECT_TRUE(HasDesc(builder.quantizeLinear(in(F32, c.input), in(F32, c.scale), in(I8, c.scale)),
                        I8, c.input));
    EXPECT_TRUE(HasDesc(builder.quantizeLinear(in(F16, c.input), in(F16, c.scale), in(U8, c.scale)),
                        U8, c.input));
  }
}

TEST_F(QuantizationTest, AcceptsAllQuantizedTypesIncludingInt4) {
  for (auto t : {U8, I8, U32, I32, I4, U4}) {
    EXPECT_TRUE(HasDesc(builder.dequantizeLinear(in(t, {2, 4}), in(F32, {2, 1}), in(t, {2, 1})),
                        F32, {2, 4}));
    EXPECT_TRUE(
        HasDesc(builder.quantizeLinear(in(F32, {2, 4}), in(F32, {4}), in(t, {4})), t, {2, 4}));
  }
}

TEST_F(QuantizationTest, RejectsScaleDimsThatDoNotDivideInputDims) {
  EXPECT_TYPE_ERROR(
      builder.quantizeLinear(in(F32, {3, 2, 5}), in(F32, {2, 1, 5}), in(I8, {2, 1, 5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(U8, {3, 2, 5}), in(F32, {2}), in(U8, {2})));
  EXPECT_TYPE_ERROR(
      builder.dequantizeLinear(in(U8, {3, 2, 5}), in(F32, {4, 2, 5}), in(U8, {4, 2, 5})));
}

TEST_F(QuantizationTest, RejectsScaleRankAboveInputRank) {
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {2, 5}), in(F32, {1, 2, 5}), in(I8, {1, 2, 5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I8, {}), in(F32, {1}), in(I8, {1})));
}

TEST_F(QuantizationTest, RejectsZeroPointShapeDifferentFromScaleShape) {
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {3, 2, 5}), in(F32, {5}), in(I8, {2, 5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(U8, {3, 2, 5}), in(F32, {5}), in(U8, {2})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(U8, {3, 2, 5}), in(F32, {1, 5}), in(U8, {5})));
}

TEST_F(QuantizationTest, DequantizeRejectsNonQuantizedInput) {
  for (auto t : {F32, F16, I64, U64})
    EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(t, {3, 5}), in(F32, {5}), in(t, {5})));
}

TEST_F(QuantizationTest, DequantizeZeroPointTypeMustEqualInputType) {
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I8, {3, 5}), in(F32, {5}), in(U8, {5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I8, {3, 5}), in(F32, {5}), in(I32, {5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I4, {3, 5}), in(F32, {5}), in(I8, {5})));
}

TEST_F(QuantizationTest, DequantizeScaleMustBeFloat) {
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(U8, {3, 5}), in(I32, {5}), in(U8, {5})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(U8, {3, 5}), in(U8, {5}), in(U8, {5})));
}

TEST_F(QuantizationTest, QuantizeInputMustBeFloat) {
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(I32, {3, 5}), in(F32, {5}), in(I8, {5})));
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(I32, {3, 5}), in(I32, {5}), in(I8, {5})));
}

TEST_F(QuantizationTest, QuantizeScaleTypeMustEqualInputType) {
  EXPECT_TYPE_ERROR(
      builder.quantizeLinear(in(F32, {3, 2, 5}), in(F16, {3, 1, 5}), in(I8, {3, 1, 5})));
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {3, 5}), in(I32, {5}), in(U8, {5})));
}

TEST_F(QuantizationTest, QuantizeZeroPointMustBeAQuantizedType) {
  for (auto t : {F32, F16, I64, U64})
    EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {3, 5}), in(F32, {5}), in(t, {5})));
}

TEST_F(QuantizationTest, RejectsOperandsFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.quantizeLinear(foreign(F32, {2, 4}), in(F32, {2, 4}), in(I8, {2, 4})));
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {2, 4}), foreign(F32, {2, 4}), in(I8, {2, 4})));
  EXPECT_TYPE_ERROR(builder.quantizeLinear(in(F32, {2, 4}), in(F32, {2, 4}), foreign(I8, {2, 4})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(foreign(I8, {2, 4}), in(F32, {2, 4}), in(I8, {2, 4})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I8, {2, 4}), foreign(F32, {2, 4}), in(I8, {2, 4})));
  EXPECT_TYPE_ERROR(builder.dequantizeLinear(in(I8, {2, 4}), in(F32, {2, 4}), foreign(I8, {2, 4})));
}

TEST_F(QuantizationTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.quantizeLinear(in(F32, {3, 2, 5}), in(F32, {2, 1, 5}), in(I8, {2, 1, 5}),
                           {.label = "quantize_linear_123"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("quantizeLinear [quantize_linear_123]"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
