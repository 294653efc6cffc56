// MLTensor rules (webnn-spec.md §1, §4, §6.8): createTensor zero-fills and validates dimensions,
// the usage flags, writeTensor copies at call time, readTensor's two forms,
// createConstantTensor, and MLGraphBuilder::constant(tensor).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/api/api_test_util.h"

namespace cppnn::testing {
namespace {

class ApiTensor : public ::testing::Test {
 protected:
  MLContext context = MLContext::create();
};

// ---- createTensor ------------------------------------------------------------------------------

TEST_F(ApiTensor, CreateTensorZeroFillsEveryType) {
  for (MLOperandDataType t : {F32, F16, I32, U32, I64, U64, I8, U8}) {
    MLTensor tensor = context.createTensor(tensor_desc(t, {3, 5}, true, false));
    std::vector<std::byte> bytes = context.readTensor(tensor);
    ASSERT_EQ(bytes.size(), 15u * data_type_bits(t) / 8) << data_type_name(t);
    for (std::byte b : bytes) EXPECT_EQ(b, std::byte{0}) << data_type_name(t);
  }
  // A scalar has one element.
  MLTensor scalar = context.createTensor(tensor_desc(F32, {}, true, false));
  EXPECT_EQ(context.readTensor<float>(scalar), std::vector<float>{0.0f});
}

TEST_F(ApiTensor, ReportsDescriptorAndUsage) {
  MLTensor t = context.createTensor(tensor_desc(I64, {2, 1, 4}, true, false));
  EXPECT_EQ(t.dataType(), I64);
  EXPECT_EQ(t.shape(), (Dims{2, 1, 4}));
  EXPECT_EQ(t.descriptor(), (MLOperandDescriptor{I64, {2, 1, 4}}));
  EXPECT_TRUE(t.readable());
  EXPECT_FALSE(t.writable());
  EXPECT_FALSE(t.constant());
  EXPECT_FALSE(t.is_destroyed());
  EXPECT_FALSE(t.is_null());

  MLTensor w = context.createTensor(tensor_desc(U8, {7}, false, true));
  EXPECT_FALSE(w.readable());
  EXPECT_TRUE(w.writable());
  // MLTensorDescriptor's usage flags default to false.
  MLTensor plain = context.createTensor({.dataType = F16, .shape = {2}});
  EXPECT_FALSE(plain.readable());
  EXPECT_FALSE(plain.writable());
  EXPECT_FALSE(plain.constant());
  // Copies of a handle are the same tensor; two creations are not.
  MLTensor copy = t;
  EXPECT_TRUE(copy == t);
  EXPECT_FALSE(w == t);
}

TEST_F(ApiTensor, CreateTensorRejectsInvalidDimensions) {
  // Erratum §6.8: a zero dim, a dim beyond 2^31-1, an element count beyond it, a byte length
  // beyond maxTensorByteLength and a rank beyond the implementation's are TypeErrors.
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(F32, {0}, true, true)));
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(F32, {2, 0, 3}, true, true)));
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(F32, {max, max, max}, true, true)));
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(U8, {1u << 31}, true, true)));
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(U8, {1u << 16, 1u << 16}, true, true)));
  const uint64_t limit = context.opSupportLimits().maxTensorByteLength;
  ASSERT_LT(limit / 8, uint64_t{1} << 31);
  EXPECT_TYPE_ERROR(
      context.createTensor(tensor_desc(I64, {static_cast<uint32_t>(limit / 8 + 1)}, true, true)));
  EXPECT_TYPE_ERROR(context.createTensor(tensor_desc(F32, Dims(16, 1), true, true)));
  // The limits themselves are accepted without allocating: rank 8 of ones.
  EXPECT_NO_THROW(context.createTensor(tensor_desc(F32, Dims(8, 1), true, true)));
}

// ---- writeTensor -------------------------------------------------------------------------------

