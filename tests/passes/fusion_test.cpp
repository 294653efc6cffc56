// The fusion pass (src/passes/fusion.h): conv2d / convTranspose2d / matmul / gemm followed by the
// add of a constant bias and activations becomes one operation carrying the bias and
// Operation::activations, only where every intermediate has no other use; the fused graph gives
// the reference backend's values.
#include "src/passes/fusion.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/backends/selection.h"
#include "src/passes/pipeline.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::run_graph;
using testing::to_bytes;

// Every op native, fusion on (SiLU included).
BackendDescriptor fusing_descriptor() {
  BackendDescriptor d = BackendDescriptor::with_all_ops("fuse-test");
  d.passes.fuse = true;
  d.passes.fuse_silu = true;
  return d;
}

// The fusing test backend on the reference kernels (which run Operation::activations after the
// op); it keeps the graph it compiled last.
class FusingBackend final : public Backend {
 public:
  explicit FusingBackend(std::shared_ptr<const Graph>* last) : last_(last) {}
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = fusing_descriptor();
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    *last_ = graph;
    return make_reference_plan(std::move(graph));
  }

 private:
  std::shared_ptr<const Graph>* last_;
};

using Make = std::function<MLNamedOperands(MLGraphBuilder&)>;

// Deterministic values k/8 for k in [-8, 8): products and their sums are exact in float32, so a
// bias added inside the op's accumulation rounds like one added after it.
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 7;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>(s >> 28) - 8) / 8.0f;
  }
  return v;
}

uint64_t count_of(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

MLOperand weights(MLGraphBuilder& b, std::vector<uint32_t> shape, uint32_t seed) {
  const std::vector<float> v = values(count_of(shape), seed);
  return b.constant({kFloat32, std::move(shape)}, to_bytes(v));
}

// The activation types fused into `op`, in order.
std::vector<OpType> activations(const Operation& op) {
  std::vector<OpType> t;
  for (const FusedActivation& a : op.activations) t.push_back(a.type);
  return t;
}

class Fusion : public ::testing::Test {
 protected:
  Fusion()
      : registered_("fuse-test", [this](const MLContextOptions&) {
          return std::make_unique<FusingBackend>(&last_compiled_);
        }) {}

  static Graph source(const Make& make) {
    MLGraphBuilder b(testing::ref_context());
    return b.pruned_graph(make(b));
  }
  // The fusion pass's result on `make`'s graph for `d`; `changed` as the pass says.
  static Graph fused(const Make& make, bool* changed,
                     const BackendDescriptor& d = fusing_descriptor()) {
    return passes::fuse(source(make), d, changed);
  }

  static std::map<std::string, std::vector<std::byte>> run_on(const std::string& backend,
                                                              const Make& make) {
    MLContext context = MLContext::create({.backend = backend});
    MLGraphBuilder b(context);
    MLGraph graph = b.build(make(b));
    std::map<std::string, std::vector<std::byte>> inputs;
    uint32_t seed = 50;
    for (const auto& [name, desc] : graph.inputs())
      inputs[name] = to_bytes(values(count_of(desc.shape), ++seed));
    return run_graph(context, graph, inputs);
  }

  // `backend` gives the reference backend's outputs bit for bit.
  static void expect_same_values(const Make& make, const std::string& backend = "fuse-test") {
    const auto expected = run_on("reference", make);
    const auto got = run_on(backend, make);
    for (const auto& [name, bytes] : expected) {
      const auto it = got.find(name);
      ASSERT_NE(it, got.end()) << name;
      EXPECT_EQ(it->second, bytes) << "output " << name << " differs on " << backend;
    }
  }

  std::shared_ptr<const Graph> last_compiled_;
  ScopedTestBackend registered_;
};

// conv2d -> add(constant [C, 1, 1]) -> relu.
MLNamedOperands conv_bias_relu(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 5, 5}});
  MLOperand c = b.conv2d(x, weights(b, {3, 2, 3, 3}, 1), {.padding = {1, 1, 1, 1}});
  return {{"y", b.relu(b.add(c, weights(b, {3, 1, 1}, 2)))}};
}

