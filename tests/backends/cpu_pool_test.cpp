// The cpu backend's pooling kernels (src/backends/cpu/pooling.cpp) against the reference backend
// through the public API: averagePool2d and maxPool2d over windows, strides, padding (windows
// entirely in it too), dilations, rounding, global pooling, large and narrow planes, NaN and
// infinities, one and two threads; and which cases take the fast path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using product_checks::random_values;
using product_checks::takes;
using testing::as;
using testing::to_bytes;
constexpr auto kF32 = MLOperandDataType::kFloat32;

// ---- pooling ----------------------------------------------------------------------------------

struct PoolCase {
  bool max = false;
  uint32_t n = 1, c = 3, h = 9, w = 9;
  std::optional<std::vector<uint32_t>> window = std::vector<uint32_t>{3, 3};
  std::vector<uint32_t> padding{0, 0, 0, 0}, strides{1, 1}, dilations{1, 1};
  MLRoundingType rounding = MLRoundingType::kFloor;
  uint32_t threads = 1;

  std::string name() const {
    std::string s = std::string(max ? "max" : "average") + " n" + std::to_string(n) + " c" +
                    std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w);
    if (window) s += " window " + std::to_string((*window)[0]) + "x" + std::to_string((*window)[1]);
    s += " pad";
    for (uint32_t p : padding) s += " " + std::to_string(p);
    s += " s" + std::to_string(strides[0]) + "," + std::to_string(strides[1]) + " d" +
         std::to_string(dilations[0]) + "," + std::to_string(dilations[1]) +
         (rounding == MLRoundingType::kCeil ? " ceil" : " floor") + " threads" +
         std::to_string(threads);
    return s;
  }
};

MLGraph pool_graph(MLContext& context, const PoolCase& k) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kF32, {k.n, k.c, k.h, k.w}});
  MLPool2dOptions o;
  if (k.window) o.windowDimensions = *k.window;
  o.padding = k.padding;
  o.strides = k.strides;
  o.dilations = k.dilations;
  o.outputShapeRounding = k.rounding;
  return b.build({{"y", k.max ? b.maxPool2d(x, o) : b.averagePool2d(x, o)}});
}

// Runs the case on both backends: max exactly, average within 1e-6 (both sum in double), NaN
// where the reference has NaN.
void check_pool(const PoolCase& k, const std::vector<float>& x) {
  SCOPED_TRACE(k.name());
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = k.threads});
  MLContext ref = testing::ref_context();
  MLGraph gc = pool_graph(cpu, k), gr = pool_graph(ref, k);
  const auto got = as<float>(testing::run_graph(cpu, gc, {{"x", to_bytes(x)}})["y"]);
  const auto want = as<float>(testing::run_graph(ref, gr, {{"x", to_bytes(x)}})["y"]);
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i) {
    const bool ok = std::isnan(want[i])            ? std::isnan(got[i])
                    : k.max || std::isinf(want[i]) ? got[i] == want[i]
                                                   : std::fabs(got[i] - want[i]) <= 1e-6;
    if (!ok) {
      ADD_FAILURE() << "element " << i << ": cpu " << got[i] << ", reference " << want[i];
      ++bad;
    }
  }
}
void check_pool(const PoolCase& k, std::mt19937& rng) {
  check_pool(k, random_values(size_t(k.n) * k.c * k.h * k.w, rng));
}

class CpuDepthwisePool2d : public ::testing::Test {
 protected:
  std::mt19937 rng_{99};
};

TEST_F(CpuDepthwisePool2d, GlobalPooling) {
  for (bool max : {false, true}) {
    PoolCase k;
    k.max = max;
    k.window.reset();
    for (uint32_t hw : {1u, 3u, 7u, 40u}) {
      k.h = k.w = hw;
      check_pool(k, rng_);
    }
    k.n = 2;
    k.c = 256;
    k.h = k.w = 40;
    k.threads = 2;
    check_pool(k, rng_);
    // A window wider than the input with padding still covers the whole plane once.
    k.n = 1;
    k.c = 3;
    k.h = k.w = 7;
    k.window = std::vector<uint32_t>{9, 8};
    k.padding = {1, 1, 0, 1};
    check_pool(k, rng_);
  }
}

TEST_F(CpuDepthwisePool2d, WindowsStridesAndPadding) {
  for (bool max : {false, true})
    for (uint32_t s : {1u, 2u, 3u})
      for (std::vector<uint32_t> p : std::vector<std::vector<uint32_t>>{
               {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 1}, {2, 0, 1, 2}}) {
        PoolCase k;
        k.max = max;
        k.h = 11;
        k.w = 23;
        k.strides = {s, s};
        k.padding = p;
        check_pool(k, rng_);
      }
}

TEST_F(CpuDepthwisePool2d, RoundingDilationsAndOddWidths) {
  for (bool max : {false, true})
    for (uint32_t w : {1u, 2u, 3u, 7u, 17u, 33u, 67u}) {
      PoolCase k;
      k.max = max;
      k.n = 2;
      k.h = 5;
      k.w = w;
      k.window = std::vector<uint32_t>{2, std::min(w, 3u)};
      k.strides = {2, 2};
      k.rounding = MLRoundingType::kCeil;
      check_pool(k, rng_);
      k.rounding = MLRoundingType::kFloor;
      k.dilations = {2, w >= 5 ? 2u : 1u};
      k.window = std::vector<uint32_t>{2, std::min(w, 2u)};
      check_pool(k, rng_);
    }
}

TEST_F(CpuDepthwisePool2d, LargePlanesSpanSeveralBands) {
  for (bool max : {false, true})
    for (uint32_t s : {1u, 2u}) {
      PoolCase k;
      k.max = max;
      k.c = 2;
      k.h = 200;
      k.w = 301;
      k.padding = {1, 1, 1, 1};
      k.strides = {s, s};
      k.threads = 2;
      check_pool(k, rng_);
    }
}

