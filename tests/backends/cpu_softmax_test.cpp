// The cpu backend's softmax kernel (src/backends/cpu/softmax.cpp, webnn-spec.md §2 row 88)
// against the reference backend, bit for bit: every axis of a 4-D tensor, rows with NaN and
// ±Inf, 1 and 3 threads.
#include <gtest/gtest.h>

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

TEST(CpuSoftmax, EveryAxisMatchesTheReferenceBitForBit) {
  const std::vector<uint32_t> shape{2, 3, 17, 40};
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-30.0f, 30.0f);
  std::vector<float> x(2 * 3 * 17 * 40);
  for (float& v : x) v = dist(rng);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  x[99] = std::numeric_limits<float>::infinity();
  x[700] = -std::numeric_limits<float>::infinity();
  MLContext ref = testing::ref_context();
  for (unsigned threads : {1u, 3u}) {
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
    for (uint32_t axis = 0; axis < 4; ++axis) {
      SCOPED_TRACE("axis " + std::to_string(axis) + ", threads " + std::to_string(threads));
      EXPECT_EQ(run_softmax(cpu, shape, axis, x), run_softmax(ref, shape, axis, x));
    }
  }
}

}  // namespace
}  // namespace cppnn
