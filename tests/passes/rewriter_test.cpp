// The graph rewriter (src/passes/rewriter.h) and the decomposition pass's contract
// (src/passes/decompose.h): inputs kept, constants shared, dead code removed, replacements checked.
#include "src/passes/rewriter.h"

#include <gtest/gtest.h>

#include "cppnn/webnn.h"
#include "src/passes/decompose.h"

namespace cppnn::passes {
namespace {

using enum MLOperandDataType;

// x -> relu -> y, plus an unused input u and a dead branch.
Graph small_graph() {
  MLGraphBuilder b(MLContext::create({.backend = "reference"}));
  MLOperand x = b.input("x", {kFloat32, {2, 2}});
  b.input("u", {kFloat32, {3}});
  const float w[4] = {1, 2, 3, 4};
  MLOperand c = b.constant({kFloat32, {2, 2}}, std::as_bytes(std::span<const float>(w)));
  MLOperand y = b.relu(b.add(x, c, {.label = "sum"}));
  b.sigmoid(x);  // unreachable from the outputs
  Graph g = b.pruned_graph({{"y", y}});
  return g;
}

TEST(Rewriter, UseCountsAndProducers) {
  MLGraphBuilder b(MLContext::create({.backend = "reference"}));
  MLOperand x = b.input("x", {kFloat32, {2}});
  MLOperand s = b.add(x, x);
  MLOperand y = b.mul(s, s);
  Graph g = b.pruned_graph({{"y", y}, {"s", s}});
  const std::vector<uint32_t> uses = use_counts(g);
  EXPECT_EQ(uses[g.inputs[0].value], 2u);
  const OperandId sum = g.operations[0].outputs[0];
  EXPECT_EQ(uses[sum.value], 3u);  // twice by mul, once as an output
  const std::vector<uint32_t> p = producers(g);
  EXPECT_EQ(p[sum.value], 0u);
  EXPECT_EQ(p[g.inputs[0].value], UINT32_MAX);
}

TEST(Rewriter, CopyKeepsEverythingAndSharesConstants) {
  Graph g = small_graph();
  GraphRewriter rw(g);
  for (const Operation& op : g.operations) rw.copy(op);
  Graph out = rw.finish();
  EXPECT_EQ(out.operations.size(), g.operations.size());
  EXPECT_EQ(out.inputs.size(), g.inputs.size());
  EXPECT_EQ(out.content_hash(), g.content_hash());
  ASSERT_EQ(out.constants.size(), 1u);
  EXPECT_EQ(out.constants[0].data(), g.constants[0].data());  // shared, not copied
}

TEST(Rewriter, FinishKeepsUnusedInputsAndRemovesDeadCode) {
  MLGraphBuilder b(MLContext::create({.backend = "reference"}));
  MLOperand x = b.input("x", {kFloat32, {2}});
  MLOperand u = b.input("u", {kFloat32, {2}});
  MLOperand y = b.add(x, u);
  Graph g = b.pruned_graph({{"y", y}});
  GraphRewriter rw(g);
  // Replace add(x, u) by relu(x): u is no longer read but stays an input.
  rw.builder().sigmoid(rw.value(g.inputs[0]));  // dead: never used
  rw.set(g.operations[0].outputs[0], rw.builder().relu(rw.value(g.inputs[0])));
  Graph out = rw.finish();
  ASSERT_EQ(out.inputs.size(), 2u);
  EXPECT_EQ(out.operand(out.inputs[1]).name, "u");
  ASSERT_EQ(out.operations.size(), 1u);
  EXPECT_EQ(out.operations[0].type, OpType::kRelu);
}

TEST(Rewriter, AnOutputThatBecomesAnInputGetsAnIdentity) {
  MLGraphBuilder b(MLContext::create({.backend = "reference"}));
  MLOperand x = b.input("x", {kFloat32, {2}});
  Graph g = b.pruned_graph({{"y", b.identity(x)}});
  GraphRewriter rw(g);
  rw.set(g.operations[0].outputs[0], rw.value(g.inputs[0]));
  Graph out = rw.finish();
  ASSERT_EQ(out.operations.size(), 1u);
  EXPECT_EQ(out.operations[0].type, OpType::kIdentity);
  EXPECT_EQ(out.operand(out.outputs[0].second).kind, OperandKind::kOperationResult);
}

TEST(Decompose, LeavesNativeGraphsAlone) {
  Graph g = small_graph();
  bool changed = true;
  Graph out = decompose(g, BackendDescriptor::with_all_ops("all"), &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(out.content_hash(), g.content_hash());
}

TEST(Decompose, AnOpWithoutNativeFormOrDecompositionNamesTheOpAndLabel) {
  MLGraphBuilder b(MLContext::create({.backend = "reference"}));
  MLOperand x = b.input("x", {kFloat32, {1, 1, 3, 3}});
  const float one = 1;
  MLOperand w =
      b.constant({kFloat32, {1, 1, 1, 1}}, std::as_bytes(std::span<const float>(&one, 1)));
  Graph g = b.pruned_graph({{"y", b.conv2d(x, w, {.label = "stem"})}});
  try {
    decompose(g, BackendDescriptor::with_ops("adds", {OpType::kAdd}));
    FAIL() << "expected NotSupportedError";
  } catch (const NotSupportedError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("conv2d [label \"stem\"]"), std::string::npos) << m;
    EXPECT_NE(m.find("adds backend"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace cppnn::passes
