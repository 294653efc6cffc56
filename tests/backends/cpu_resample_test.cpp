// The cpu backend's nearest-neighbor resample2d (src/backends/cpu/resample.cpp) against the
// reference backend, required to be identical element for element: upsampling by whole and
// fractional factors, downsampling, every pair of axes, element types of 1, 2 and 4 bytes, one
// and two threads; and linear mode left to the reference kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::run_graph;

struct ResampleCase {
  MLOperandDataType type;
  std::vector<uint32_t> shape, sizes, axes;
};

size_t bytes_of(MLOperandDataType t) {
  return data_type_bits(t) / 8;
}

std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> b(n);
  for (std::byte& v : b) v = std::byte(rng() & 0x3F);  // small values of every type, no NaN
  return b;
}

std::vector<std::byte> run_case(MLContext context, const ResampleCase& c,
                                const std::vector<std::byte>& x) {
  MLGraphBuilder b(context);
  MLResample2dOptions o;
  o.sizes = c.sizes;
  o.axes = c.axes;
  MLGraph g = b.build({{"y", b.resample2d(b.input("x", {c.type, c.shape}), o)}});
  return run_graph(context, g, {{"x", x}}).at("y");
}

TEST(CpuResample, NearestIsTheReferenceElementForElement) {
  const auto f32 = MLOperandDataType::kFloat32, f16 = MLOperandDataType::kFloat16;
  const ResampleCase cases[] = {
      {f32, {1, 3, 20, 20}, {40, 40}, {2, 3}},  // YOLO's upsampling by 2
      {f32, {2, 5, 7, 9}, {16, 23}, {2, 3}},    // fractional factors
      {f32, {1, 4, 33, 30}, {10, 7}, {2, 3}},   // downsampling
      {f32, {1, 12, 12, 8}, {30, 20}, {1, 2}},  // NHWC: rows copied whole
      {f32, {6, 5, 4, 3}, {9, 2}, {0, 1}},      // outer axes
      {f32, {2, 3, 5, 7}, {4, 11}, {1, 3}},     // non-adjacent axes
      {f16, {1, 8, 16, 16}, {32, 48}, {2, 3}},  // 2-byte elements
      {MLOperandDataType::kInt8, {1, 2, 9, 9}, {18, 5}, {2, 3}},
      {MLOperandDataType::kUint8, {1, 2, 6, 6}, {13, 13}, {2, 3}},
      {f32, {1, 64, 80, 80}, {160, 160}, {2, 3}},  // split over the pool
  };
  uint32_t seed = 1;
  for (const ResampleCase& c : cases) {
    size_t n = bytes_of(c.type);
    for (uint32_t d : c.shape) n *= d;
    const auto x = random_bytes(n, seed++);
    const auto want = run_case(testing::ref_context(), c, x);
    for (uint32_t threads : {1u, 2u})
      EXPECT_EQ(run_case(MLContext::create({.backend = "cpu", .numThreads = threads}), c, x), want)
          << "case " << seed - 1 << ", " << threads << " thread(s)";
  }
}

TEST(CpuResample, LinearModeIsLeftToTheReference) {
  MLContext ref = testing::ref_context();
  auto takes = [&](MLInterpolationMode mode) {
    MLGraphBuilder b(ref);
    MLResample2dOptions o;
    o.mode = mode;
    o.sizes = std::vector<uint32_t>{8, 8};
    MLOperand y = b.resample2d(b.input("x", {MLOperandDataType::kFloat32, {1, 1, 4, 4}}), o);
    const Graph g = b.pruned_graph({{"y", y}});
    const cpu::CompileContext cc{g, std::make_shared<cpu::ThreadPool>(1)};
    return cpu::compile_fast_resample2d(cc, g.operations.back()).has_value();
  };
  EXPECT_TRUE(takes(MLInterpolationMode::kNearestNeighbor));
  EXPECT_FALSE(takes(MLInterpolationMode::kLinear));
}

}  // namespace
}  // namespace cppnn
