// The cpu backend's quantized GEMM (src/backends/cpu/quantized_weights.h, quantized_gemm.cpp):
// gemm(a, reshape(dequantizeLinear(q, scale, 0) [+ offset]), bTranspose) with constant 4- and
// 8-bit weights read in place, against the reference backend on the same graph: every storage
// type, blocks of 16, 32 and 96, with and without the offset, one row (decode) and several
// (prefill), a bias with alpha and beta, a fused relu; the dequantization ops are gone from the
// plan (the rewrite is checked directly); and graphs the rewrite must leave alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cppnn/int4.h"
#include "cppnn/webnn.h"
#include "src/backends/cpu/quantized_weights.h"
#include "src/passes/rewriter.h"

namespace cppnn::testing {
namespace {

using T = MLOperandDataType;

struct Case {
  T q_type;
  uint32_t block;
  bool offset;
  uint32_t m;
  bool bias;
};

std::string name_of(const Case& c) {
  return std::string(data_type_name(c.q_type)) + "_b" + std::to_string(c.block) +
         (c.offset ? "_offset" : "") + "_m" + std::to_string(c.m) + (c.bias ? "_bias" : "");
}

// The graph of a quantized linear layer [m, k] x [n, k]' recorded on `builder`; with
// `magnitude`, the product of |a| and |w| (plus |bias|): the scale of each output's rounding.
MLOperand quantized_linear(MLGraphBuilder& b, const Case& c, uint32_t n, uint32_t k,
                           std::mt19937& rng, bool relu = false, bool magnitude = false) {
  const uint32_t blocks = k / c.block;
  std::uniform_int_distribution<int> q4(0, 15), q8(-128, 127);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  const size_t count = size_t{n} * k;
  MLOperand q;
  if (c.q_type == T::kInt4 || c.q_type == T::kUint4) {
    std::vector<uint8_t> u(count);
    for (uint8_t& v : u) v = static_cast<uint8_t>(q4(rng));
    std::vector<std::byte> packed;
    if (c.q_type == T::kUint4) {
      packed = pack_uint4(u);
    } else {
      std::vector<int8_t> s(count);
      for (size_t i = 0; i < count; ++i) s[i] = static_cast<int8_t>(u[i] - 8);
      packed = pack_int4(s);
    }
    q = b.constant({c.q_type, {n, blocks, c.block}}, packed);
  } else {
    std::vector<uint8_t> v(count);
    for (uint8_t& x : v) x = static_cast<uint8_t>(q8(rng));
    q = b.constant({c.q_type, {n, blocks, c.block}}, std::as_bytes(std::span(v)));
  }
  std::vector<float> scale(size_t{n} * blocks), offset(size_t{n} * blocks);
  for (float& s : scale) s = 0.01f + std::abs(uniform(rng)) * 0.05f;
  for (float& o : offset) o = uniform(rng);
  MLOperand w = b.dequantizeLinear(q, b.constant({T::kFloat32, {n, blocks, 1}}, scale),
                                   b.constant_fill({c.q_type, {n, blocks, 1}}, 0));
  if (c.offset) w = b.add(w, b.constant({T::kFloat32, {n, blocks, 1}}, offset));
  w = b.reshape(w, {n, k});
  std::vector<float> a(size_t{c.m} * k);
  for (float& x : a) x = uniform(rng);
  MLOperand x = b.input("a", {T::kFloat32, {c.m, k}});
  MLGemmOptions o{.bTranspose = true};
  if (c.bias) {
    std::vector<float> bias(n);
    for (float& v : bias) v = uniform(rng);
    o.c = b.constant({T::kFloat32, {n}}, bias);
    o.alpha = 0.5f;
    o.beta = 2.0f;
  }
  if (magnitude) {
    x = b.abs(x);
    w = b.abs(w);
    if (o.c) o.c = b.abs(*o.c);
    return b.gemm(x, w, o);
  }
  MLOperand y = b.gemm(x, w, o);
  return relu ? b.relu(y) : y;
}

std::vector<float> run(const std::string& backend, const Case& c, uint32_t n, uint32_t k, bool relu,
                       bool magnitude = false) {
  std::mt19937 rng(3);
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder b(context);
  MLOperand y = quantized_linear(b, c, n, k, rng, relu, magnitude);
  MLGraph g = b.build({{"y", y}});
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(size_t{c.m} * k);
  for (float& v : a) v = uniform(rng);
  MLTensor ta = context.createTensor({T::kFloat32, {c.m, k}, false, true});
  MLTensor ty = context.createTensor({T::kFloat32, {c.m, n}, true, false});
  context.writeTensor(ta, a);
  context.dispatch(g, {{"a", ta}}, {{"y", ty}});
  return context.readTensor<float>(ty);
}

class CpuQuantizedGemmTest : public ::testing::TestWithParam<Case> {};

TEST_P(CpuQuantizedGemmTest, MatchesTheReference) {
  const Case c = GetParam();
  // n not a multiple of the 16 columns of a task; the weight over constant folding's 64 KiB, so
  // that it stays quantized (smaller ones are folded to float32 at build).
  const uint32_t n = 37, k = 480;
  // Each output within 1e-5 of the sum of |products| (+ |bias|): float32 sums in another order.
  const std::vector<float> scale = run("reference", c, n, k, false, true);
  for (bool relu : {false, true}) {
    const std::vector<float> want = run("reference", c, n, k, relu);
    const std::vector<float> got = run("cpu", c, n, k, relu);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5 * scale[i] + 1e-6) << "element " << i;
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (T t : {T::kUint4, T::kInt4, T::kInt8, T::kUint8})
    for (uint32_t block : {16u, 32u})
      for (bool offset : {false, true})
        for (uint32_t m : {1u, 5u}) out.push_back({t, block, offset, m, m == 5});
  out.push_back({T::kUint4, 32, true, 1, true});
  out.push_back({T::kInt8, 24, false, 3, false});  // blocks that are no multiple of 16
  out.push_back({T::kUint4, 24, true, 1, false});
  // Blocks of several 32-element groups (the 4-bit decode kernel's inner loop).
  out.push_back({T::kInt4, 96, true, 1, false});
  out.push_back({T::kUint4, 96, false, 1, true});
  out.push_back({T::kUint8, 96, true, 1, false});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Forms, CpuQuantizedGemmTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return name_of(info.param); });

TEST(CpuQuantizedWeights, TheRewriteDropsTheDequantizationOps) {
  std::mt19937 rng(1);
  MLGraphBuilder b = passes::pass_builder();
  MLOperand y = quantized_linear(b, {T::kUint4, 32, true, 2, true}, 8, 64, rng);
  const Graph g = b.pruned_graph({{"y", y}});
  bool changed = false;
  const Graph rewritten = cpu::read_quantized_weights_in_gemm(g, &changed);
  ASSERT_TRUE(changed);
  ASSERT_EQ(rewritten.operations.size(), 1u);
  const Operation& gemm = rewritten.operations[0];
  EXPECT_TRUE(cpu::is_quantized_gemm(rewritten, gemm));
  EXPECT_EQ(rewritten.descriptor(gemm.inputs[1]).dataType, T::kUint4);
}

TEST(CpuQuantizedWeights, OtherGraphsAreLeftAlone) {
  // A non-zero zero point, and a dequantized weight also read by another op.
  MLGraphBuilder b = passes::pass_builder();
  std::vector<uint8_t> q(4 * 32, 3);
  MLOperand qc = b.constant({T::kUint8, {4, 1, 32}}, std::as_bytes(std::span(q)));
  MLOperand scale = b.constant({T::kFloat32, {4, 1, 1}}, std::vector<float>(4, 0.5f));
  MLOperand w1 =
      b.reshape(b.dequantizeLinear(qc, scale, b.constant_fill({T::kUint8, {4, 1, 1}}, 1)), {4, 32});
  MLOperand x = b.input("x", {T::kFloat32, {1, 32}});
  MLOperand y1 = b.gemm(x, w1, {.bTranspose = true});
  bool changed = true;
  cpu::read_quantized_weights_in_gemm(b.pruned_graph({{"y", y1}}), &changed);
  EXPECT_FALSE(changed);

  MLGraphBuilder b2 = passes::pass_builder();
  MLOperand qc2 = b2.constant({T::kUint8, {4, 1, 32}}, std::as_bytes(std::span(q)));
  MLOperand w2 = b2.reshape(
      b2.dequantizeLinear(qc2, b2.constant({T::kFloat32, {4, 1, 1}}, std::vector<float>(4, 0.5f)),
                          b2.constant_fill({T::kUint8, {4, 1, 1}}, 0)),
      {4, 32});
  MLOperand x2 = b2.input("x", {T::kFloat32, {1, 32}});
  // The gemm is rewritten; the other reader of the weight keeps the dequantization.
  const Graph g2 = b2.pruned_graph({{"y", b2.gemm(x2, w2, {.bTranspose = true})}, {"w", w2}});
  const Graph r2 = cpu::read_quantized_weights_in_gemm(g2, &changed);
  EXPECT_TRUE(changed);
  size_t dequantize_ops = 0;
  for (const Operation& op : r2.operations) dequantize_ops += op.type == OpType::kDequantizeLinear;
  EXPECT_EQ(dequantize_ops, 1u);
}

}  // namespace
}  // namespace cppnn::testing
