// The cpu backend's matrix products through the public API (src/backends/cpu/matrix.cpp, gemm.cpp,
// epilogue.cpp): the same graph on a "cpu" and a "reference" context with random inputs in
// [-1, 1], for matmul (2-D, batched, broadcast batches, constant operands, depth past one 256
// block, bias and activation) and gemm (transposes, alpha, beta, every broadcast of C), on 1 and 2
// threads. Each element is compared within 1e-5 of the sum of |products| of its naive
// double-precision value; the reference backend is also checked against that naive value
// (cpu_product_checks.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/cpu_backend.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/convolution_params.h"
#include "src/passes/pipeline.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using namespace product_checks;

class CpuMatmul : public ::testing::Test {
 protected:
  std::mt19937 rng_{4321};
};

// ---- matmul ----------------------------------------------------------------------------------

struct MatmulCase {
  Dims a, b;
  bool constant_a = false, constant_b = false;
  bool bias = false;  // + a constant [N] (the fusion pass makes a gemm of it)
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    return "matmul " + dims_text(a) + " x " + dims_text(b) + (constant_a ? " constant-a" : "") +
           (constant_b ? " constant-b" : "") + (bias ? " +bias" : "") + " act " + act_name(act) +
           " threads " + std::to_string(threads);
  }
};

void check_matmul(const MatmulCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.name());
  const size_t m = k.a[k.a.size() - 2], kk = k.a.back(), n = k.b.back();
  ASSERT_EQ(k.b[k.b.size() - 2], kk);
  const std::vector<float> a = random_values(element_count(k.a), rng);
  const std::vector<float> b = random_values(element_count(k.b), rng);
  const std::vector<float> bias = random_values(n, rng);
  // The broadcast batch: right-aligned, 1 where a side has no such dimension.
  const Dims ab(k.a.begin(), k.a.end() - 2), bb(k.b.begin(), k.b.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  auto padded = [&](const Dims& d) {
    Dims p(rank - d.size(), 1);
    p.insert(p.end(), d.begin(), d.end());
    return p;
  };
  const Dims pa = padded(ab), pb = padded(bb);
  Dims batch(rank);
  for (size_t i = 0; i < rank; ++i) batch[i] = std::max(pa[i], pb[i]);
  const size_t batches = element_count(batch);
  Expected e;
  e.value.assign(batches * m * n, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t t = 0; t < batches; ++t) {
    size_t rest = t, ao = 0, bo = 0, astride = 1, bstride = 1;
    for (size_t i = rank; i-- > 0;) {
      const size_t idx = rest % batch[i];
      rest /= batch[i];
      ao += (pa[i] == 1 ? 0 : idx) * astride;
      bo += (pb[i] == 1 ? 0 : idx) * bstride;
      astride *= pa[i];
      bstride *= pb[i];
    }
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        double sum = k.bias ? bias[j] : 0.0, mag = k.bias ? std::fabs(bias[j]) : 0.0;
        for (size_t l = 0; l < kk; ++l) {
          const double p = double(a[(ao * m + i) * kk + l]) * double(b[(bo * kk + l) * n + j]);
          sum += p;
          mag += std::fabs(p);
        }
        e.value[(t * m + i) * n + j] = apply_act(k.act, sum);
        e.scale[(t * m + i) * n + j] = mag;
      }
  }
  Inputs inputs;
  if (!k.constant_a) inputs.emplace("a", to_bytes(a));
  if (!k.constant_b) inputs.emplace("b", to_bytes(b));
  compare_backends(
      [&](MLGraphBuilder& g) {
        MLOperand oa =
            k.constant_a ? g.constant({kF32, k.a}, to_bytes(a)) : g.input("a", {kF32, k.a});
        MLOperand ob =
            k.constant_b ? g.constant({kF32, k.b}, to_bytes(b)) : g.input("b", {kF32, k.b});
        MLOperand y = g.matmul(oa, ob);
        if (k.bias) y = g.add(y, g.constant({kF32, {uint32_t(n)}}, to_bytes(bias)));
        return apply_act(g, k.act, y);
      },
      inputs, e, k.threads);
}

