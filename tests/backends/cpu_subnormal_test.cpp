// Subnormal values on the cpu backend (src/backends/cpu/vector_math.h, epilogue.cpp,
// cpu_features.h SubnormalsAsZero): sigmoid and the fused SiLU where sigmoid's result is
// subnormal (x < -87.3) are computed without a float32 product that has a subnormal operand or
// result, and must stay bit-identical to the kernels they replace; the products (GEMM, depthwise,
// dot products) read subnormal operands as zero, within their tolerance, and leave the thread's
// floating-point mode as they found it, so that the exact kernels after them still see subnormals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace cppnn {
namespace {

using testing::as;
using testing::run_graph;
using testing::to_bytes;

constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr float kInf = std::numeric_limits<float>::infinity();

// Every float32 from -110 to -80 taken at a stride of 37 values, the ends of sigmoid's subnormal
// range, -Inf, NaN and some ordinary values; padded to a multiple of 64.
std::vector<float> silu_inputs() {
  std::vector<float> v;
  for (float x = -110.0f; x < -80.0f;) {
    v.push_back(x);
    for (int i = 0; i < 37; ++i) x = std::nextafter(x, 0.0f);
  }
  for (float x : {-104.0f, -103.97f, -87.34f, -87.33f, -kInf,
                  std::numeric_limits<float>::quiet_NaN(), 0.0f, 1.5f, -3.0f, 90.0f})
    v.push_back(x);
  while (v.size() % 64) v.push_back(-95.5f);
  return v;
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// conv2d(x, 1) (a 1×1 identity convolution: its output is x exactly, but for -0) followed by the
// exporters' SiLU, mul(c, sigmoid(c)), which the cpu backend fuses into the convolution's epilogue:
// equal bit for bit to sigmoid and mul run as separate cpu kernels, for every input (NaN for NaN).
TEST(CpuSubnormal, FusedSiluIsBitIdenticalToSigmoidThenMul) {
  const std::vector<float> x = silu_inputs();
  const uint32_t n = static_cast<uint32_t>(x.size());
  for (uint32_t threads : {1u, 2u}) {
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
    MLGraphBuilder fb(cpu);
    MLOperand in = fb.input("x", {kF32, {1, 1, 1, n}});
    MLOperand one = fb.constant({kF32, {1, 1, 1, 1}}, to_bytes(std::vector<float>{1.0f}));
    MLOperand c = fb.conv2d(in, one);
    MLGraph fused = fb.build({{"y", fb.mul(c, fb.sigmoid(c))}});
    const auto y = as<float>(run_graph(cpu, fused, {{"x", to_bytes(x)}}).at("y"));

    MLGraphBuilder sb(cpu);
    MLGraph sig = sb.build({{"s", sb.sigmoid(sb.input("x", {kF32, {n}}))}});
    const auto s = run_graph(cpu, sig, {{"x", to_bytes(x)}}).at("s");
    MLGraphBuilder mb(cpu);
    MLGraph mul = mb.build({{"y", mb.mul(mb.input("a", {kF32, {n}}), mb.input("b", {kF32, {n}}))}});
    const auto want = as<float>(run_graph(cpu, mul, {{"a", to_bytes(x)}, {"b", s}}).at("y"));

    ASSERT_EQ(y.size(), want.size());
    size_t subnormal = 0, failures = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      if (want[i] != 0.0f && std::fabs(want[i]) < std::numeric_limits<float>::min()) ++subnormal;
      // A NaN's sign from NaN · NaN is the operand the compiler puts first: NaN for NaN.
      const bool same = std::isnan(want[i]) ? std::isnan(y[i]) : bits(y[i]) == bits(want[i]);
      if (!same && failures++ < 5)
        ADD_FAILURE() << "x = " << x[i] << ": fused " << y[i] << ", sigmoid then mul " << want[i];
    }
    EXPECT_EQ(failures, 0u) << threads << " thread(s)";
    EXPECT_GT(subnormal, 1000u);  // the range under test gives subnormal products
  }
}

// Sigmoid where its result is subnormal: within 4 ULP of the reference (one ULP there is 2^-149).
TEST(CpuSubnormal, SigmoidBelowMinus87IsWithinFourUlp) {
  const std::vector<float> x = silu_inputs();
  const uint32_t n = static_cast<uint32_t>(x.size());
  auto run = [&](MLContext context) {
    MLGraphBuilder b(context);
    MLGraph g = b.build({{"s", b.sigmoid(b.input("x", {kF32, {n}}))}});
    return as<float>(run_graph(context, g, {{"x", to_bytes(x)}}).at("s"));
  };
  const auto got = run(MLContext::create({.backend = "cpu", .numThreads = 1}));
  const auto want = run(testing::ref_context());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << x[i];
      continue;
    }
    const int64_t d = std::llabs(int64_t(bits(got[i])) - int64_t(bits(want[i])));
    EXPECT_LE(d, 4) << "x = " << x[i] << ": " << got[i] << " against " << want[i];
  }
}