TEST_F(ApiTensor, WriteThenReadRoundTrips) {
  MLTensor t = io_tensor(context, I32, {2, 3});
  const std::vector<int32_t> values = {1, -2, 3, -4, 5, std::numeric_limits<int32_t>::min()};
  context.writeTensor(t, bytes_of(values));
  EXPECT_EQ(context.readTensor<int32_t>(t), values);
  // A later write replaces the contents and a later read observes it.
  const std::vector<int32_t> next = {6, 5, 4, 3, 2, 1};
  context.writeTensor(t, bytes_of(next));
  EXPECT_EQ(context.readTensor<int32_t>(t), next);
}

TEST_F(ApiTensor, WriteCopiesTheBytesAtCallTime) {
  MLTensor t = io_tensor(context, F32, {4});
  std::vector<float> source = {1.5f, 2.5f, 3.5f, 4.5f};
  std::vector<std::byte> bytes = bytes_of(source);
  context.writeTensor(t, bytes);
  // Mutating (and then freeing) the caller's buffer after the call changes nothing.
  std::fill(bytes.begin(), bytes.end(), std::byte{0xff});
  bytes.clear();
  bytes.shrink_to_fit();
  EXPECT_EQ(context.readTensor<float>(t), source);
}

TEST_F(ApiTensor, WriteRejectsASizeMismatch) {
  MLTensor t = io_tensor(context, F32, {4});
  EXPECT_TYPE_ERROR(context.writeTensor(t, bytes_of(std::vector<float>(3, 1.0f))));
  EXPECT_TYPE_ERROR(context.writeTensor(t, bytes_of(std::vector<float>(5, 1.0f))));
  EXPECT_TYPE_ERROR(context.writeTensor(t, std::vector<std::byte>(15)));
  EXPECT_TYPE_ERROR(context.writeTensor(t, std::span<const std::byte>{}));
  // Nothing was written.
  EXPECT_EQ(context.readTensor<float>(t), std::vector<float>(4, 0.0f));
}

TEST_F(ApiTensor, WriteRejectsATensorThatIsNotWritable) {
  MLTensor t = context.createTensor(tensor_desc(F32, {2}, true, false));
  EXPECT_TYPE_ERROR(context.writeTensor(t, bytes_of(std::vector<float>{1, 2})));
  EXPECT_EQ(context.readTensor<float>(t), (std::vector<float>{0, 0}));
}

TEST_F(ApiTensor, WriteRejectsATensorOfAnotherContext) {
  MLContext other = MLContext::create();
  MLTensor t = io_tensor(other, F32, {2});
  EXPECT_TYPE_ERROR(context.writeTensor(t, bytes_of(std::vector<float>{1, 2})));
  EXPECT_EQ(other.readTensor<float>(t), (std::vector<float>{0, 0}));
}

TEST_F(ApiTensor, WriteRejectsADestroyedTensor) {
  MLTensor t = io_tensor(context, F32, {2});
  t.destroy();
  EXPECT_TYPE_ERROR(context.writeTensor(t, bytes_of(std::vector<float>{1, 2})));
}

TEST_F(ApiTensor, NullTensorsAreRejected) {
  MLTensor null;
  EXPECT_TRUE(null.is_null());
  EXPECT_TYPE_ERROR(context.writeTensor(null, std::vector<std::byte>(4)));
  EXPECT_TYPE_ERROR(context.readTensor(null));
  std::vector<std::byte> out(4);
  EXPECT_TYPE_ERROR(context.readTensor(null, out));
  EXPECT_TYPE_ERROR(null.dataType());
  EXPECT_TYPE_ERROR(null.destroy());
}

// ---- readTensor --------------------------------------------------------------------------------

TEST_F(ApiTensor, ReadIntoACallerBufferAndAsBytes) {
  MLTensor t = io_tensor(context, U8, {5});
  const std::vector<uint8_t> values = {0, 1, 127, 128, 255};
  context.writeTensor(t, bytes_of(values));
  std::vector<std::byte> out(5, std::byte{0xaa});
  context.readTensor(t, out);
  EXPECT_EQ(elements_of<uint8_t>(out), values);
  EXPECT_EQ(context.readTensor(t), bytes_of(values));
  EXPECT_EQ(context.readTensor<uint8_t>(t), values);
  // Reading does not consume or change the tensor.
  EXPECT_EQ(context.readTensor<uint8_t>(t), values);
}

