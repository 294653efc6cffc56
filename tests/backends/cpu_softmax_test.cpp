// The cpu backend's softmax kernel (src/backends/cpu/softmax.cpp, webnn-spec.md §2 row 88)
// against the reference backend: every axis of a 4-D tensor, rows with NaN and ±Inf, 1 and 3
// threads, long rows; bit for bit except along the last axis (float32 vector code, within 4 ULP).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::run_graph;
using testing::to_bytes;

std::vector<std::byte> run_softmax(MLContext& context, const std::vector<uint32_t>& shape,
                                   uint32_t axis, const std::vector<float>& x) {
  MLGraphBuilder b(context);
  MLOperand in = b.input("x", {MLOperandDataType::kFloat32, shape});
  MLGraph g = b.build({{"y", b.softmax(in, axis)}});
  return run_graph(context, g, {{"x", to_bytes(x)}}).at("y");
}

// The largest distance in float32 ULPs between a and b (NaN must meet NaN).
int64_t max_ulp_distance(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  EXPECT_EQ(a.size(), b.size());
  int64_t worst = 0;
  for (size_t i = 0; i + 4 <= std::min(a.size(), b.size()); i += 4) {
    float x, y;
    std::memcpy(&x, a.data() + i, 4);
    std::memcpy(&y, b.data() + i, 4);
    if (std::isnan(x) || std::isnan(y)) {
      EXPECT_TRUE(std::isnan(x) && std::isnan(y)) << "element " << i / 4;
      continue;
    }
    auto key = [](float f) {  // monotonic integer order of floats
      int32_t k;
      std::memcpy(&k, &f, 4);
      return k < 0 ? int64_t{INT32_MIN} - k : int64_t{k};
    };
    worst = std::max(worst, std::abs(key(x) - key(y)));
  }
  return worst;
}

// Along the last axis the cpu backend computes in float32 (WPT allows 21 ULP; it stays within 4);
// along other axes it is the reference's double computation, bit for bit.
void expect_every_axis_matches(const std::vector<uint32_t>& shape) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-30.0f, 30.0f);
  std::vector<float> x(static_cast<size_t>(shape[0]) * shape[1] * shape[2] * shape[3]);
  for (float& v : x) v = dist(rng);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  x[99] = std::numeric_limits<float>::infinity();
  x[700] = -std::numeric_limits<float>::infinity();
  MLContext ref = testing::ref_context();
  for (unsigned threads : {1u, 3u}) {
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
    for (uint32_t axis = 0; axis < 4; ++axis) {
      SCOPED_TRACE("axis " + std::to_string(axis) + ", threads " + std::to_string(threads));
      const auto got = run_softmax(cpu, shape, axis, x), want = run_softmax(ref, shape, axis, x);
      if (axis + 1 < shape.size())
        EXPECT_EQ(got, want);
      else
        EXPECT_LE(max_ulp_distance(got, want), 4);
    }
  }
}

// Inner sizes that are and are not multiples of the vector width (columns computed a vector at
// a time, the rest one by one).
TEST(CpuSoftmax, EveryAxisMatchesTheReference) {
  for (const std::vector<uint32_t>& shape :
       {std::vector<uint32_t>{2, 3, 17, 40}, std::vector<uint32_t>{2, 3, 17, 13}})
    expect_every_axis_matches(shape);
}

// Long rows (attention over a long context), values spread so that most exponentials are far
// below the maximum, and rows of -Inf with one finite value.
TEST(CpuSoftmax, LongRowsStayWithinFourUlp) {
  const std::vector<uint32_t> shape{3, 2000};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-90.0f, 10.0f);
  std::vector<float> x(6000);
  for (float& v : x) v = dist(rng);
  for (size_t i = 4000; i < 6000; ++i) x[i] = -std::numeric_limits<float>::infinity();
  x[4321] = 3.0f;
  MLContext ref = testing::ref_context();
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 2});
  EXPECT_LE(max_ulp_distance(run_softmax(cpu, shape, 1, x), run_softmax(ref, shape, 1, x)), 4);
}

// Rows whose results sweep the subnormal range (x − max from −80 to −110: e^(x − max) from 2^-115
// down to 0), as attention rows far below their maximum produce: computed without subnormal
// arithmetic (vmath::scale_by_pow2), still within 4 ULP (one ULP there being 2^-149).
TEST(CpuSoftmax, SubnormalResultsStayWithinFourUlp) {
  const std::vector<uint32_t> shape{4, 517};
  std::vector<float> x(4 * 517);
  for (size_t r = 0; r < 4; ++r)
    for (size_t i = 0; i < 517; ++i)
      x[r * 517 + i] = i == r ? 1.5f * float(r) : 1.5f * float(r) - 80.0f - 30.0f * float(i) / 517;
  MLContext ref = testing::ref_context();
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 1});
  const auto got = run_softmax(cpu, shape, 1, x);
  EXPECT_LE(max_ulp_distance(got, run_softmax(ref, shape, 1, x)), 4);
  size_t subnormal = 0;
  for (size_t i = 0; i + 4 <= got.size(); i += 4) {
    float v;
    std::memcpy(&v, got.data() + i, 4);
    subnormal += std::fpclassify(v) == FP_SUBNORMAL;
  }
  EXPECT_GT(subnormal, 4 * 517 / 2u);
}

}  // namespace
}  // namespace cppnn
