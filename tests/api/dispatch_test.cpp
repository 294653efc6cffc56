// MLContext::dispatch (webnn-spec.md §4): the synchronous binding checks and their error kinds,
// chained dispatches without synchronisation, and outputs named twice.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/api/api_test_util.h"

namespace cppnn::testing {
namespace {

// A context with c = a + b over float32 [2, 2] and its tensors bound correctly.
class ApiDispatch : public ::testing::Test {
 protected:
  MLContext context = MLContext::create();
  MLGraph graph = build_add(context, F32, {2, 2});
  MLTensor a = input_tensor(context, F32, {2, 2}, std::vector<float>{1, 2, 3, 4});
  MLTensor b = input_tensor(context, F32, {2, 2}, std::vector<float>{10, 20, 30, 40});
  MLTensor c = output_tensor(context, F32, {2, 2});

  MLNamedTensors inputs() const { return {{"a", a}, {"b", b}}; }
  MLNamedTensors outputs() const { return {{"c", c}}; }
  // The output was not written (a rejected dispatch has no effect).
  void ExpectUntouched() { EXPECT_EQ(context.readTensor<float>(c), std::vector<float>(4, 0.0f)); }
};

TEST_F(ApiDispatch, RunsTheGraph) {
  EXPECT_EQ(graph.inputs().size(), 2u);
  EXPECT_EQ(graph.outputs().at("c"), (MLOperandDescriptor{F32, {2, 2}}));
  EXPECT_TRUE(graph.context() == context);
  context.dispatch(graph, inputs(), outputs());
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{11, 22, 33, 44}));
  // The inputs are unchanged, and a second dispatch with new data gives the new result.
  context.writeTensor(a, bytes_of(std::vector<float>{-1, -2, -3, -4}));
  context.dispatch(graph, inputs(), outputs());
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{9, 18, 27, 36}));
}

TEST_F(ApiDispatch, UsageFlagsDoNotMatterForBinding) {
  // Inputs need not be writable and outputs need not be readable: zero-filled a and b give 0,
  // and a readable, writable input works as well.
  MLTensor za = context.createTensor(tensor_desc(F32, {2, 2}, false, false));
  MLTensor zb = context.createTensor(tensor_desc(F32, {2, 2}, true, true));
  MLTensor hidden = context.createTensor(tensor_desc(F32, {2, 2}, false, false));
  EXPECT_NO_THROW(context.dispatch(graph, {{"a", za}, {"b", zb}}, {{"c", hidden}}));
  context.dispatch(graph, {{"a", za}, {"b", b}}, outputs());
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{10, 20, 30, 40}));
}

TEST_F(ApiDispatch, RejectsAGraphOfAnotherContext) {
  MLContext other = MLContext::create();
  MLGraph foreign = build_add(other, F32, {2, 2});
  EXPECT_TYPE_ERROR(context.dispatch(foreign, inputs(), outputs()));
  // Even a destroyed graph of another context is a TypeError: the context check comes first.
  foreign.destroy();
  EXPECT_TYPE_ERROR(context.dispatch(foreign, inputs(), outputs()));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsATensorBoundTwice) {
  // Twice among the inputs.
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", a}}, outputs()));
  // Across inputs and outputs (in-place).
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", c}, {"b", b}}, outputs()));
  MLTensor rw = io_tensor(context, F32, {2, 2});
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", rw}}, {{"c", rw}}));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsATensorBoundTwiceAmongTheOutputs) {
  MLGraphBuilder bld(context);
  MLOperand x = bld.input("x", {I32, {3}});
  MLGraph g = bld.build({{"sum", bld.add(x, x)}, {"product", bld.mul(x, x)}});
  MLTensor xt = input_tensor(context, I32, {3}, std::vector<int32_t>{1, 2, 3});
  MLTensor out = output_tensor(context, I32, {3});
  EXPECT_TYPE_ERROR(context.dispatch(g, {{"x", xt}}, {{"sum", out}, {"product", out}}));
  MLTensor out2 = output_tensor(context, I32, {3});
  context.dispatch(g, {{"x", xt}}, {{"sum", out}, {"product", out2}});
  EXPECT_EQ(context.readTensor<int32_t>(out), (std::vector<int32_t>{2, 4, 6}));
  EXPECT_EQ(context.readTensor<int32_t>(out2), (std::vector<int32_t>{1, 4, 9}));
}