TEST_F(ApiTensor, ReadKeepsFloat16Bits) {
  MLTensor t = io_tensor(context, F16, {4});
  const std::vector<uint16_t> bits = {float_to_half_bits(1.0f), float_to_half_bits(-0.0f), 0x7c00,
                                      0x7e01};
  context.writeTensor(t, bytes_of(bits));
  EXPECT_EQ(context.readTensor<uint16_t>(t), bits);
}

TEST_F(ApiTensor, ReadRejectsATensorThatIsNotReadable) {
  MLTensor t = context.createTensor(tensor_desc(F32, {2}, false, true));
  EXPECT_TYPE_ERROR(context.readTensor(t));
  EXPECT_TYPE_ERROR(context.readTensor<float>(t));
  std::vector<std::byte> out(8);
  EXPECT_TYPE_ERROR(context.readTensor(t, out));
}

TEST_F(ApiTensor, ReadRejectsASizeMismatch) {
  MLTensor t = io_tensor(context, F32, {2});
  std::vector<std::byte> small(7), large(9), none;
  EXPECT_TYPE_ERROR(context.readTensor(t, small));
  EXPECT_TYPE_ERROR(context.readTensor(t, large));
  EXPECT_TYPE_ERROR(context.readTensor(t, none));
}

TEST_F(ApiTensor, ReadRejectsATensorOfAnotherContextOrDestroyed) {
  MLContext other = MLContext::create();
  MLTensor foreign = io_tensor(other, F32, {2});
  EXPECT_TYPE_ERROR(context.readTensor(foreign));
  std::vector<std::byte> out(8);
  EXPECT_TYPE_ERROR(context.readTensor(foreign, out));

  MLTensor t = io_tensor(context, F32, {2});
  t.destroy();
  EXPECT_TYPE_ERROR(context.readTensor(t));
  EXPECT_TYPE_ERROR(context.readTensor(t, out));
}

// ---- createConstantTensor ----------------------------------------------------------------------

TEST_F(ApiTensor, ConstantTensorFlags) {
  MLTensor c = context.createConstantTensor({F32, {2}}, bytes_of(std::vector<float>{1, 2}));
  EXPECT_TRUE(c.constant());
  EXPECT_FALSE(c.readable());
  EXPECT_FALSE(c.writable());
  EXPECT_EQ(c.descriptor(), (MLOperandDescriptor{F32, {2}}));
  // Neither readable nor writable.
  EXPECT_TYPE_ERROR(context.readTensor(c));
  EXPECT_TYPE_ERROR(context.writeTensor(c, bytes_of(std::vector<float>{3, 4})));
}

TEST_F(ApiTensor, ConstantTensorRejectsABufferThatDoesNotMatch) {
  EXPECT_TYPE_ERROR(
      context.createConstantTensor({F32, {2, 2}}, bytes_of(std::vector<float>{1, 2, 3})));
  EXPECT_TYPE_ERROR(
      context.createConstantTensor({F32, {2}}, bytes_of(std::vector<float>{1, 2, 3})));
  EXPECT_TYPE_ERROR(context.createConstantTensor({I64, {1}}, bytes_of(std::vector<int32_t>{1})));
  EXPECT_TYPE_ERROR(context.createConstantTensor({F16, {}}, std::span<const std::byte>{}));
}

TEST_F(ApiTensor, ConstantTensorRejectsInvalidDimensions) {
  EXPECT_TYPE_ERROR(context.createConstantTensor({F32, {0}}, std::span<const std::byte>{}));
  EXPECT_TYPE_ERROR(context.createConstantTensor({F32, {3, 0}}, std::span<const std::byte>{}));
  EXPECT_TYPE_ERROR(context.createConstantTensor({U8, Dims(16, 1)}, std::vector<std::byte>(1)));
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  EXPECT_TYPE_ERROR(
      context.createConstantTensor({F32, {max, max, max}}, std::vector<std::byte>(4)));
}