TEST_F(CpuMatmul, Matmul2d) {
  const std::pair<Dims, Dims> shapes[] = {
      {{1, 1}, {1, 1}},    {{5, 7}, {7, 9}},       {{1, 600}, {600, 33}}, {{13, 257}, {257, 300}},
      {{25, 3}, {3, 600}}, {{12, 256}, {256, 32}}, {{40, 1}, {1, 31}},    {{7, 520}, {520, 1}},
  };
  uint32_t round = 0;
  for (const auto& [a, b] : shapes)
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = a;
      k.b = b;
      k.act = round % 3 == 2 ? Act::kRelu : Act::kNone;
      k.threads = threads;
      ++round;
      check_matmul(k, rng_);
    }
}

TEST_F(CpuMatmul, MatmulBatchedAndBroadcast) {
  const std::pair<Dims, Dims> shapes[] = {
      {{3, 13, 20}, {3, 20, 40}},
      {{2, 1, 13, 300}, {3, 300, 31}},
      {{4, 5, 6}, {6, 7}},
      {{5, 6}, {2, 6, 7}},
      {{2, 1, 5, 9}, {1, 4, 9, 33}},
      {{1, 12, 270}, {2, 270, 257}},
      {{2, 3, 1, 7}, {2, 3, 7, 1}},
      // 3 key/value heads on 2 threads: each head's rows in two groups of whole panels.
      {{1, 3, 50, 64}, {1, 3, 64, 70}},
  };
  uint32_t round = 0;
  for (const auto& [a, b] : shapes)
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = a;
      k.b = b;
      k.act = round % 4 == 1 ? Act::kClamp : Act::kNone;
      k.threads = threads;
      ++round;
      check_matmul(k, rng_);
    }
}

// A constant left operand is packed once at build (when it is one matrix), a constant right one
// read in place; both with broadcast batches.
TEST_F(CpuMatmul, MatmulConstantOperands) {
  const std::pair<Dims, Dims> shapes[] = {
      {{13, 300}, {300, 40}},     {{13, 300}, {2, 300, 40}},       {{1, 13, 30}, {3, 30, 40}},
      {{2, 13, 30}, {2, 30, 40}}, {{2, 1, 13, 260}, {3, 260, 33}},
  };
  for (const auto& [a, b] : shapes)
    for (int which = 0; which < 3; ++which)
      for (uint32_t threads : {1u, 2u}) {
        MatmulCase k;
        k.a = a;
        k.b = b;
        k.constant_a = which != 1;
        k.constant_b = which != 0;
        k.threads = threads;
        check_matmul(k, rng_);
      }
}

// matmul + a constant bias [N] (+ an activation): the fusion pass makes it a gemm with c.
TEST_F(CpuMatmul, MatmulWithBiasAndActivation) {
  for (Act act : {Act::kNone, Act::kRelu, Act::kHardSwish, Act::kSigmoid, Act::kSilu})
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = {13, 270};
      k.b = {270, 37};
      k.bias = true;
      k.constant_b = true;
      k.act = act;
      k.threads = threads;
      check_matmul(k, rng_);
    }
}

// ---- gemm ------------------------------------------------------------------------------------

struct GemmCase {
  uint32_t m = 13, k = 300, n = 37;
  bool a_t = false, b_t = false;
  double alpha = 1.0, beta = 1.0;
  std::optional<Dims> c;
  bool constant_a = false, constant_b = true, constant_c = true;
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    return "gemm M=" + std::to_string(m) + " K=" + std::to_string(k) + " N=" + std::to_string(n) +
           (a_t ? " aTranspose" : "") + (b_t ? " bTranspose" : "") +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
           " c=" + (c ? dims_text(*c) : std::string("none")) + (constant_a ? " constant-a" : "") +
           (constant_b ? " constant-b" : "") + (constant_c ? "" : " runtime-c") + " act " +
           act_name(act) + " threads " + std::to_string(threads);
  }
};