TEST_F(CpuDepthwisePool2d, WindowsEntirelyInThePadding) {
  // Outputs whose window has no input element: NaN (0/0) for average, -Infinity for max.
  for (bool max : {false, true}) {
    PoolCase k;
    k.max = max;
    k.h = 4;
    k.w = 5;
    k.window = std::vector<uint32_t>{2, 2};
    k.padding = {3, 3, 2, 4};
    check_pool(k, rng_);
  }
}

TEST_F(CpuDepthwisePool2d, NanAndInfinities) {
  for (bool max : {false, true})
    for (bool global : {false, true}) {
      PoolCase k;
      k.max = max;
      k.h = 6;
      k.w = 40;
      if (global) k.window.reset();
      std::vector<float> x = random_values(size_t(k.n) * k.c * k.h * k.w, rng_);
      x[5] = std::numeric_limits<float>::quiet_NaN();
      x[300] = std::numeric_limits<float>::infinity();
      x[600] = -std::numeric_limits<float>::infinity();
      x[610] = std::numeric_limits<float>::infinity();
      check_pool(k, x);
    }
}

// maxPool2d with output rows narrower than 16: 16 planes at a time with the channels in the
// vector lanes (channel_lanes.h), over whole and partial groups of 16 channels, batches,
// windows in the padding, strides, dilations, NaN and infinities, both thread counts.
TEST_F(CpuDepthwisePool2d, MaxOnNarrowPlanesWithChannelsInLanes) {
  struct Shape {
    uint32_t h, w, k, s, d;
    std::vector<uint32_t> padding;
  };
  const Shape shapes[] = {{28, 8, 2, 2, 1, {0, 0, 0, 0}},
                          {10, 10, 5, 1, 1, {2, 2, 2, 2}},
                          {32, 16, 1, 2, 1, {0, 0, 0, 0}},
                          {7, 9, 3, 2, 2, {1, 0, 3, 2}},
                          {4, 5, 2, 1, 1, {3, 3, 2, 4}}};
  size_t i = 0;
  for (uint32_t c : {16u, 40u, 5u})
    for (const Shape& sh : shapes) {
      PoolCase k;
      k.max = true;
      k.n = i % 2 ? 2 : 1;
      k.c = c;
      k.h = sh.h;
      k.w = sh.w;
      k.window = std::vector<uint32_t>{sh.k, sh.k == 1 ? 2u : sh.k};
      k.strides = {sh.s, sh.s};
      k.dilations = {sh.d, sh.d};
      k.padding = sh.padding;
      k.threads = 1 + i % 2;
      ++i;
      std::vector<float> x = random_values(size_t(k.n) * k.c * k.h * k.w, rng_);
      for (size_t j = 7; j < x.size(); j += 97) x[j] = std::numeric_limits<float>::quiet_NaN();
      for (size_t j = 11; j < x.size(); j += 89) x[j] = std::numeric_limits<float>::infinity();
      for (size_t j = 13; j < x.size(); j += 83) x[j] = -std::numeric_limits<float>::infinity();
      check_pool(k, x);
    }
}

TEST_F(CpuDepthwisePool2d, RandomShapesAndOptions) {
  std::uniform_int_distribution<uint32_t> pick(0, 1 << 20);
  auto one_of = [&](std::initializer_list<uint32_t> v) { return v.begin()[pick(rng_) % v.size()]; };
  int done = 0;
  while (done < 120) {
    PoolCase k;
    k.max = pick(rng_) % 2;
    k.n = one_of({1, 2});
    k.c = one_of({1, 2, 5});
    k.h = one_of({1, 2, 3, 6, 17});
    k.w = one_of({1, 2, 3, 7, 17, 33});
    k.window = std::vector<uint32_t>{one_of({1, 2, 3, 5}), one_of({1, 2, 3, 5})};
    for (uint32_t& p : k.padding) p = one_of({0, 0, 1, 2});
    k.strides = {one_of({1, 2, 3}), one_of({1, 2, 3})};
    k.dilations = {one_of({1, 1, 2}), one_of({1, 1, 2})};
    k.rounding = pick(rng_) % 2 ? MLRoundingType::kCeil : MLRoundingType::kFloor;
    k.threads = one_of({1, 2});
    // Only shapes the validation accepts (an output dim of at least 1).
    bool ok = true;
    for (int i = 0; i < 2; ++i) {
      const int64_t in = i ? k.w : k.h, win = (*k.window)[i], d = k.dilations[i];
      const int64_t span = (win - 1) * d + 1;
      if (in + k.padding[2 * i] + k.padding[2 * i + 1] < span) ok = false;
    }
    if (!ok) continue;
    check_pool(k, rng_);
    ++done;
  }
}

TEST_F(CpuDepthwisePool2d, FastPathCases) {
  MLContext ref = testing::ref_context();
  auto pool = [](const cpu::CompileContext& cc, const Operation& op) {
    return cpu::compile_fast_pool2d(cc, op);
  };
  for (bool max : {false, true}) {
    for (auto type : {kF32, MLOperandDataType::kFloat16})
      for (auto layout : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc}) {
        MLGraphBuilder b(ref);
        MLPool2dOptions o;
        o.windowDimensions = std::vector<uint32_t>{3, 3};
        o.layout = layout;
        MLOperand x = b.input("x", {type, {1, 4, 8, 8}});
        const bool fast = takes(b, max ? b.maxPool2d(x, o) : b.averagePool2d(x, o), pool);
        EXPECT_EQ(fast, type == kF32 && layout == MLInputOperandLayout::kNchw);
      }
  }
}

}  // namespace
}  // namespace cppnn
