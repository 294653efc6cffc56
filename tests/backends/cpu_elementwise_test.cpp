// The cpu backend's element-wise kernels (src/backends/cpu/elementwise_binary.cpp and
// elementwise_unary.cpp) against the reference backend through the public API: float32 add, sub,
// mul, div, max, min across broadcast patterns (webnn-spec.md §2 rows 10-15, §3.4) and relu,
// clamp, leakyRelu, hardSwish, hardSigmoid, linear (rows 79, 5, 59, 56, 55, 60), on random data
// with NaN, ±Inf, ±0 and subnormals, small tensors and tensors above 1M elements (split over the
// pool), required to be bit-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::run_graph;
using testing::to_bytes;
using Shape = std::vector<uint32_t>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

size_t count_of(const Shape& s) {
  size_t n = 1;
  for (uint32_t d : s) n *= d;
  return n;
}

// n random float32 values: mostly uniform in [-8, 8], with a share of special values (NaN, ±Inf,
// ±0, ±1, ±3, subnormals, values near the float32 limits), of huge and of tiny values. NaN is
// always the default quiet NaN, so that NaN op NaN has one answer whichever side the hardware
// propagates.
std::vector<float> random_values(size_t n, uint32_t seed) {
  static const float specials[] = {kNaN,   kInf,      -kInf, 0.0f,    -0.0f,   1.0f,
                                   -1.0f,  3.0f,      -3.0f, 1e-40f,  -1e-42f, 3e38f,
                                   -3e38f, 1.17e-38f, 0.5f,  -2.999f, 2.999f,  6.0f};
  constexpr size_t kSpecials = sizeof(specials) / sizeof(specials[0]);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-8.0f, 8.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<float> v(n);
  for (float& x : v) {
    const int p = pick(rng);
    if (p < 15)
      x = specials[rng() % kSpecials];
    else if (p < 20)
      x = u(rng) * 1e37f;
    else if (p < 25)
      x = u(rng) * 1e-37f;
    else
      x = u(rng);
  }
  return v;
}

// The first element whose bits differ, as a message (empty when the outputs are identical).
std::string first_difference(const std::vector<std::byte>& got,
                             const std::vector<std::byte>& want) {
  if (got.size() != want.size())
    return "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  const std::vector<uint32_t> g = as<uint32_t>(got), w = as<uint32_t>(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] == w[i]) continue;
    float gf, wf;
    std::memcpy(&gf, &g[i], 4);
    std::memcpy(&wf, &w[i], 4);
    char text[160];
    std::snprintf(text, sizeof text, "element %zu: cpu %.9g (0x%08x) vs reference %.9g (0x%08x)", i,
                  static_cast<double>(gf), g[i], static_cast<double>(wf), w[i]);
    return text;
  }
  return "";
}

using BinaryMake = std::function<MLOperand(MLGraphBuilder&, const MLOperand&, const MLOperand&)>;
using UnaryMake = std::function<MLOperand(MLGraphBuilder&, const MLOperand&)>;

struct NamedBinary {
  const char* name;
  BinaryMake make;
};

std::vector<NamedBinary> binary_ops() {
  return {
      {"add",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.add(x, y); }},
      {"sub",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.sub(x, y); }},
      {"mul",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.mul(x, y); }},
      {"div",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.div(x, y); }},
      {"max",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.max(x, y); }},
      {"min",
       [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.min(x, y); }},
  };
}

// Runs out = make(a, b) on `context` (b a constant when `b_constant`) and returns out's bytes.
std::vector<std::byte> run_binary(MLContext& context, const BinaryMake& make,
                                  MLOperandDataType type, const Shape& sa, const Shape& sb,
                                  const std::vector<std::byte>& a, const std::vector<std::byte>& b,
                                  bool b_constant = false) {
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("a", {type, sa});
  MLOperand y = b_constant ? builder.constant({type, sb}, b) : builder.input("b", {type, sb});
  MLGraph g = builder.build({{"out", make(builder, x, y)}});
  std::map<std::string, std::vector<std::byte>> inputs{{"a", a}};
  if (!b_constant) inputs.emplace("b", b);
  return run_graph(context, g, inputs).at("out");
}

std::vector<std::byte> run_unary(MLContext& context, const UnaryMake& make, const Shape& shape,
                                 const std::vector<std::byte>& x) {
  MLGraphBuilder builder(context);
  MLGraph g = builder.build(
      {{"y", make(builder, builder.input("x", {MLOperandDataType::kFloat32, shape}))}});
  return run_graph(context, g, {{"x", x}}).at("y");
}