void check_gemm(const GemmCase& g, std::mt19937& rng) {
  SCOPED_TRACE(g.name());
  const Dims as = g.a_t ? Dims{g.k, g.m} : Dims{g.m, g.k};
  const Dims bs = g.b_t ? Dims{g.n, g.k} : Dims{g.k, g.n};
  const std::vector<float> a = random_values(element_count(as), rng);
  const std::vector<float> b = random_values(element_count(bs), rng);
  const std::vector<float> c = g.c ? random_values(element_count(*g.c), rng) : std::vector<float>{};
  auto c_at = [&](size_t i, size_t j) -> double {
    const Dims& d = *g.c;
    if (d.empty()) return c[0];
    if (d.size() == 1) return c[d[0] == 1 ? 0 : j];
    return c[(d[0] == 1 ? 0 : i) * d[1] + (d[1] == 1 ? 0 : j)];
  };
  Expected e;
  e.value.assign(size_t(g.m) * g.n, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t i = 0; i < g.m; ++i)
    for (size_t j = 0; j < g.n; ++j) {
      double sum = 0, mag = 0;
      for (size_t l = 0; l < g.k; ++l) {
        const double p = double(g.a_t ? a[l * g.m + i] : a[i * g.k + l]) *
                         double(g.b_t ? b[j * g.k + l] : b[l * g.n + j]);
        sum += p;
        mag += std::fabs(p);
      }
      sum *= g.alpha;
      mag *= std::fabs(g.alpha);
      if (g.c) {
        sum += g.beta * c_at(i, j);
        mag += std::fabs(g.beta * c_at(i, j));
      }
      e.value[i * g.n + j] = apply_act(g.act, sum);
      e.scale[i * g.n + j] = mag;
    }
  Inputs inputs{};
  if (!g.constant_a) inputs.emplace("a", to_bytes(a));
  if (!g.constant_b) inputs.emplace("b", to_bytes(b));
  if (g.c && !g.constant_c) inputs.emplace("c", to_bytes(c));
  compare_backends(
      [&](MLGraphBuilder& gb) {
        MLOperand oa =
            g.constant_a ? gb.constant({kF32, as}, to_bytes(a)) : gb.input("a", {kF32, as});
        MLOperand ob =
            g.constant_b ? gb.constant({kF32, bs}, to_bytes(b)) : gb.input("b", {kF32, bs});
        MLGemmOptions o;
        o.alpha = g.alpha;
        o.beta = g.beta;
        o.aTranspose = g.a_t;
        o.bTranspose = g.b_t;
        if (g.c)
          o.c = g.constant_c ? gb.constant({kF32, *g.c}, to_bytes(c)) : gb.input("c", {kF32, *g.c});
        return apply_act(gb, g.act, gb.gemm(oa, ob, o));
      },
      inputs, e, g.threads);
}

TEST_F(CpuMatmul, GemmTransposesAlphaBetaAndC) {
  const std::optional<Dims> cs[] = {std::nullopt, Dims{37},    Dims{13, 1}, Dims{13, 37},
                                    Dims{1},      Dims{1, 37}, Dims{}};
  uint32_t round = 0;
  for (bool a_t : {false, true})
    for (bool b_t : {false, true})
      for (const auto& c : cs) {
        GemmCase g;
        g.a_t = a_t;
        g.b_t = b_t;
        g.alpha = 0.5;
        g.beta = 2.0;
        g.c = c;
        g.constant_a = round % 2 == 1;
        g.constant_b = round % 3 != 2;
        g.constant_c = round % 4 != 3;
        g.threads = 1 + round % 2;
        ++round;
        check_gemm(g, rng_);
      }
}

TEST_F(CpuMatmul, GemmShapesAndActivations) {
  struct Shape {
    uint32_t m, k, n;
  };
  uint32_t round = 0;
  for (const Shape& s : {Shape{1, 1, 1}, Shape{5, 3, 7}, Shape{12, 256, 32}, Shape{25, 257, 33},
                         Shape{13, 600, 257}, Shape{1, 300, 600}})
    for (Act act : {Act::kNone, Act::kRelu, Act::kClamp, Act::kSigmoid, Act::kSilu}) {
      GemmCase g;
      g.m = s.m;
      g.k = s.k;
      g.n = s.n;
      g.a_t = round % 2 == 0;
      g.b_t = round % 3 == 0;
      g.alpha = round % 2 ? 0.5 : 1.0;
      g.beta = round % 2 ? 2.0 : 1.0;
      g.c = round % 3 == 1 ? std::optional<Dims>(Dims{s.n}) : std::optional<Dims>(Dims{s.m, 1});
      g.constant_a = round % 4 == 0;
      g.act = act;
      g.threads = 1 + round % 2;
      ++round;
      check_gemm(g, rng_);
    }
}

}  // namespace
}  // namespace cppnn