// The data of a constant tensor, as seen by a graph: x + constant(tensor).
std::vector<float> run_with_constant(MLContext& context, const MLTensor& c,
                                     const std::vector<float>& x) {
  MLGraphBuilder b(context);
  MLOperand in = b.input("x", c.descriptor());
  MLGraph g = b.build({{"y", b.add(in, b.constant(c))}});
  MLTensor xt = input_tensor(context, c.dataType(), c.shape(), x);
  MLTensor yt = output_tensor(context, c.dataType(), c.shape());
  context.dispatch(g, {{"x", xt}}, {{"y", yt}});
  return context.readTensor<float>(yt);
}

TEST_F(ApiTensor, ConstantTensorCopiesTheBytesAtCallTime) {
  std::vector<float> source = {10, 20, 30};
  std::vector<std::byte> bytes = bytes_of(source);
  MLTensor c = context.createConstantTensor({F32, {3}}, bytes);
  std::fill(bytes.begin(), bytes.end(), std::byte{0});
  EXPECT_EQ(run_with_constant(context, c, {1, 2, 3}), (std::vector<float>{11, 22, 33}));
  // The same constant tensor serves several graphs.
  EXPECT_EQ(run_with_constant(context, c, {-1, -2, -3}), (std::vector<float>{9, 18, 27}));
}

// ---- MLGraphBuilder::constant(tensor) ----------------------------------------------------------

TEST_F(ApiTensor, BuilderConstantFromTensorHasItsDescriptor) {
  MLTensor c =
      context.createConstantTensor({I32, {2, 2}}, bytes_of(std::vector<int32_t>{1, 2, 3, 4}));
  MLGraphBuilder b(context);
  MLOperand k = b.constant(c);
  EXPECT_EQ(k.descriptor(), (MLOperandDescriptor{I32, {2, 2}}));
  MLOperand x = b.input("x", {I32, {2, 2}});
  MLGraph g = b.build({{"y", b.mul(x, k)}});
  MLTensor xt = input_tensor(context, I32, {2, 2}, std::vector<int32_t>{5, 6, 7, -8});
  MLTensor yt = output_tensor(context, I32, {2, 2});
  context.dispatch(g, {{"x", xt}}, {{"y", yt}});
  EXPECT_EQ(context.readTensor<int32_t>(yt), (std::vector<int32_t>{5, 12, 21, -32}));
}

TEST_F(ApiTensor, BuilderConstantRejectsATensorOfAnotherContext) {
  MLContext other = MLContext::create();
  MLTensor c = other.createConstantTensor({F32, {1}}, bytes_of(std::vector<float>{1}));
  MLGraphBuilder b(context);
  EXPECT_TYPE_ERROR(b.constant(c));
}

TEST_F(ApiTensor, BuilderConstantRejectsADestroyedTensor) {
  MLTensor c = context.createConstantTensor({F32, {1}}, bytes_of(std::vector<float>{1}));
  c.destroy();
  MLGraphBuilder b(context);
  EXPECT_TYPE_ERROR(b.constant(c));
}

TEST_F(ApiTensor, BuilderConstantRejectsANonConstantTensor) {
  MLGraphBuilder b(context);
  EXPECT_TYPE_ERROR(b.constant(io_tensor(context, F32, {1})));
  EXPECT_TYPE_ERROR(b.constant(context.createTensor(tensor_desc(F32, {1}, false, false))));
  EXPECT_TYPE_ERROR(b.constant(MLTensor{}));
}

TEST_F(ApiTensor, BuilderConstantAfterBuildIsInvalidStateButTypeErrorsComeFirst) {
  MLTensor c = context.createConstantTensor({F32, {1}}, bytes_of(std::vector<float>{1}));
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {F32, {1}});
  b.build({{"y", b.add(x, x)}});
  EXPECT_INVALID_STATE(b.constant(c));
  // §3.7: for this form the TypeError checks precede the "can build" check.
  MLContext other = MLContext::create();
  EXPECT_TYPE_ERROR(
      b.constant(other.createConstantTensor({F32, {1}}, bytes_of(std::vector<float>{1}))));
  EXPECT_TYPE_ERROR(b.constant(io_tensor(context, F32, {1})));
  EXPECT_TYPE_ERROR(b.constant(MLTensor{}));
  c.destroy();
  EXPECT_TYPE_ERROR(b.constant(c));
}

}  // namespace
}  // namespace cppnn::testing
