// The constant folding pass (src/passes/constant_folding.h): operations on constants only become
// constants holding the reference kernels' values; FoldOptions keep scalar fills from being
// expanded; operations reading an input stay; evaluate_constant_graph gives the outputs' bytes.
#include "src/passes/constant_folding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/passes/rewriter.h"
#include "tests/backends/run_util.h"

namespace cppnn::passes {
namespace {

using enum MLOperandDataType;
using testing::as;
using testing::to_bytes;

MLOperand floats(MLGraphBuilder& b, const std::vector<uint32_t>& shape,
                 const std::vector<float>& v) {
  return b.constant({kFloat32, shape}, to_bytes(v));
}

// Runs a graph model on the reference kernels; inputs and outputs in graph order.
std::vector<std::vector<std::byte>> run_model(const Graph& g,
                                              const std::vector<std::vector<std::byte>>& inputs) {
  auto plan = make_reference_plan(std::make_shared<const Graph>(g));
  std::vector<const std::byte*> in;
  for (const auto& bytes : inputs) in.push_back(bytes.data());
  std::vector<std::vector<std::byte>> outs;
  for (const auto& [name, id] : g.outputs) outs.emplace_back(byte_length(g.descriptor(id)));
  std::vector<std::byte*> out;
  for (auto& bytes : outs) out.push_back(bytes.data());
  plan->execute(in, out);
  return outs;
}

size_t count_ops(const Graph& g, OpType type) {
  size_t n = 0;
  for (const Operation& op : g.operations) n += op.type == type;
  return n;
}

// chain = mul(exp(add(c1, c2)), c3) folded; sum = add(x, chain) kept.
Graph chain_graph() {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {4}});
  MLOperand c1 = floats(b, {4}, {0.5f, -1.25f, 2.0f, 0.1f});
  MLOperand c2 = floats(b, {4}, {0.25f, 0.75f, -3.0f, 0.2f});
  MLOperand c3 = floats(b, {4}, {3.0f, -0.5f, 1.5f, 7.0f});
  MLOperand chain = b.mul(b.exp(b.add(c1, c2)), c3);
  return b.pruned_graph({{"chain", chain}, {"sum", b.add(x, chain)}});
}

TEST(ConstantFolding, AChainOnConstantsBecomesOneConstantWithTheReferenceValues) {
  const Graph g = chain_graph();
  bool changed = false;
  const Graph folded = fold_constants(g, FoldOptions{}, &changed);
  EXPECT_TRUE(changed);
  // What is left: the add reading x, and an identity for the output that became a constant.
  ASSERT_EQ(folded.operations.size(), 2u);
  EXPECT_EQ(count_ops(folded, OpType::kAdd), 1u);
  EXPECT_EQ(count_ops(folded, OpType::kIdentity), 1u);
  EXPECT_EQ(count_ops(folded, OpType::kExp), 0u);
  ASSERT_EQ(folded.constants.size(), 1u);
  const auto x = to_bytes(std::vector<float>{1, 2, 3, 4});
  const auto want = run_model(g, {x});
  const auto got = run_model(folded, {x});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(as<float>(got[i]), as<float>(want[i])) << i;
  // The constant holds the chain's bytes exactly.
  const std::vector<std::byte>& chain = want[0];
  ASSERT_EQ(folded.constants[0].size(), chain.size());
  EXPECT_EQ(std::memcmp(folded.constants[0].data(), chain.data(), chain.size()), 0);
}

TEST(ConstantFolding, Float16AndIntegersFoldLikeTheReference) {
  MLGraphBuilder b = pass_builder();
  const std::vector<uint16_t> h = testing::half_bits({1.5f, -2.25f, 65504.0f});
  MLOperand a = b.constant({kFloat16, {3}}, to_bytes(h));
  MLOperand i = b.constant({kInt8, {3}}, to_bytes(std::vector<int8_t>{127, -128, 5}));
  MLOperand wrapped = b.add(i, b.constant(kInt8, MLNumber(1)));  // wraps around
  const Graph g =
      b.pruned_graph({{"h", b.mul(a, b.constant(kFloat16, MLNumber(2)))}, {"i", wrapped}});
  bool changed = false;
  const Graph folded = fold_constants(g, FoldOptions{}, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(count_ops(folded, OpType::kMul) + count_ops(folded, OpType::kAdd), 0u);
  const auto want = run_model(g, {}), got = run_model(folded, {});
  EXPECT_EQ(got, want);
  EXPECT_EQ(as<int8_t>(got[1]), (std::vector<int8_t>{-128, -127, 6}));
}

TEST(ConstantFolding, AScalarFillIsNotExpandedIntoAHugeTensor) {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {1024, 1024}});
  MLOperand one = b.constant(kFloat32, MLNumber(1.0));
  MLOperand big = b.expand(one, {1024, 1024});  // 4 MiB from 4 bytes
  const Graph g = b.pruned_graph({{"y", b.add(x, big)}});
  bool changed = true;
  const Graph folded = fold_constants(g, FoldOptions{}, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(count_ops(folded, OpType::kExpand), 1u);
  for (const ConstantData& c : folded.constants) EXPECT_LE(c.size(), 4u);
}

