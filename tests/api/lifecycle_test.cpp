// Context loss, MLGraph.destroy and MLTensor.destroy (webnn-spec.md §1, §4): what loss destroys,
// every after-loss behaviour, and which objects survive the destruction of others.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/api/api_test_util.h"

namespace cppnn::testing {
namespace {

// A context with a graph (c = a + b over int32 [3]), its tensors and a constant tensor.
class ApiLifecycle : public ::testing::Test {
 protected:
  MLContext context = MLContext::create();
  MLGraph graph = build_add(context, I32, {3});
  MLTensor a = input_tensor(context, I32, {3}, std::vector<int32_t>{1, 2, 3});
  MLTensor b = input_tensor(context, I32, {3}, std::vector<int32_t>{4, 5, 6});
  MLTensor c = output_tensor(context, I32, {3});
  MLTensor k = context.createConstantTensor({I32, {3}}, bytes_of(std::vector<int32_t>{7, 8, 9}));

  MLNamedTensors inputs() const { return {{"a", a}, {"b", b}}; }
  MLNamedTensors outputs() const { return {{"c", c}}; }
};

// ---- context loss ------------------------------------------------------------------------------

TEST_F(ApiLifecycle, LosingTheContextDestroysItsGraphsAndTensors) {
  context.dispatch(graph, inputs(), outputs());
  EXPECT_FALSE(context.is_lost());
  EXPECT_FALSE(context.lost_info().has_value());
  context.destroy();
  EXPECT_TRUE(context.is_lost());
  ASSERT_TRUE(context.lost_info().has_value());
  EXPECT_FALSE(context.lost_info()->message.empty());
  EXPECT_TRUE(graph.is_destroyed());
  for (const MLTensor& t : {a, b, c, k}) EXPECT_TRUE(t.is_destroyed());
  // The attributes stay readable on the destroyed objects.
  EXPECT_EQ(c.shape(), (Dims{3}));
  EXPECT_TRUE(k.constant());
  EXPECT_EQ(graph.outputs().at("c"), (MLOperandDescriptor{I32, {3}}));
}

TEST_F(ApiLifecycle, LossDestroysGraphsAndTensorsHeldOnlyThroughCopies) {
  // Handles made in an inner scope and copied out are still the context's objects.
  MLGraph g2 = [&] {
    MLGraph inner = build_affine_i32(context, {2});
    return inner;
  }();
  std::vector<MLTensor> held;
  for (int i = 0; i < 10; ++i)
    held.push_back(io_tensor(context, F32, {static_cast<uint32_t>(i + 1)}));
  // Tensors that were dropped before the loss are simply gone.
  for (int i = 0; i < 10; ++i) (void)io_tensor(context, F32, {4});
  context.destroy();
  EXPECT_TRUE(g2.is_destroyed());
  for (const MLTensor& t : held) EXPECT_TRUE(t.is_destroyed());
}

TEST_F(ApiLifecycle, AfterLossDispatchIsInvalidState) {
  context.destroy();
  EXPECT_INVALID_STATE(context.dispatch(graph, inputs(), outputs()));
  EXPECT_INVALID_STATE(context.dispatch(graph, {}, {}));
}

TEST_F(ApiLifecycle, AfterLossWriteTensorIsTypeError) {
  MLTensor w = io_tensor(context, I32, {3});
  context.destroy();
  EXPECT_TYPE_ERROR(context.writeTensor(w, bytes_of(std::vector<int32_t>{1, 2, 3})));
  EXPECT_TYPE_ERROR(context.writeTensor(a, bytes_of(std::vector<int32_t>{1, 2, 3})));
}

TEST_F(ApiLifecycle, AfterLossReadTensorIsTypeError) {
  // §4: the tensors are destroyed by the loss, so readTensor rejects with TypeError (an
  // InvalidStateError is only for reads pending when the tensor is destroyed).
  context.destroy();
  EXPECT_TYPE_ERROR(context.readTensor(c));
  std::vector<std::byte> out(12);
  EXPECT_TYPE_ERROR(context.readTensor(c, out));
  EXPECT_TYPE_ERROR(context.readTensor<int32_t>(c));
}

TEST_F(ApiLifecycle, AfterLossCreatingTensorsIsInvalidState) {
  context.destroy();
  EXPECT_INVALID_STATE(context.createTensor(tensor_desc(F32, {2}, true, true)));
  EXPECT_INVALID_STATE(
      context.createConstantTensor({F32, {2}}, bytes_of(std::vector<float>{1, 2})));
  // The lost check comes first: even invalid descriptors give InvalidStateError.
  EXPECT_INVALID_STATE(context.createTensor(tensor_desc(F32, {0}, true, true)));
  EXPECT_INVALID_STATE(context.createConstantTensor({F32, {2}}, std::span<const std::byte>{}));
}

TEST_F(ApiLifecycle, AfterLossBuildAndBuilderMethodsAreInvalidState) {
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {F32, {2}});
  MLOperand y = builder.add(x, x);
  context.destroy();
  EXPECT_INVALID_STATE(builder.build({{"y", y}}));
  EXPECT_INVALID_STATE(builder.add(x, x));
  EXPECT_INVALID_STATE(builder.input("z", {F32, {2}}));
  EXPECT_INVALID_STATE(builder.constant(F32, MLNumber(1.0)));
  EXPECT_INVALID_STATE(builder.constant({F32, {1}}, bytes_of(std::vector<float>{1})));
  EXPECT_FALSE(builder.has_built());
  // constant(tensor) does its TypeError checks first, and the loss destroyed the tensor.
  EXPECT_TYPE_ERROR(builder.constant(k));
}

TEST_F(ApiLifecycle, AfterLossNewBuilderIsInvalidState) {
  context.destroy();
  EXPECT_INVALID_STATE(MLGraphBuilder{context});
  MLContext copy = context;
  EXPECT_INVALID_STATE(MLGraphBuilder{copy});
}

TEST_F(ApiLifecycle, DestroyTwiceIsANoOp) {
  context.destroy();
  const std::string message = context.lost_info()->message;
  EXPECT_NO_THROW(context.destroy());
  EXPECT_NO_THROW(MLContext(context).destroy());
  EXPECT_EQ(context.lost_info()->message, message);
  // Destroying the objects again is a no-op too.
  EXPECT_NO_THROW(graph.destroy());
  EXPECT_NO_THROW(c.destroy());
  EXPECT_NO_THROW(k.destroy());
  EXPECT_TRUE(graph.is_destroyed());
}

TEST_F(ApiLifecycle, LosingOneContextLeavesOthersAlone) {
  MLContext other = MLContext::create();
  MLGraph g = build_add(other, I32, {3});
  MLTensor oa = input_tensor(other, I32, {3}, std::vector<int32_t>{1, 1, 1});
  MLTensor ob = input_tensor(other, I32, {3}, std::vector<int32_t>{1, 2, 3});
  MLTensor oc = output_tensor(other, I32, {3});
  context.destroy();
  EXPECT_FALSE(other.is_lost());
  EXPECT_FALSE(g.is_destroyed());
  other.dispatch(g, {{"a", oa}, {"b", ob}}, {{"c", oc}});
  EXPECT_EQ(other.readTensor<int32_t>(oc), (std::vector<int32_t>{2, 3, 4}));
}

TEST_F(ApiLifecycle, ObjectsOutliveTheLastContextHandle) {
  // A graph keeps its context alive; tensors may outlive every context handle and be destroyed.
  MLGraph g = [] {
    MLContext local = MLContext::create();
    return build_affine_i32(local, {2});
  }();
  MLContext ctx = g.context();
  EXPECT_FALSE(ctx.is_lost());
  MLTensor x = input_tensor(ctx, I32, {2}, std::vector<int32_t>{3, 4});
  MLTensor y = output_tensor(ctx, I32, {2});
  ctx.dispatch(g, {{"x", x}}, {{"y", y}});
  EXPECT_EQ(ctx.readTensor<int32_t>(y), (std::vector<int32_t>{7, 9}));

  MLTensor orphan = [] {
    MLContext local = MLContext::create();
    return io_tensor(local, F32, {2});
  }();
  EXPECT_FALSE(orphan.is_destroyed());
  orphan.destroy();
  orphan.destroy();
  EXPECT_TRUE(orphan.is_destroyed());
  // A tensor of a context that is gone is not a tensor of a new context.
  MLContext fresh = MLContext::create();
  MLTensor orphan2 = [] {
    MLContext local = MLContext::create();
    return io_tensor(local, F32, {2});
  }();
  EXPECT_TYPE_ERROR(fresh.writeTensor(orphan2, bytes_of(std::vector<float>{1, 2})));
}

// ---- MLGraph.destroy ---------------------------------------------------------------------------

TEST_F(ApiLifecycle, GraphDestroyThenDispatchIsInvalidState) {
  context.dispatch(graph, inputs(), outputs());
  graph.destroy();
  EXPECT_TRUE(graph.is_destroyed());
  EXPECT_INVALID_STATE(context.dispatch(graph, inputs(), outputs()));
  // Copies of the handle see the same graph.
  MLGraph copy = graph;
  EXPECT_TRUE(copy.is_destroyed());
  EXPECT_INVALID_STATE(context.dispatch(copy, inputs(), outputs()));
  // Work submitted before the destroy completed; the context and tensors are unaffected.
  EXPECT_FALSE(context.is_lost());
  EXPECT_EQ(context.readTensor<int32_t>(c), (std::vector<int32_t>{5, 7, 9}));
  MLGraph again = build_add(context, I32, {3});
  MLTensor d = input_tensor(context, I32, {3}, std::vector<int32_t>{10, 10, 10});
  context.dispatch(again, {{"a", b}, {"b", d}}, outputs());
  EXPECT_EQ(context.readTensor<int32_t>(c), (std::vector<int32_t>{14, 15, 16}));
}

// ---- MLTensor.destroy --------------------------------------------------------------------------

TEST_F(ApiLifecycle, TensorDestroyIsIdempotentAndLocal) {
  EXPECT_FALSE(a.is_destroyed());
  a.destroy();
  EXPECT_TRUE(a.is_destroyed());
  EXPECT_NO_THROW(a.destroy());
  MLTensor copy = a;
  EXPECT_NO_THROW(copy.destroy());
  EXPECT_TRUE(copy.is_destroyed());
  // Its attributes remain; the other tensors, the graph and the context are unaffected.
  EXPECT_EQ(a.descriptor(), (MLOperandDescriptor{I32, {3}}));
  EXPECT_FALSE(b.is_destroyed());
  EXPECT_FALSE(graph.is_destroyed());
  EXPECT_FALSE(context.is_lost());
  MLTensor a2 = input_tensor(context, I32, {3}, std::vector<int32_t>{0, 0, 1});
  context.dispatch(graph, {{"a", a2}, {"b", b}}, outputs());
  EXPECT_EQ(context.readTensor<int32_t>(c), (std::vector<int32_t>{4, 5, 7}));
}

TEST_F(ApiLifecycle, DestroyingAnOutputAfterDispatchIsFine) {
  context.dispatch(graph, inputs(), outputs());
  c.destroy();
  EXPECT_TYPE_ERROR(context.readTensor(c));
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), outputs()));
}

