// The cpu backend's float16 weights (src/backends/cpu/half_weights.h): gemm and matmul by
// cast(float16 constant, float32) read the float16 constant itself (in place for one-row products
// with a transposed weight, packed to float32 once otherwise), against the reference backend
// running the cast and the product op by op, on every path: one and several rows, bTranspose or
// not, 1 and 2 threads, a matmul weight with leading ones, and a cast also read by another op.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/half_weights.h"
#include "src/passes/rewriter.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::to_bytes;
using Dims = std::vector<uint32_t>;
using Record = std::function<MLNamedOperands(MLGraphBuilder&)>;
constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kF16 = MLOperandDataType::kFloat16;

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Runs `record` on cpu (threads) and on the reference backend with input "a" = `a`; every
// output must agree within 1e-5 of its magnitude (the products' order differs).
void expect_same_as_reference(const Record& record, const std::vector<float>& a, uint32_t threads,
                              const std::string& what) {
  SCOPED_TRACE(what + " threads " + std::to_string(threads));
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
  MLContext ref = testing::ref_context();
  MLGraphBuilder bc(cpu), br(ref);
  MLGraph gc = bc.build(record(bc)), gr = br.build(record(br));
  const std::map<std::string, std::vector<std::byte>> inputs = {{"a", to_bytes(a)}};
  const auto got = testing::run_graph(cpu, gc, inputs);
  const auto want = testing::run_graph(ref, gr, inputs);
  for (const auto& [name, bytes] : want) {
    const std::vector<float> w = as<float>(bytes), g = as<float>(got.at(name));
    ASSERT_EQ(g.size(), w.size()) << name;
    for (size_t i = 0; i < w.size(); ++i)
      ASSERT_NEAR(g[i], w[i], 1e-5 * (1.0 + std::fabs(w[i]))) << name << " element " << i;
  }
}

class CpuHalfWeights : public ::testing::Test {
 protected:
  // A float16 constant of `shape` with random values.
  MLOperand half_constant(MLGraphBuilder& b, const Dims& shape, const std::vector<uint16_t>& bits) {
    return b.constant({kF16, shape}, to_bytes(bits));
  }
  std::vector<uint16_t> half_values(size_t n) { return testing::half_bits(random_values(n, rng_)); }
  std::mt19937 rng_{7};
};

TEST_F(CpuHalfWeights, GemmOverRowsTranspositionsAndThreads) {
  for (uint32_t m : {1u, 3u, 17u})
    for (bool bt : {true, false})
      for (uint32_t threads : {1u, 2u}) {
        const uint32_t k = 70, n = 300;
        const Dims w_shape = bt ? Dims{n, k} : Dims{k, n};
        const std::vector<uint16_t> w = half_values(size_t(k) * n);
        const std::vector<float> bias = random_values(n, rng_);
        const std::vector<float> a = random_values(size_t(m) * k, rng_);
        expect_same_as_reference(
            [&](MLGraphBuilder& b) {
              MLOperand x = b.input("a", {kF32, {m, k}});
              MLOperand wf = b.cast(half_constant(b, w_shape, w), kF32);
              MLGemmOptions o{.bTranspose = bt};
              o.c = b.constant({kF32, {n}}, to_bytes(bias));
              return MLNamedOperands{{"y", b.gemm(x, wf, o)}};
            },
            a, threads, "gemm m " + std::to_string(m) + (bt ? " bT" : ""));
      }
}

TEST_F(CpuHalfWeights, MatmulWithAMatrixOrLeadingOnes) {
  for (uint32_t m : {1u, 13u})
    for (const Dims& w_shape : {Dims{40, 33}, Dims{1, 40, 33}})
      for (uint32_t threads : {1u, 2u}) {
        const std::vector<uint16_t> w = half_values(40 * 33);
        const std::vector<float> a = random_values(2 * size_t(m) * 40, rng_);
        expect_same_as_reference(
            [&](MLGraphBuilder& b) {
              MLOperand x = b.input("a", {kF32, {2, m, 40}});
              MLOperand wf = b.cast(half_constant(b, w_shape, w), kF32);
              return MLNamedOperands{{"y", b.matmul(x, wf)}};
            },
            a, threads, "matmul m " + std::to_string(m));
      }
}

// The widened weight is also a graph output and read by an add: the cast stays for them.
TEST_F(CpuHalfWeights, ACastReadElsewhereStays) {
  const std::vector<uint16_t> w = half_values(8 * 5);
  const std::vector<float> a = random_values(8, rng_);
  expect_same_as_reference(
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("a", {kF32, {1, 8}});
        MLOperand wf = b.cast(half_constant(b, {5, 8}, w), kF32);
        MLOperand y = b.gemm(x, wf, {.bTranspose = true});
        return MLNamedOperands{{"y", y}, {"w", wf}, {"z", b.add(wf, wf)}};
      },
      a, 1, "shared cast");
}

// The rewrite itself: the product reads the float16 constant, the cast is gone.
TEST_F(CpuHalfWeights, TheRewriteDropsTheCast) {
  MLGraphBuilder b = passes::pass_builder();
  MLOperand x = b.input("a", {kF32, {1, 8}});
  MLOperand wf = b.cast(half_constant(b, {5, 8}, half_values(40)), kF32);
  const Graph graph = b.pruned_graph({{"y", b.gemm(x, wf, {.bTranspose = true})}});
  bool changed = false;
  const Graph rewritten = cpu::read_half_weights_in_products(graph, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(rewritten.operations.size(), 1u);
  EXPECT_EQ(rewritten.operations[0].type, OpType::kGemm);
  EXPECT_TRUE(cpu::has_half_weight(rewritten, rewritten.operations[0]));
}

}  // namespace
}  // namespace cppnn
