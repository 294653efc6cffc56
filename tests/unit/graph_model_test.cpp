// Graph model: pruning, renumbering and the stable content hash.
#include <gtest/gtest.h>

#include "cppnn/webnn.h"
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

// Builds y = relu(x + c) with the given constant value and label.
Graph make_graph(float value, const std::string& label) {
  MLGraphBuilder b(MLContext::create());
  MLOperand x = b.input("x", {F32, {4}});
  MLOperand c = b.constant(F32, value);
  MLOperand unused = b.input("unused", {F32, {4}});
  b.sigmoid(unused);
  MLGraph g = b.build({{"y", b.relu(b.add(x, c), {.label = label})}});
  return g.graph();
}

TEST(GraphModel, PrunedGraphIsDenseAndTopological) {
  Graph g = make_graph(1.0f, "r");
  EXPECT_EQ(g.operations.size(), 2u);
  EXPECT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.operands.size(), 4u);  // x, c, add, relu
  for (size_t i = 0; i < g.operations.size(); ++i)
    for (OperandId in : g.operations[i].inputs) {
      const OperandInfo& info = g.operand(in);
      if (info.kind == OperandKind::kOperationResult) {
        EXPECT_LT(info.producer, i);
      }
    }
  EXPECT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].first, "y");
}

TEST(GraphModel, ContentHashIsStableAndSensitive) {
  uint64_t h = make_graph(1.0f, "r").content_hash();
  EXPECT_EQ(h, make_graph(1.0f, "r").content_hash());
  EXPECT_NE(h, make_graph(2.0f, "r").content_hash());  // constant bytes
  EXPECT_NE(h, make_graph(1.0f, "s").content_hash());  // attributes (label)
}

TEST(GraphModel, HashDependsOnOptions) {
  auto hash = [](uint32_t axis) {
    MLGraphBuilder b(MLContext::create());
    MLOperand x = b.input("x", {F32, {2, 2}});
    return b.build({{"y", b.softmax(x, axis)}}).graph().content_hash();
  };
  EXPECT_NE(hash(0), hash(1));
}

}  // namespace
}  // namespace cppnn::testing