TEST_F(ApiLifecycle, AConstantTensorMayBeDestroyedAfterBuild) {
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {I32, {3}});
  MLOperand kc = builder.constant(k);
  MLGraph g = builder.build({{"y", builder.sub(x, kc)}});
  k.destroy();
  EXPECT_TRUE(k.is_destroyed());
  MLTensor y = output_tensor(context, I32, {3});
  context.dispatch(g, {{"x", a}}, {{"y", y}});
  EXPECT_EQ(context.readTensor<int32_t>(y), (std::vector<int32_t>{-6, -6, -6}));
  // Fresh allocations do not disturb the graph's copy of the data.
  for (int i = 0; i < 8; ++i) {
    MLTensor junk = io_tensor(context, I32, {3});
    context.writeTensor(junk, bytes_of(std::vector<int32_t>{-1, -1, -1}));
  }
  context.dispatch(g, {{"x", b}}, {{"y", y}});
  EXPECT_EQ(context.readTensor<int32_t>(y), (std::vector<int32_t>{-3, -3, -3}));
  // A new builder can no longer take the destroyed tensor.
  MLGraphBuilder later(context);
  EXPECT_TYPE_ERROR(later.constant(k));
}

TEST_F(ApiLifecycle, AConstantTensorDestroyedBetweenConstantAndBuild) {
  // The operand recorded before the destroy keeps its data; the graph builds and runs.
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {I32, {3}});
  MLOperand kc = builder.constant(k);
  k.destroy();
  MLGraph g = builder.build({{"y", builder.add(x, kc)}});
  MLTensor y = output_tensor(context, I32, {3});
  context.dispatch(g, {{"x", a}}, {{"y", y}});
  EXPECT_EQ(context.readTensor<int32_t>(y), (std::vector<int32_t>{8, 10, 12}));
}

}  // namespace
}  // namespace cppnn::testing