class CpuElementwise : public ::testing::Test {
 protected:
  // Every binary op on a (shape sa) and b (shape sb) on the cpu backend with `threads` threads
  // against the reference, bit for bit.
  void expect_binary_matches(const Shape& sa, const Shape& sb, unsigned threads,
                             bool b_constant = false) {
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
    MLContext ref = testing::ref_context();
    const auto a = to_bytes(random_values(count_of(sa), 7 + count_of(sa)));
    const auto b = to_bytes(random_values(count_of(sb), 1000 + count_of(sb)));
    for (const NamedBinary& op : binary_ops()) {
      const auto f32 = MLOperandDataType::kFloat32;
      const auto got = run_binary(cpu, op.make, f32, sa, sb, a, b, b_constant);
      const auto want = run_binary(ref, op.make, f32, sa, sb, a, b, b_constant);
      EXPECT_EQ(first_difference(got, want), "")
          << op.name << " " << ::testing::PrintToString(sa) << " with "
          << ::testing::PrintToString(sb) << ", " << threads << " threads";
    }
  }

  // y = make(x) on the cpu backend with `threads` threads against the reference, bit for bit.
  void expect_unary_matches(const char* name, const UnaryMake& make, const Shape& shape,
                            unsigned threads) {
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
    MLContext ref = testing::ref_context();
    const auto x = to_bytes(random_values(count_of(shape), 99 + count_of(shape)));
    EXPECT_EQ(first_difference(run_unary(cpu, make, shape, x), run_unary(ref, make, shape, x)), "")
        << name << " " << ::testing::PrintToString(shape) << ", " << threads << " threads";
  }
};

TEST_F(CpuElementwise, BinarySameShapeMatchesTheReference) {
  expect_binary_matches({2, 3, 4, 5}, {2, 3, 4, 5}, 1);
  expect_binary_matches({7}, {7}, 1);
  expect_binary_matches({}, {}, 1);
}

TEST_F(CpuElementwise, BinaryScalarSideMatchesTheReference) {
  expect_binary_matches({2, 3, 4, 5}, {}, 1);
  expect_binary_matches({}, {2, 3, 4, 5}, 1);
  expect_binary_matches({2, 3, 4, 5}, {1}, 1);
  expect_binary_matches({1, 1, 1}, {2, 3, 4, 5}, 1);
  expect_binary_matches({1, 1}, {1, 1, 1}, 1);
}

TEST_F(CpuElementwise, BinaryPerChannelMatchesTheReference) {
  expect_binary_matches({2, 3, 4, 5}, {3, 1, 1}, 1);
  expect_binary_matches({3, 1, 1}, {2, 3, 4, 5}, 1);
  expect_binary_matches({1, 8, 6, 6}, {1, 8, 1, 1}, 1);
  expect_binary_matches({2, 3, 4, 5}, {5}, 1);  // a row vector: NHWC bias
  expect_binary_matches({5}, {2, 3, 4, 5}, 1);
  expect_binary_matches({2, 3, 4, 5}, {4, 5}, 1);
}

TEST_F(CpuElementwise, BinaryGeneralBroadcastMatchesTheReference) {
  expect_binary_matches({2, 3, 4, 5}, {2, 1, 4, 1}, 1);
  expect_binary_matches({2, 1, 4, 1}, {2, 3, 4, 5}, 1);
  expect_binary_matches({3, 1, 5}, {2, 1, 4, 1}, 1);  // both sides broadcast
  expect_binary_matches({1, 4, 1}, {3, 1, 5}, 1);
  expect_binary_matches({6, 1}, {1, 7}, 1);
  expect_binary_matches({2, 1, 3, 1, 2}, {1, 4, 1, 5, 1}, 1);
}

TEST_F(CpuElementwise, BinaryWithAConstantOperandMatchesTheReference) {
  expect_binary_matches({1, 16, 9, 9}, {1, 16, 1, 1}, 1, true);
  expect_binary_matches({2, 3, 4, 5}, {}, 1, true);
}

// Above 1M elements the kernels split the output into chunks over the pool; chunk boundaries fall
// inside runs of every form.
TEST_F(CpuElementwise, BinaryBigTensorsMatchTheReference) {
  for (unsigned threads : {4u, 1u}) {
    expect_binary_matches({1, 64, 160, 160}, {1, 64, 160, 160}, threads);
    expect_binary_matches({1, 64, 160, 160}, {1, 64, 1, 1}, threads);
    expect_binary_matches({1, 64, 160, 160}, {}, threads);
  }
  expect_binary_matches({3, 1, 700, 1}, {1, 5, 1, 101}, 3);  // both sides broadcast, odd runs
  expect_binary_matches({1031, 1}, {1, 1031}, 4);            // scalar op vector rows
  expect_binary_matches({5, 1000, 211}, {1000, 1}, 4);
}