TEST_F(Fusion, ConvBiasAndReluBecomeOneConv) {
  bool changed = false;
  const Graph g = fused(conv_bias_relu, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(g.operations.size(), 1u);
  const Operation& conv = g.operations[0];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  ASSERT_EQ(conv.inputs.size(), 3u);
  ASSERT_TRUE(conv.inputs[2].valid());
  EXPECT_EQ(g.descriptor(conv.inputs[2]).shape, (std::vector<uint32_t>{3}));
  EXPECT_EQ(activations(conv), (std::vector<OpType>{OpType::kRelu}));
  EXPECT_EQ(g.outputs.at(0).first, "y");
  expect_same_values(conv_bias_relu);
  EXPECT_EQ(last_compiled_->operations.size(), 1u);
}

// NHWC conv2d -> add(scalar-like constant [1]) -> clamp -> sigmoid: the bias is copied to every
// channel and both activations are fused in order.
MLNamedOperands nhwc_conv_chain(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 4, 4, 2}});
  MLOperand c = b.conv2d(x, weights(b, {2, 2, 2, 3}, 3),
                         {.inputLayout = MLInputOperandLayout::kNhwc,
                          .filterLayout = MLConv2dFilterOperandLayout::kHwio});
  MLOperand a = b.clamp(b.add(weights(b, {1}, 4), c), {.minValue = -0.25, .maxValue = 0.5});
  return {{"y", b.sigmoid(a)}};
}

TEST_F(Fusion, ActivationsChainInOrder) {
  bool changed = false;
  const Graph g = fused(nhwc_conv_chain, &changed);
  ASSERT_EQ(g.operations.size(), 1u);
  EXPECT_EQ(g.descriptor(g.operations[0].inputs[2]).shape, (std::vector<uint32_t>{3}));
  EXPECT_EQ(activations(g.operations[0]), (std::vector<OpType>{OpType::kClamp, OpType::kSigmoid}));
  expect_same_values(nhwc_conv_chain);
}

// convTranspose2d -> add(constant [1, C, 1, 1]) -> leakyRelu.
MLNamedOperands conv_transpose_bias(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 3, 3}});
  MLOperand c = b.convTranspose2d(x, weights(b, {2, 3, 3, 3}, 5), {.strides = {2, 2}});
  return {{"y", b.leakyRelu(b.add(c, weights(b, {1, 3, 1, 1}, 6)), {.alpha = 0.5})}};
}

TEST_F(Fusion, ConvTransposeTakesTheBias) {
  bool changed = false;
  const Graph g = fused(conv_transpose_bias, &changed);
  ASSERT_EQ(g.operations.size(), 1u);
  EXPECT_EQ(g.operations[0].type, OpType::kConvTranspose2d);
  EXPECT_TRUE(g.operations[0].inputs[2].valid());
  EXPECT_EQ(activations(g.operations[0]), (std::vector<OpType>{OpType::kLeakyRelu}));
  expect_same_values(conv_transpose_bias);
}

// matmul [3, 4] x [4, 5] -> add(constant [5]) -> tanh.
MLNamedOperands matmul_bias(MLGraphBuilder& b) {
  MLOperand a = b.input("a", {kFloat32, {3, 4}});
  MLOperand m = b.matmul(a, weights(b, {4, 5}, 7));
  return {{"y", b.tanh(b.add(m, weights(b, {5}, 8)))}};
}

TEST_F(Fusion, MatmulWithBiasBecomesGemm) {
  bool changed = false;
  const Graph g = fused(matmul_bias, &changed);
  ASSERT_EQ(g.operations.size(), 1u);
  const Operation& gemm = g.operations[0];
  EXPECT_EQ(gemm.type, OpType::kGemm);
  EXPECT_TRUE(gemm.inputs[2].valid());
  EXPECT_EQ(activations(gemm), (std::vector<OpType>{OpType::kTanh}));
  expect_same_values(matmul_bias);
}

