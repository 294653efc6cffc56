// The fused activations of the cpu backend's products (src/backends/cpu/epilogue.h): hardSwish
// after a convolution is computed in float32, within 2 ULP of the exact activation of the same
// product, with the exact form's values at and beyond ±3, for infinities and NaN; the hardSwish
// op on its own stays bit-identical to the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::run_graph;
using testing::to_bytes;

constexpr auto kF32 = MLOperandDataType::kFloat32;

int64_t ordered(float f) {  // float bits on a line where neighbours differ by 1
  int32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b < 0 ? -int64_t(b & 0x7FFFFFFF) : int64_t(b);
}

// Every 97th float32 in [-4, 4], the edges ±3 and their neighbours, 0, -0, huge values,
// infinities and NaN; padded to a multiple of 64.
std::vector<float> hard_swish_inputs() {
  std::vector<float> v;
  for (float x = -4.0f; x < 4.0f;) {
    v.push_back(x);
    for (int i = 0; i < 97; ++i) x = std::nextafter(x, 5.0f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {-3.0f, 3.0f, std::nextafter(-3.0f, 0.0f), std::nextafter(3.0f, 0.0f),
                  std::nextafter(-3.0f, -4.0f), std::nextafter(3.0f, 4.0f), 0.0f, 1e-30f, -1e-30f,
                  3e38f, -3e38f, inf, -inf, std::numeric_limits<float>::quiet_NaN()})
    v.push_back(x);
  while (v.size() % 64) v.push_back(0.5f);
  return v;
}

TEST(CpuEpilogue, FusedHardSwishIsWithinTwoUlpOfTheExactActivation) {
  const std::vector<float> x = hard_swish_inputs();
  const uint32_t n = static_cast<uint32_t>(x.size());
  auto fused = [&](MLContext context) {  // conv2d(x, 1): its output is x (+0 for -0)
    MLGraphBuilder b(context);
    MLOperand in = b.input("x", {kF32, {1, 1, 1, n}});
    MLOperand one = b.constant({kF32, {1, 1, 1, 1}}, to_bytes(std::vector<float>{1.0f}));
    MLGraph g = b.build({{"y", b.hardSwish(b.conv2d(in, one))}});
    return as<float>(run_graph(context, g, {{"x", to_bytes(x)}}).at("y"));
  };
  const auto got = fused(MLContext::create({.backend = "cpu", .numThreads = 1}));
  const auto want = fused(testing::ref_context());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (x[i] != 0.0f && std::fabs(x[i]) < std::numeric_limits<float>::min())
      continue;  // the convolution reads a subnormal input as 0 (SubnormalsAsZero)
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "x = " << x[i];
      continue;
    }
    if (x[i] >= 3.0f || x[i] <= -3.0f || std::isinf(x[i])) {
      EXPECT_EQ(got[i], want[i]) << "x = " << x[i];  // x, or 0, exactly
    }
    EXPECT_LE(std::llabs(ordered(got[i]) - ordered(want[i])), 2)
        << "x = " << x[i] << ": " << got[i] << " against " << want[i];
  }
}

TEST(CpuEpilogue, TheHardSwishOpStaysExact) {
  const std::vector<float> x = hard_swish_inputs();
  const uint32_t n = static_cast<uint32_t>(x.size());
  auto run = [&](MLContext context) {
    MLGraphBuilder b(context);
    MLGraph g = b.build({{"y", b.hardSwish(b.input("x", {kF32, {n}}))}});
    return run_graph(context, g, {{"x", to_bytes(x)}}).at("y");
  };
  EXPECT_EQ(run(MLContext::create({.backend = "cpu", .numThreads = 1})),
            run(testing::ref_context()));
}

}  // namespace
}  // namespace cppnn
