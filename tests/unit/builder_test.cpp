// MLGraphBuilder: input(), the constant() forms, build() (§3.8), "can build" (ISE) and
// operand ownership (§3.3).
#include <gtest/gtest.h>

#include <cstring>

#include "cppnn/webnn.h"
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

std::vector<std::byte> bytes_of(std::initializer_list<float> v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), std::data(v), b.size());
  return b;
}

class BuilderTest : public OpTest {};

TEST_F(BuilderTest, InputRecordsDescriptor) {
  MLOperand x = builder.input("x", {I64, {3}});
  EXPECT_TRUE(HasDesc(x, I64, {3}));
  EXPECT_TRUE(HasDesc(builder.input("scalar", {F32, {}}), F32, {}));
}

TEST_F(BuilderTest, InputRejectsEmptyName) {
  EXPECT_TYPE_ERROR(builder.input("", {F32, {1}}));
}

TEST_F(BuilderTest, RepeatedInputNameIsRejectedByBuildWhenBothAreUsed) {
  MLOperand a = builder.input("x", {F32, {1}});
  MLOperand b = builder.input("x", {F32, {1}});  // accepted here (WPT, Chromium)
  EXPECT_TYPE_ERROR(builder.build({{"y", builder.add(a, b)}}));
  // Only one of them reachable: fine, and the failed build left the builder usable.
  EXPECT_NO_THROW(builder.build({{"y", builder.relu(a)}}));
}

TEST_F(BuilderTest, InputNamesMayHoldNullBytes) {
  EXPECT_NO_THROW(builder.input(std::string("in\0put", 6), {F32, {1}}));
}

TEST_F(BuilderTest, InputRejectsInvalidDimensions) {
  EXPECT_TYPE_ERROR(builder.input("zero", {F32, {3, 0}}));
  EXPECT_TYPE_ERROR(builder.input("big", {F32, {0x80000000u}}));
  EXPECT_TYPE_ERROR(builder.input("count", {F32, {65536, 65536}}));
  EXPECT_TYPE_ERROR(builder.input("rank", {F32, Dims(10, 2)}));
}

TEST_F(BuilderTest, OutputsAboveMaxTensorByteLengthAreRejected) {
  const uint64_t limit = context.opSupportLimits().maxTensorByteLength;
  const auto n = static_cast<uint32_t>(limit / 4);
  MLOperand a = builder.input("a", {F32, {n}});  // just within the limit
  EXPECT_TYPE_ERROR(builder.input("b", {F32, {n + 1}}));
  // concat doubles the element count (still a valid count) past the byte limit.
  EXPECT_TYPE_ERROR(builder.concat({a, a}, 0));
  EXPECT_TYPE_ERROR(builder.cast(a, I64));
  EXPECT_NO_THROW(builder.cast(a, I8));
}

TEST_F(BuilderTest, ConstantChecksByteLengthAndCopies) {
  auto b = bytes_of({1, 2, 3, 4, 5, 6});
  MLOperand c = builder.constant({F32, {2, 3}}, b);
  EXPECT_TRUE(HasDesc(c, F32, {2, 3}));
  EXPECT_TYPE_ERROR(builder.constant({F32, {2, 3}}, std::span(b).first(20)));
  EXPECT_TYPE_ERROR(builder.constant({F32, {2, 0}}, std::span(b).first(0)));
  // The bytes were copied: changing the source does not change the constant.
  b[0] = std::byte{0x7f};
  MLGraph g = builder.build({{"y", builder.identity(c)}});
  const Graph& m = g.graph();
  float first;
  std::memcpy(&first, m.constants.at(0).data(), 4);
  EXPECT_EQ(first, 1.0f);
}

TEST_F(BuilderTest, ScalarConstantCastsTheValue) {
  MLOperand c = builder.constant(U8, MLNumber(1000));
  EXPECT_TRUE(HasDesc(c, U8, {}));
  MLGraph g = builder.build({{"y", builder.identity(c)}});
  EXPECT_EQ(static_cast<uint8_t>(g.graph().constants.at(0).data()[0]), 255);
}

TEST_F(BuilderTest, ConstantViewKeepsItsBufferAlive) {
  auto owner = std::make_shared<std::vector<std::byte>>(bytes_of({7, 8}));
  MLOperand c = builder.constant_view({F32, {2}}, owner, *owner);
  std::weak_ptr<std::vector<std::byte>> weak = owner;
  owner.reset();
  EXPECT_FALSE(weak.expired());
  MLGraph g = builder.build({{"y", builder.neg(c)}});
  EXPECT_EQ(g.graph().constants.at(0).size(), 8u);
}