TEST_F(Fusion, MatmulKeepsTheAddWithoutNativeGemm) {
  BackendDescriptor d = fusing_descriptor();
  d.native[static_cast<size_t>(OpType::kGemm)].reset();
  bool changed = true;
  const Graph g = fused(matmul_bias, &changed, d);
  EXPECT_FALSE(changed);  // the tanh follows the add, not the matmul
  EXPECT_EQ(g.operations.size(), 3u);
}

// A transformer's projection: matmul([2, 3, 6] activations, [6, 4] weights) -> add(bias
// [1, 1, 4]) -> gelu becomes reshape -> gemm(c = the bias as [4]) + gelu -> reshape; a bias per
// row instead ([3, 1]) or a batched right operand leaves the ops as they are.
MLNamedOperands batched_projection(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 6}});
  MLOperand y = b.gelu(b.add(b.matmul(x, weights(b, {6, 4}, 25)), weights(b, {1, 1, 4}, 26)));
  MLOperand z = b.add(b.matmul(x, weights(b, {6, 4}, 27)), weights(b, {3, 1}, 28));
  MLOperand w = b.add(b.matmul(x, weights(b, {2, 6, 4}, 29)), weights(b, {4}, 30));
  return {{"y", y}, {"z", z}, {"w", w}};
}

TEST_F(Fusion, BatchedMatmulWithAColumnBiasBecomesAGemmOfRows) {
  bool changed = false;
  const Graph g = fused(batched_projection, &changed);
  EXPECT_TRUE(changed);
  std::vector<OpType> types;
  for (const Operation& op : g.operations) types.push_back(op.type);
  using enum OpType;
  EXPECT_EQ(types, (std::vector<OpType>{kReshape, kGemm, kReshape, kMatmul, kAdd, kMatmul, kAdd}));
  const Operation& gemm = g.operations[1];
  EXPECT_EQ(g.descriptor(gemm.inputs[0]).shape, (std::vector<uint32_t>{6, 6}));
  EXPECT_EQ(g.descriptor(gemm.inputs[2]).shape, (std::vector<uint32_t>{4}));
  EXPECT_EQ(activations(gemm), (std::vector<OpType>{kGelu}));
  EXPECT_EQ(g.descriptor(g.operations[2].outputs[0]).shape, (std::vector<uint32_t>{2, 3, 4}));
  expect_same_values(batched_projection);
}

// gemm with beta 2 and no c -> add(constant [1, 5]) -> hardSwish: c is the constant, beta 1.
MLNamedOperands gemm_bias(MLGraphBuilder& b) {
  MLOperand a = b.input("a", {kFloat32, {4, 3}});
  MLOperand m =
      b.gemm(a, weights(b, {5, 4}, 9), {.beta = 2, .aTranspose = true, .bTranspose = true});
  return {{"y", b.hardSwish(b.add(weights(b, {1, 5}, 10), m))}};
}

TEST_F(Fusion, GemmTakesTheBiasAsCWithBetaOne) {
  bool changed = false;
  const Graph g = fused(gemm_bias, &changed);
  ASSERT_EQ(g.operations.size(), 1u);
  const Operation& gemm = g.operations[0];
  EXPECT_TRUE(gemm.inputs[2].valid());
  EXPECT_EQ(attrs_of<OpType::kGemm>(gemm.attrs).options.beta, 1.0);
  EXPECT_TRUE(attrs_of<OpType::kGemm>(gemm.attrs).options.aTranspose);
  EXPECT_EQ(activations(gemm), (std::vector<OpType>{OpType::kHardSwish}));
  expect_same_values(gemm_bias);
}

// The conv result is also read by a second op: nothing may be fused into the conv.
MLNamedOperands second_use(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
  MLOperand c = b.conv2d(x, weights(b, {2, 2, 3, 3}, 11));
  MLOperand y = b.relu(b.add(c, weights(b, {2, 1, 1}, 12)));
  return {{"y", y}, {"z", b.exp(c)}};
}