TEST_F(ApiDispatch, RejectsMissingExtraAndUnknownNames) {
  MLTensor extra = input_tensor(context, F32, {2, 2}, std::vector<float>{0, 0, 0, 0});
  // Inputs.
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}}, outputs()));
  EXPECT_TYPE_ERROR(context.dispatch(graph, {}, outputs()));
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", b}, {"d", extra}}, outputs()));
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"B", b}}, outputs()));
  // Outputs: every declared output must be bound, and nothing else.
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {}));
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"d", c}}));
  MLTensor c2 = output_tensor(context, F32, {2, 2});
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", c}, {"d", c2}}));
  // An input name given as an output and vice versa.
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"c", b}}, {{"b", c}}));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsAnInputTheGraphPruned) {
  MLGraphBuilder bld(context);
  MLOperand x = bld.input("x", {F32, {2, 2}});
  bld.input("unused", {F32, {2, 2}});
  MLGraph g = bld.build({{"c", bld.add(x, x)}});
  EXPECT_EQ(g.inputs().count("unused"), 0u);
  EXPECT_TYPE_ERROR(context.dispatch(g, {{"x", a}, {"unused", b}}, outputs()));
  context.dispatch(g, {{"x", a}}, outputs());
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(ApiDispatch, AGraphWithoutInputs) {
  MLGraphBuilder bld(context);
  MLOperand k1 = bld.constant({F32, {2, 2}}, bytes_of(std::vector<float>{1, 2, 3, 4}));
  MLOperand k2 = bld.constant(F32, MLNumber(0.5));
  MLGraph g = bld.build({{"c", bld.div(k1, k2)}});
  EXPECT_TRUE(g.inputs().empty());
  EXPECT_TYPE_ERROR(context.dispatch(g, inputs(), outputs()));
  context.dispatch(g, {}, outputs());
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(ApiDispatch, RejectsADescriptorMismatch) {
  // Input: another data type, another shape, another rank, same element count.
  MLTensor i32 = input_tensor(context, I32, {2, 2}, std::vector<int32_t>{1, 2, 3, 4});
  MLTensor flat = input_tensor(context, F32, {4}, std::vector<float>{1, 2, 3, 4});
  MLTensor wide = input_tensor(context, F32, {2, 3}, std::vector<float>(6, 1.0f));
  MLTensor trailing = input_tensor(context, F32, {2, 2, 1}, std::vector<float>(4, 1.0f));
  for (const MLTensor& bad : {i32, flat, wide, trailing}) {
    EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", bad}}, outputs()));
    EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", bad}, {"b", b}}, outputs()));
  }
  // Output.
  MLTensor f16 = output_tensor(context, F16, {2, 2});
  MLTensor flat_out = output_tensor(context, F32, {4});
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", f16}}));
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", flat_out}}));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsAConstantTensor) {
  MLTensor k = context.createConstantTensor({F32, {2, 2}}, bytes_of(std::vector<float>(4, 1.0f)));
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", k}}, outputs()));
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", k}}));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsATensorOfAnotherContext) {
  MLContext other = MLContext::create();
  MLTensor fa = input_tensor(other, F32, {2, 2}, std::vector<float>{1, 2, 3, 4});
  MLTensor fc = output_tensor(other, F32, {2, 2});
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", fa}, {"b", b}}, outputs()));
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", fc}}));
  EXPECT_EQ(other.readTensor<float>(fc), std::vector<float>(4, 0.0f));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsADestroyedTensor) {
  MLTensor a2 = input_tensor(context, F32, {2, 2}, std::vector<float>{1, 2, 3, 4});
  a2.destroy();
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a2}, {"b", b}}, outputs()));
  MLTensor c2 = output_tensor(context, F32, {2, 2});
  c2.destroy();
  EXPECT_TYPE_ERROR(context.dispatch(graph, inputs(), {{"c", c2}}));
  EXPECT_TYPE_ERROR(context.dispatch(graph, {{"a", a}, {"b", MLTensor{}}}, outputs()));
  ExpectUntouched();
}