TEST(ConstantFolding, SmallResultsFoldEvenWhenLargerThanTheirInputs) {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {8, 8}});
  MLOperand big = b.expand(b.constant(kFloat32, MLNumber(2.0)), {8, 8});  // 256 bytes
  const Graph g = b.pruned_graph({{"y", b.add(x, big)}});
  bool changed = false;
  Graph folded = fold_constants(g, FoldOptions{}, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(count_ops(folded, OpType::kExpand), 0u);
  // Not with a smaller threshold.
  folded = fold_constants(g, FoldOptions{.small_bytes = 64}, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(count_ops(folded, OpType::kExpand), 1u);
  // Nor above the output limit.
  folded = fold_constants(g, FoldOptions{.max_output_bytes = 128}, &changed);
  EXPECT_FALSE(changed);
}

TEST(ConstantFolding, OperationsReadingAnInputAreKept) {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {2}});
  MLOperand c = floats(b, {2}, {1, 2});
  const Graph g = b.pruned_graph({{"y", b.relu(b.add(x, c))}});
  bool changed = true;
  const Graph folded = fold_constants(g, FoldOptions{}, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(folded.operations.size(), 2u);
  EXPECT_EQ(folded.content_hash(), g.content_hash());
}

TEST(ConstantFolding, AReshapeSharesTheBytesAndKeepsAScalarFill) {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {4, 4}});
  std::vector<float> fill(16, 3.0f);
  MLOperand c = floats(b, {16}, fill);
  Graph g = b.pruned_graph({{"y", b.add(x, b.reshape(c, {4, 4}))}});
  for (OperandInfo& info : g.operands)
    if (info.kind == OperandKind::kConstant) {
      info.scalar_fill = MLNumber(3.0);
      info.weight_ref = "w";
    }
  bool changed = false;
  const Graph folded = fold_constants(g, FoldOptions{.max_output_bytes = 0}, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(folded.operations.size(), 1u);
  ASSERT_EQ(folded.constants.size(), 1u);
  EXPECT_EQ(folded.constants[0].data(), g.constants[0].data());  // no copy
  const OperandInfo& info = folded.operand(folded.operations[0].inputs[1]);
  EXPECT_EQ(info.descriptor.shape, (std::vector<uint32_t>{4, 4}));
  ASSERT_TRUE(info.scalar_fill.has_value());
  EXPECT_EQ(info.scalar_fill->as_double(), 3.0);
  EXPECT_TRUE(info.weight_ref.empty());  // the ref names a [16] tensor
}

TEST(ConstantFolding, FusedActivationsAreApplied) {
  MLGraphBuilder b = pass_builder();
  MLOperand x = b.input("x", {kFloat32, {2}});
  MLOperand c = floats(b, {2}, {-1, 2});
  Graph g = b.pruned_graph({{"y", b.add(x, b.mul(c, c))}});
  MLGraphBuilder other = pass_builder();
  const Graph neg = other.pruned_graph({{"n", other.neg(other.input("n", {kFloat32, {2}}))}});
  Graph fused = g;
  fused.operations[0].activations.push_back({OpType::kNeg, neg.operations[0].attrs});
  bool changed = false;
  const Graph folded = fold_constants(fused, FoldOptions{}, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(folded.constants.size(), 1u);
  const float* v = reinterpret_cast<const float*>(folded.constants[0].data());
  EXPECT_EQ(v[0], -1.0f);
  EXPECT_EQ(v[1], -4.0f);
}

TEST(ConstantFolding, EvaluateConstantGraphGivesTheOutputsBytes) {
  MLGraphBuilder b = pass_builder();
  MLOperand c = floats(b, {3}, {1, 4, 9});
  MLOperand s = b.sqrt(c);
  const Graph g = b.pruned_graph({{"a", s}, {"b", b.reshape(b.add(s, s), {3, 1})}});
  const std::vector<ConstantData> out = evaluate_constant_graph(g);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].size(), 12u);
  const float* a = reinterpret_cast<const float*>(out[0].data());
  const float* d = reinterpret_cast<const float*>(out[1].data());
  EXPECT_EQ(std::vector<float>(a, a + 3), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(std::vector<float>(d, d + 3), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(out[0].data()) % 64, 0u);

  MLGraphBuilder b2 = pass_builder();
  MLOperand x = b2.input("x", {kFloat32, {3}});
  EXPECT_THROW(evaluate_constant_graph(b2.pruned_graph({{"y", b2.relu(x)}})), OperationError);
}

}  // namespace
}  // namespace cppnn::passes