TEST_F(Fusion, AnIntermediateWithASecondUseIsNotFused) {
  bool changed = true;
  const Graph g = fused(second_use, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(g.operations.size(), 4u);
  expect_same_values(second_use);
}

// The biased result is a graph output: the bias fuses, the relu after it does not.
MLNamedOperands output_intermediate(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
  MLOperand biased = b.add(b.conv2d(x, weights(b, {2, 2, 3, 3}, 13)), weights(b, {2, 1, 1}, 14));
  return {{"biased", biased}, {"y", b.relu(biased)}};
}

TEST_F(Fusion, AGraphOutputEndsTheChain) {
  bool changed = false;
  const Graph g = fused(output_intermediate, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(g.operations.size(), 2u);
  EXPECT_TRUE(g.operations[0].inputs[2].valid());
  EXPECT_TRUE(g.operations[0].activations.empty());
  EXPECT_EQ(g.operations[1].type, OpType::kRelu);
  expect_same_values(output_intermediate);
}

// A conv that has a bias already, and an add of a non-constant: neither add fuses.
MLNamedOperands no_bias_fusion(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
  MLOperand bias = b.input("bias", {kFloat32, {2, 1, 1}});
  MLOperand c1 = b.conv2d(x, weights(b, {2, 2, 1, 1}, 15), {.bias = weights(b, {2}, 16)});
  MLOperand c2 = b.conv2d(x, weights(b, {2, 2, 1, 1}, 17));
  return {{"y", b.add(c1, weights(b, {2, 1, 1}, 18))}, {"z", b.add(c2, bias)}};
}

TEST_F(Fusion, OnlyAConstantBiasIntoAnOpWithoutOne) {
  bool changed = true;
  fused(no_bias_fusion, &changed);
  EXPECT_FALSE(changed);
}

// conv2d -> add(bias) -> mul(sigmoid(c), c): SiLU as a sigmoid times its input on the conv; a
// matmul result read three times fuses nothing. The reference plan's fused form gives the same
// bits as the ops it replaces.
MLNamedOperands conv_silu(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 5, 5}});
  MLOperand c = b.add(b.conv2d(x, weights(b, {3, 2, 3, 3}, 21), {.padding = {1, 1, 1, 1}}),
                      weights(b, {3, 1, 1}, 22));
  MLOperand silu = b.mul(b.sigmoid(c), c);
  MLOperand m = b.matmul(b.reshape(silu, {3, 25}), weights(b, {25, 4}, 23));
  return {{"y", b.relu(m)}, {"z", b.mul(m, b.sigmoid(m))}};
}

