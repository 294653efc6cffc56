// Validation tests for the element-wise binary, comparison and logical ops (§2 rows 10-26).
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

class ElementwiseBinaryTest : public OpTest {};

TEST_F(ElementwiseBinaryTest, BroadcastsShapes) {
  EXPECT_TRUE(HasDesc(builder.add(in({2, 1, 3}), in({4, 1})), F32, {2, 4, 3}));
  EXPECT_TRUE(HasDesc(builder.pow(in(F16, {}), in(F16, {5})), F16, {5}));
  EXPECT_TRUE(HasDesc(builder.div(in(I32, {3}), in(I32, {3})), I32, {3}));
}

TEST_F(ElementwiseBinaryTest, ComparisonsAndLogicalProduceUint8) {
  EXPECT_TRUE(HasDesc(builder.greaterOrEqual(in({2, 3}), in({3})), U8, {2, 3}));
  EXPECT_TRUE(HasDesc(builder.logicalXor(in(U8, {4}), in(U8, {1})), U8, {4}));
}

TEST_F(ElementwiseBinaryTest, RejectsIncompatibleShapes) {
  EXPECT_TYPE_ERROR(builder.add(in({2, 3}), in({4})));
}

TEST_F(ElementwiseBinaryTest, RejectsMismatchedDataTypes) {
  EXPECT_TYPE_ERROR(builder.mul(in(F32, {2}), in(F16, {2})));
  EXPECT_TYPE_ERROR(builder.equal(in(F32, {2}), in(I32, {2})));
}

TEST_F(ElementwiseBinaryTest, LogicalOpsOnlyAcceptUint8) {
  EXPECT_TYPE_ERROR(builder.logicalAnd(in(F32, {2}), in(F32, {2})));
}

TEST_F(ElementwiseBinaryTest, RejectsOperandFromAnotherBuilder) {
  EXPECT_TYPE_ERROR(builder.sub(in({2}), foreign(F32, {2})));
}

TEST_F(ElementwiseBinaryTest, ErrorMessageNamesOpAndLabel) {
  try {
    builder.max(in({2}), in({3}), {.label = "my_max"});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("max [my_max]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