// The fast sigmoid (rows without an x below -87) and the full one give the same bits: the same
// values run alone and behind a -100, which sends their row to the full form.
TEST(CpuSubnormal, FastAndFullSigmoidAgreeBitForBit) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-87.0f, 100.0f), small(-20.0f, 20.0f);
  std::vector<float> x(4095);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? u(rng) : small(rng);
  for (float v : {-87.0f, 87.0f, 88.5f, kInf, 0.0f, -0.0f, 1e-40f, -1e-40f,
                  std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  std::vector<float> behind = x;
  behind.insert(behind.begin(), -100.0f);
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 1});
  auto run = [&](const std::vector<float>& v) {
    MLGraphBuilder b(cpu);
    const uint32_t n = static_cast<uint32_t>(v.size());
    MLGraph g = b.build({{"s", b.sigmoid(b.input("x", {kF32, {n}}))}});
    return as<float>(run_graph(cpu, g, {{"x", to_bytes(v)}}).at("s"));
  };
  const auto fast = run(x), full = run(behind);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(bits(fast[i]), bits(full[i + 1])) << "x = " << x[i];
}

// A convolution, a matrix product and a depthwise convolution reading subnormal activations
// (what SiLU gives below -87.3): within their tolerance of the reference, and an exact kernel in
// the same graph after them (add) still bit-identical with subnormal operands; the dispatching
// thread's floating-point mode unchanged.
TEST(CpuSubnormal, ProductsReadSubnormalsAndLeaveTheModeAsItWas) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(1 * 16 * 20 * 20), f(16 * 16), dw(16 * 9), w(400 * 24);
  for (size_t i = 0; i < x.size(); ++i)  // a quarter subnormal, the rest ordinary
    x[i] = i % 4 == 0 ? u(rng) * 1e-39f : u(rng);
  for (float& v : f) v = u(rng);
  for (float& v : dw) v = u(rng);
  for (float& v : w) v = u(rng);
  auto run = [&](MLContext context) {
    MLGraphBuilder b(context);
    MLOperand in = b.input("x", {kF32, {1, 16, 20, 20}});
    MLOperand conv = b.conv2d(in, b.constant({kF32, {16, 16, 1, 1}}, to_bytes(f)));
    MLConv2dOptions o;
    o.groups = 16;
    o.padding = {1, 1, 1, 1};
    MLOperand depthwise = b.conv2d(in, b.constant({kF32, {16, 1, 3, 3}}, to_bytes(dw)), o);
    MLOperand rows = b.reshape(in, {16, 400});
    MLOperand product = b.matmul(rows, b.constant({kF32, {400, 24}}, to_bytes(w)));
    MLOperand sum = b.add(in, in);
    MLGraph g =
        b.build({{"conv", conv}, {"depthwise", depthwise}, {"matmul", product}, {"add", sum}});
    return run_graph(context, g, {{"x", to_bytes(x)}});
  };
#if defined(__x86_64__)
  const unsigned mode = _mm_getcsr();
#endif
  const auto got = run(MLContext::create({.backend = "cpu", .numThreads = 2}));
#if defined(__x86_64__)
  EXPECT_EQ(_mm_getcsr(), mode);
#endif
  const auto want = run(testing::ref_context());
  for (const char* name : {"conv", "depthwise", "matmul"}) {
    const auto g = as<float>(got.at(name)), r = as<float>(want.at(name));
    ASSERT_EQ(g.size(), r.size());
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_NEAR(g[i], r[i], 1e-5 * (1.0 + std::fabs(r[i]))) << name << " element " << i;
  }
  const auto g = as<float>(got.at("add")), r = as<float>(want.at("add"));
  ASSERT_EQ(g.size(), r.size());
  size_t subnormal = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(bits(g[i]), bits(r[i])) << "add element " << i;
    if (r[i] != 0.0f && std::fabs(r[i]) < std::numeric_limits<float>::min()) ++subnormal;
  }
  EXPECT_GT(subnormal, 100u);
}

}  // namespace
}  // namespace cppnn