TEST_F(ApiDispatch, RejectsADestroyedGraphWithInvalidStateBeforeBindingChecks) {
  graph.destroy();
  EXPECT_INVALID_STATE(context.dispatch(graph, inputs(), outputs()));
  // The graph check precedes the binding checks.
  EXPECT_INVALID_STATE(context.dispatch(graph, {}, {}));
  EXPECT_INVALID_STATE(context.dispatch(graph, {{"a", a}, {"b", a}}, outputs()));
  ExpectUntouched();
}

TEST_F(ApiDispatch, ChainedDispatchesNeedNoSynchronisation) {
  // c = a + b; then d = c + b; then e = d + a, each output fed to the next dispatch directly.
  MLTensor mid = io_tensor(context, F32, {2, 2});
  MLTensor d = io_tensor(context, F32, {2, 2});
  MLTensor e = output_tensor(context, F32, {2, 2});
  context.dispatch(graph, inputs(), {{"c", mid}});
  context.dispatch(graph, {{"a", mid}, {"b", b}}, {{"c", d}});
  context.dispatch(graph, {{"a", d}, {"b", a}}, {{"c", e}});
  EXPECT_EQ(context.readTensor<float>(e), (std::vector<float>{22, 44, 66, 88}));
  EXPECT_EQ(context.readTensor<float>(mid), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ApiDispatch, ChainedDispatchesPingPong) {
  // x <- 2x + 1 twenty times, alternating two tensors: x_n = 2^n (x_0 + 1) - 1.
  MLGraph affine = build_affine_i32(context, {3});
  MLTensor ping = io_tensor(context, I32, {3});
  MLTensor pong = io_tensor(context, I32, {3});
  context.writeTensor(ping, bytes_of(std::vector<int32_t>{0, 1, -1}));
  for (int i = 0; i < 20; ++i) {
    const bool even = i % 2 == 0;
    context.dispatch(affine, {{"x", even ? ping : pong}}, {{"y", even ? pong : ping}});
  }
  const int32_t p = 1 << 20;
  EXPECT_EQ(context.readTensor<int32_t>(ping), (std::vector<int32_t>{p - 1, 2 * p - 1, -1}));
}

TEST_F(ApiDispatch, WritesBetweenDispatchesTakeEffectInCallOrder) {
  MLTensor out1 = output_tensor(context, F32, {2, 2});
  MLTensor out2 = output_tensor(context, F32, {2, 2});
  context.dispatch(graph, inputs(), {{"c", out1}});
  context.writeTensor(b, bytes_of(std::vector<float>{0, 0, 0, 1}));
  context.dispatch(graph, inputs(), {{"c", out2}});
  EXPECT_EQ(context.readTensor<float>(out1), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(context.readTensor<float>(out2), (std::vector<float>{1, 2, 3, 5}));
}

TEST_F(ApiDispatch, AnOperandNamedByTwoOutputsFillsBoth) {
  MLGraphBuilder bld(context);
  MLOperand x = bld.input("x", {I32, {4}});
  MLOperand y = bld.sub(x, bld.constant(I32, MLNumber(5)));
  MLOperand z = bld.mul(x, y);
  MLGraph g = bld.build({{"first", y}, {"second", y}, {"z", z}, {"again", y}});
  EXPECT_EQ(g.outputs().size(), 4u);
  MLTensor xt = input_tensor(context, I32, {4}, std::vector<int32_t>{1, 5, 9, -3});
  MLTensor o1 = output_tensor(context, I32, {4});
  MLTensor o2 = output_tensor(context, I32, {4});
  MLTensor o3 = output_tensor(context, I32, {4});
  MLTensor oz = output_tensor(context, I32, {4});
  context.dispatch(g, {{"x", xt}}, {{"first", o1}, {"second", o2}, {"again", o3}, {"z", oz}});
  const std::vector<int32_t> want = {-4, 0, 4, -8};
  EXPECT_EQ(context.readTensor<int32_t>(o1), want);
  EXPECT_EQ(context.readTensor<int32_t>(o2), want);
  EXPECT_EQ(context.readTensor<int32_t>(o3), want);
  EXPECT_EQ(context.readTensor<int32_t>(oz), (std::vector<int32_t>{-4, 0, 36, 24}));
  // Rebinding the same graph with the tensors swapped around.
  context.writeTensor(xt, bytes_of(std::vector<int32_t>{0, 0, 0, 0}));
  context.dispatch(g, {{"x", xt}}, {{"first", oz}, {"second", o3}, {"again", o2}, {"z", o1}});
  EXPECT_EQ(context.readTensor<int32_t>(oz), std::vector<int32_t>(4, -5));
  EXPECT_EQ(context.readTensor<int32_t>(o3), std::vector<int32_t>(4, -5));
  EXPECT_EQ(context.readTensor<int32_t>(o2), std::vector<int32_t>(4, -5));
  EXPECT_EQ(context.readTensor<int32_t>(o1), std::vector<int32_t>(4, 0));
}

TEST_F(ApiDispatch, BroadcastScalarsAndComparisons) {
  // A graph with a scalar input, broadcasting, a comparison (uint8 output) and a logical op.
  MLGraphBuilder bld(context);
  MLOperand x = bld.input("x", {F32, {2, 3}});
  MLOperand t = bld.input("t", {F32, {}});
  MLOperand row = bld.input("row", {F32, {3}});
  MLOperand above = bld.greater(bld.add(x, row), t);
  MLOperand small = bld.lesserOrEqual(x, t);
  MLGraph g = bld.build({{"above", above},
                         {"both", bld.logicalAnd(above, small)},
                         {"max", bld.max(x, row)},
                         {"pow", bld.pow(x, bld.constant(F32, MLNumber(2.0)))}});
  MLTensor xt = input_tensor(context, F32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  MLTensor tt = input_tensor(context, F32, {}, std::vector<float>{4.5f});
  MLTensor rt = input_tensor(context, F32, {3}, std::vector<float>{3, 0, 0.5f});
  MLTensor above_t = output_tensor(context, U8, {2, 3});
  MLTensor both_t = output_tensor(context, U8, {2, 3});
  MLTensor max_t = output_tensor(context, F32, {2, 3});
  MLTensor pow_t = output_tensor(context, F32, {2, 3});
  context.dispatch(g, {{"x", xt}, {"t", tt}, {"row", rt}},
                   {{"above", above_t}, {"both", both_t}, {"max", max_t}, {"pow", pow_t}});
  EXPECT_EQ(context.readTensor<uint8_t>(above_t), (std::vector<uint8_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(context.readTensor<uint8_t>(both_t), (std::vector<uint8_t>{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(context.readTensor<float>(max_t), (std::vector<float>{3, 2, 3, 4, 5, 6}));
  EXPECT_EQ(context.readTensor<float>(pow_t), (std::vector<float>{1, 4, 9, 16, 25, 36}));
}

TEST_F(ApiDispatch, SeveralGraphsShareTensors) {
  // One tensor may be an input of several graphs and the output of one after the other.
  MLGraph sub = [&] {
    MLGraphBuilder bld(context);
    MLOperand x = bld.input("a", {F32, {2, 2}});
    MLOperand y = bld.input("b", {F32, {2, 2}});
    return bld.build({{"c", bld.sub(x, y)}});
  }();
  MLTensor t = io_tensor(context, F32, {2, 2});
  context.dispatch(graph, inputs(), {{"c", t}});           // t = a + b
  context.dispatch(sub, {{"a", t}, {"b", a}}, outputs());  // c = t - a = b
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{10, 20, 30, 40}));
  context.dispatch(sub, {{"a", b}, {"b", a}}, {{"c", t}});   // t = b - a
  context.dispatch(graph, {{"a", t}, {"b", a}}, outputs());  // c = t + a = b
  EXPECT_EQ(context.readTensor<float>(c), (std::vector<float>{10, 20, 30, 40}));
}

}  // namespace
}  // namespace cppnn::testing