TEST_F(Fusion, SiluIsASigmoidTimesItsInput) {
  bool changed = false;
  const Graph g = fused(conv_silu, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(g.operations.size(), 6u);  // conv, reshape, matmul, relu, sigmoid(m), mul
  const Operation& conv = g.operations[0];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  ASSERT_EQ(conv.activations.size(), 1u);
  EXPECT_EQ(conv.activations[0].type, OpType::kSigmoid);
  EXPECT_TRUE(conv.activations[0].times_input);
  // m has three uses (relu, sigmoid, mul): nothing fuses into the matmul.
  EXPECT_TRUE(g.operations[2].activations.empty());
  expect_same_values(conv_silu);
}

TEST_F(Fusion, SiluOnlyWhenAskedOnFloat32AndUsedAsSuch) {
  const auto silu_after_conv = [](MLOperandDataType type, int variant) {
    return [type, variant](MLGraphBuilder& b) -> MLNamedOperands {
      MLOperand x = b.input("x", {type, {1, 2, 4, 4}});
      MLOperand w = weights(b, {2, 2, 3, 3}, 24);
      if (type != kFloat32) w = b.cast(w, type);
      MLOperand c = b.conv2d(x, w);
      MLOperand s = b.sigmoid(c);
      if (variant == 1) return {{"y", b.mul(c, s)}, {"s", s}};  // the sigmoid read twice
      if (variant == 2) return {{"y", b.mul(c, s)}, {"c", c}};  // c a graph output too
      if (variant == 3) return {{"y", b.mul(s, s)}};            // not x·sigmoid(x)
      return {{"y", b.mul(c, s)}};
    };
  };
  bool changed = false;
  EXPECT_EQ(fused(silu_after_conv(kFloat32, 0), &changed).operations.size(), 1u);
  EXPECT_TRUE(changed);
  BackendDescriptor no_silu = fusing_descriptor();
  no_silu.passes.fuse_silu = false;
  EXPECT_EQ(fused(silu_after_conv(kFloat32, 0), &changed, no_silu).operations.size(), 3u);
  EXPECT_EQ(fused(silu_after_conv(kFloat16, 0), &changed).operations.size(), 4u);  // cast too
  for (int variant : {1, 2}) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(fused(silu_after_conv(kFloat32, variant), &changed).operations.size(), 3u);
    expect_same_values(silu_after_conv(kFloat32, variant));
  }
  // mul(s, s): the sigmoid (c's only use) fuses as a plain activation, the mul stays.
  const Graph g = fused(silu_after_conv(kFloat32, 3), &changed);
  ASSERT_EQ(g.operations.size(), 2u);
  ASSERT_EQ(g.operations[0].activations.size(), 1u);
  EXPECT_FALSE(g.operations[0].activations[0].times_input);
}

// conv2d -> relu on a backend without a native relu: the relu stays an op.
TEST_F(Fusion, OnlyNativeActivationsFuse) {
  BackendDescriptor d = fusing_descriptor();
  d.native[static_cast<size_t>(OpType::kRelu)].reset();
  const Make conv_relu = [](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
    return {{"y", b.relu(b.conv2d(x, weights(b, {2, 2, 3, 3}, 19)))}};
  };
  bool changed = true;
  EXPECT_EQ(fused(conv_relu, &changed, d).operations.size(), 2u);
  EXPECT_FALSE(changed);
  EXPECT_EQ(fused(conv_relu, &changed).operations.size(), 1u);
  EXPECT_TRUE(changed);
}

// After the layout pass (NHWC backends run both): the bias, re-shaped for NHWC, still fuses.
TEST_F(Fusion, FusesAfterTheLayoutPass) {
  BackendDescriptor d = fusing_descriptor();
  d.preferred_layout = MLInputOperandLayout::kNhwc;
  d.passes.convert_layout = true;
  const auto g = passes::prepare_graph(d, std::make_shared<const Graph>(source(conv_bias_relu)));
  ASSERT_EQ(g->operations.size(), 3u);  // transpose, conv2d (bias, relu), transpose
  const Operation& conv = g->operations[1];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  EXPECT_TRUE(conv.inputs[2].valid());
  EXPECT_EQ(activations(conv), (std::vector<OpType>{OpType::kRelu}));
}

// conv2d -> add(bias) -> tanh on the minimal backend, which runs conv2d and tanh natively.
MLNamedOperands conv_tanh(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 5, 5}});
  MLOperand c = b.conv2d(x, weights(b, {3, 2, 3, 3}, 20));
  return {{"y", b.tanh(b.add(c, weights(b, {3, 1, 1}, 21)))}};
}

TEST_F(Fusion, MinimalBackendFusesItsNativeActivations) {
  const std::unique_ptr<Backend> minimal = select_backend({.backend = "minimal"});
  ASSERT_TRUE(minimal->descriptor().passes.fuse);
  const auto g = passes::prepare_graph(minimal->descriptor(),
                                       std::make_shared<const Graph>(source(conv_tanh)));
  ASSERT_EQ(g->operations.size(), 1u);
  EXPECT_TRUE(g->operations[0].inputs[2].valid());
  EXPECT_EQ(activations(g->operations[0]), (std::vector<OpType>{OpType::kTanh}));
  expect_same_values(conv_tanh, "minimal");
}

}  // namespace
}  // namespace cppnn