TEST_F(BuilderTest, BuildRejectsBadOutputs) {
  MLOperand x = in({2});
  MLOperand y = builder.relu(x);
  EXPECT_TYPE_ERROR(builder.build({}));
  EXPECT_TYPE_ERROR(builder.build({{"", y}}));
  EXPECT_TYPE_ERROR(builder.build({{"x", x}}));  // an input cannot be an output
  MLOperand c = builder.constant(F32, 1.0);
  EXPECT_TYPE_ERROR(builder.build({{"c", c}}));  // nor a constant
  EXPECT_TYPE_ERROR(builder.build({{"f", foreign(F32, {2})}}));
  EXPECT_TYPE_ERROR(builder.build({{"null", MLOperand()}}));
  // A failed build leaves the builder usable.
  EXPECT_NO_THROW(builder.build({{"y", y}}));
}

TEST_F(BuilderTest, BuildOnlyOnceThenEveryMethodThrowsInvalidState) {
  MLOperand x = in({2});
  MLOperand y = builder.relu(x);
  builder.build({{"y", y}});
  EXPECT_TRUE(builder.has_built());
  EXPECT_INVALID_STATE(builder.build({{"y", y}}));
  EXPECT_INVALID_STATE(builder.relu(x));
  EXPECT_INVALID_STATE(builder.input("z", {F32, {1}}));
  EXPECT_INVALID_STATE(builder.constant(F32, 1.0));
}

TEST_F(BuilderTest, LostContextMeansInvalidState) {
  MLOperand x = in({2});
  context.destroy();
  EXPECT_TRUE(context.is_lost());
  EXPECT_INVALID_STATE(builder.relu(x));
  EXPECT_INVALID_STATE(builder.input("z", {F32, {1}}));
  EXPECT_INVALID_STATE(MLGraphBuilder{context});
}

TEST_F(BuilderTest, InvalidStateComesBeforeTypeErrors) {
  MLOperand x = in({2});
  builder.build({{"y", builder.relu(x)}});
  // The operand is from another builder AND the builder has built: ISE wins (§3.7).
  EXPECT_INVALID_STATE(builder.add(x, foreign(F32, {2})));
}

TEST_F(BuilderTest, NullOperandIsRejected) {
  EXPECT_TYPE_ERROR(builder.relu(MLOperand()));
}

TEST_F(BuilderTest, BuildPrunesUnreachableWork) {
  MLOperand x = in({2});
  MLOperand unused_input = in({3});
  MLOperand dead = builder.exp(unused_input);
  (void)dead;
  MLOperand y = builder.relu(builder.abs(x));
  MLGraph g = builder.build({{"y", y}});
  EXPECT_EQ(g.graph().operations.size(), 2u);
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.inputs().count("in0"), 1u);
  EXPECT_EQ(g.outputs().at("y"), (MLOperandDescriptor{F32, {2}}));
}

TEST_F(BuilderTest, OperandOptionsBecomeOperationInputs) {
  MLOperand a = in({2, 3});
  MLOperand b = in({3, 4});
  MLOperand c = in({4});
  MLOperand y = builder.gemm(a, b, {.c = c, .alpha = 2.0});
  MLGraph g = builder.build({{"y", y}});
  const Operation& op = g.graph().operations.at(0);
  ASSERT_EQ(op.inputs.size(), 3u);
  EXPECT_EQ(g.graph().descriptor(op.inputs[2]), (MLOperandDescriptor{F32, {4}}));
  const auto& attrs = attrs_of<OpType::kGemm>(op.attrs);
  EXPECT_FALSE(attrs.options.c.has_value());  // moved into inputs
  EXPECT_EQ(attrs.options.alpha, 2.0);
}

TEST_F(BuilderTest, AbsentOptionalOperandIsNoOperand) {
  MLOperand y = builder.gemm(in({2, 3}), in({3, 4}));
  MLGraph g = builder.build({{"y", y}});
  const Operation& op = g.graph().operations.at(0);
  ASSERT_EQ(op.inputs.size(), 3u);
  EXPECT_FALSE(op.inputs[2].valid());
}

}  // namespace
}  // namespace cppnn::testing