// max/min: NaN on either side gives NaN, and equal values (+0 against -0) give b, as the
// reference does; checked against explicit values as well as the reference.
TEST_F(CpuElementwise, MaxMinNaNAndSignedZeros) {
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 1});
  MLContext ref = testing::ref_context();
  const std::vector<float> a{0.0f, -0.0f, kNaN, 1.0f, kNaN, -kInf, kInf, 2.0f, -0.0f};
  const std::vector<float> b{-0.0f, 0.0f, 1.0f, kNaN, kNaN, kInf, -kInf, 2.0f, -0.0f};
  const Shape s{static_cast<uint32_t>(a.size())};
  const auto f32 = MLOperandDataType::kFloat32;
  for (const NamedBinary& op : binary_ops()) {
    const auto got = run_binary(cpu, op.make, f32, s, s, to_bytes(a), to_bytes(b));
    EXPECT_EQ(first_difference(got, run_binary(ref, op.make, f32, s, s, to_bytes(a), to_bytes(b))),
              "")
        << op.name;
    const std::string name = op.name;
    if (name != "max" && name != "min") continue;
    const std::vector<uint32_t> bits = as<uint32_t>(got);
    EXPECT_EQ(bits[0], 0x80000000u) << name << "(+0, -0) is b";
    EXPECT_EQ(bits[1], 0x00000000u) << name << "(-0, +0) is b";
    for (size_t i : {2u, 3u, 4u}) EXPECT_EQ(bits[i], 0x7FC00000u) << name << " with NaN at " << i;
    const std::vector<float> v = as<float>(got);
    EXPECT_EQ(v[5], name == "max" ? kInf : -kInf);
    EXPECT_EQ(v[6], name == "max" ? kInf : -kInf);
    EXPECT_EQ(v[7], 2.0f);
  }
}

// float16 and int32 are not the fast kernels' business: they run the reference kernels.
TEST_F(CpuElementwise, OtherDataTypesFallBackToTheReference) {
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 2});
  MLContext ref = testing::ref_context();
  std::vector<int32_t> ia(120), ib(5);
  for (size_t i = 0; i < ia.size(); ++i) ia[i] = static_cast<int32_t>(i * 2654435761u);
  for (size_t i = 0; i < ib.size(); ++i) ib[i] = static_cast<int32_t>(i) - 2;
  const std::vector<uint16_t> ha = testing::half_bits(random_values(120, 3)),
                              hb = testing::half_bits(random_values(5, 4));
  for (const NamedBinary& op : binary_ops()) {
    const auto i32 = MLOperandDataType::kInt32, f16 = MLOperandDataType::kFloat16;
    EXPECT_EQ(run_binary(cpu, op.make, i32, {2, 3, 4, 5}, {5}, to_bytes(ia), to_bytes(ib)),
              run_binary(ref, op.make, i32, {2, 3, 4, 5}, {5}, to_bytes(ia), to_bytes(ib)))
        << op.name;
    EXPECT_EQ(run_binary(cpu, op.make, f16, {2, 3, 4, 5}, {5}, to_bytes(ha), to_bytes(hb)),
              run_binary(ref, op.make, f16, {2, 3, 4, 5}, {5}, to_bytes(ha), to_bytes(hb)))
        << op.name;
  }
}

std::vector<std::pair<const char*, UnaryMake>> unary_ops() {
  using B = MLGraphBuilder;
  using O = MLOperand;
  return {
      {"relu", [](B& b, const O& x) { return b.relu(x); }},
      {"clamp", [](B& b, const O& x) { return b.clamp(x); }},
      {"clamp[-1,2.5]",
       [](B& b, const O& x) { return b.clamp(x, {.minValue = -1.0, .maxValue = 2.5}); }},
      {"clamp[0,6]",
       [](B& b, const O& x) { return b.clamp(x, {.minValue = 0.0, .maxValue = 6.0}); }},
      {"clamp[-2,3] (integers)",
       [](B& b, const O& x) { return b.clamp(x, {.minValue = -2, .maxValue = 3}); }},
      {"clamp[-0,]", [](B& b, const O& x) { return b.clamp(x, {.minValue = -0.0}); }},
      {"clamp[NaN,0.1]",
       [](B& b, const O& x) { return b.clamp(x, {.minValue = kNaN, .maxValue = 0.1}); }},
      {"clamp[+Inf,]", [](B& b, const O& x) { return b.clamp(x, {.minValue = kInf}); }},
      {"clamp[,-Inf]", [](B& b, const O& x) { return b.clamp(x, {.maxValue = -kInf}); }},
      {"leakyRelu", [](B& b, const O& x) { return b.leakyRelu(x); }},
      {"leakyRelu(-2.3)", [](B& b, const O& x) { return b.leakyRelu(x, {.alpha = -2.3}); }},
      {"leakyRelu(0.1)", [](B& b, const O& x) { return b.leakyRelu(x, {.alpha = 0.1}); }},
      {"hardSwish", [](B& b, const O& x) { return b.hardSwish(x); }},
      {"hardSigmoid", [](B& b, const O& x) { return b.hardSigmoid(x); }},
      {"hardSigmoid(0.3,-0.1)",
       [](B& b, const O& x) { return b.hardSigmoid(x, {.alpha = 0.3, .beta = -0.1}); }},
      {"hardSigmoid(1/6,0.5)",
       [](B& b, const O& x) { return b.hardSigmoid(x, {.alpha = 1.0 / 6, .beta = 0.5}); }},
      {"linear", [](B& b, const O& x) { return b.linear(x); }},
      {"linear(0.1,0.7)",
       [](B& b, const O& x) { return b.linear(x, {.alpha = 0.1, .beta = 0.7}); }},
      {"linear(-3e5,1e-3)",
       [](B& b, const O& x) { return b.linear(x, {.alpha = -3e5, .beta = 1e-3}); }},
  };
}

TEST_F(CpuElementwise, UnaryMatchesTheReference) {
  for (const auto& [name, make] : unary_ops()) {
    expect_unary_matches(name, make, {}, 1);
    expect_unary_matches(name, make, {37}, 1);
    expect_unary_matches(name, make, {2, 3, 4, 5}, 2);
  }
}

TEST_F(CpuElementwise, UnaryBigTensorsMatchTheReference) {
  for (const auto& [name, make] : unary_ops()) {
    expect_unary_matches(name, make, {1, 64, 160, 161}, 4);
    expect_unary_matches(name, make, {1, 17, 257, 257}, 1);
  }
}

// hardSwish over every float32 in [-4, 4] spaced 2^-16 apart, and near -3, 0 and 3 one ULP apart:
// the double computation rounds as the reference does everywhere.
TEST_F(CpuElementwise, HardSwishIsExactAcrossItsRange) {
  std::vector<float> x;
  for (int i = -4 * 65536; i <= 4 * 65536; ++i) x.push_back(static_cast<float>(i) / 65536.0f);
  for (float c : {-3.0f, 0.0f, 3.0f}) {
    float up = c, down = c;
    for (int i = 0; i < 1000; ++i) {
      x.push_back(up = std::nextafter(up, kInf));
      x.push_back(down = std::nextafter(down, -kInf));
    }
  }
  const Shape s{static_cast<uint32_t>(x.size())};
  const UnaryMake make = [](MLGraphBuilder& b, const MLOperand& in) { return b.hardSwish(in); };
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 1});
  MLContext ref = testing::ref_context();
  EXPECT_EQ(
      first_difference(run_unary(cpu, make, s, to_bytes(x)), run_unary(ref, make, s, to_bytes(x))),
      "");
}

// The family compilers take float32 and decline other data types (which the plan then runs on
// the reference kernels); the compiled kernel runs on the slot table directly.
TEST_F(CpuElementwise, CompilersTakeFloat32Only) {
  MLContext ctx = testing::ref_context();
  auto pool = std::make_shared<cpu::ThreadPool>(2);
  for (MLOperandDataType type :
       {MLOperandDataType::kFloat32, MLOperandDataType::kInt32, MLOperandDataType::kFloat16}) {
    MLGraphBuilder b(ctx);
    MLOperand x = b.input("x", {type, {2, 3}}), y = b.input("y", {type, {3}});
    const MLOperand sum = b.add(x, y);
    const Graph g = b.pruned_graph({{"s", sum}, {"r", b.relu(sum)}});
    const cpu::CompileContext cc{g, pool};
    ASSERT_EQ(g.operations.size(), 2u);
    const auto add = cpu::compile_fast_binary(cc, g.operations[0]);
    const auto relu = cpu::compile_fast_unary(cc, g.operations[1]);
    EXPECT_EQ(add.has_value(), type == MLOperandDataType::kFloat32);
    EXPECT_EQ(relu.has_value(), type == MLOperandDataType::kFloat32);
    if (!add || !relu) continue;
    std::vector<float> a{1, -2, 3, -4, 5, -6}, c{10, 20, -30}, s(6), r(6);
    std::vector<std::byte*> slots(g.operands.size(), nullptr);
    slots[g.operations[0].inputs[0].value] = reinterpret_cast<std::byte*>(a.data());
    slots[g.operations[0].inputs[1].value] = reinterpret_cast<std::byte*>(c.data());
    slots[g.operations[0].outputs[0].value] = reinterpret_cast<std::byte*>(s.data());
    slots[g.operations[1].outputs[0].value] = reinterpret_cast<std::byte*>(r.data());
    add->run(slots);
    relu->run(slots);
    EXPECT_EQ(s, (std::vector<float>{11, 18, -27, 6, 25, -36}));
    EXPECT_EQ(r, (std::vector<float>{11, 18, 0, 6, 25, 0}));
  }
}

}  // namespace
}  // namespace cppnn
