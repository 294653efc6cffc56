// The cpu backend's depthwise conv2d kernels (src/backends/cpu/depthwise.cpp, depthwise_lanes.cpp)
// against the reference backend through the public API, on random data over many shapes and
// options: padding (asymmetric, wider than the window), strides, dilations, odd, tiny and narrow
// planes, batches, channel multipliers, every filter layout, bias constant, input or absent,
// fused activations, NaN and infinities; and which cases take the fast path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/convolution_params.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using product_checks::random_values;
using product_checks::takes;
using testing::as;
using testing::to_bytes;
constexpr auto kF32 = MLOperandDataType::kFloat32;

// ---- depthwise conv2d -----------------------------------------------------------------------

enum class Bias { kNone, kConstant, kInput };
enum class Act { kNone, kRelu, kClamp, kLeakyRelu, kSigmoid };

struct ConvCase {
  uint32_t n = 1, c = 4, multiplier = 1, h = 9, w = 9, kh = 3, kw = 3;
  std::vector<uint32_t> padding{1, 1, 1, 1}, strides{1, 1}, dilations{1, 1};
  MLConv2dFilterOperandLayout layout = MLConv2dFilterOperandLayout::kOihw;
  Bias bias = Bias::kConstant;
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    std::string s = "n" + std::to_string(n) + " c" + std::to_string(c) + "x" +
                    std::to_string(multiplier) + " " + std::to_string(h) + "x" + std::to_string(w) +
                    " k" + std::to_string(kh) + "x" + std::to_string(kw) + " pad";
    for (uint32_t p : padding) s += " " + std::to_string(p);
    s += " s" + std::to_string(strides[0]) + "," + std::to_string(strides[1]) + " d" +
         std::to_string(dilations[0]) + "," + std::to_string(dilations[1]) + " layout" +
         std::to_string(int(layout)) + " bias" + std::to_string(int(bias)) + " act" +
         std::to_string(int(act)) + " threads" + std::to_string(threads);
    return s;
  }
  uint32_t cout() const { return c * multiplier; }
  // The output size of one dimension (0 when the window does not fit).
  static uint32_t out_dim(uint32_t in, uint32_t k, uint32_t pb, uint32_t pe, uint32_t s,
                          uint32_t d) {
    const int64_t span = int64_t(k - 1) * d + 1, total = int64_t(in) + pb + pe;
    return total < span ? 0 : uint32_t((total - span) / s + 1);
  }
  bool valid() const {
    return out_dim(h, kh, padding[0], padding[1], strides[0], dilations[0]) > 0 &&
           out_dim(w, kw, padding[2], padding[3], strides[1], dilations[1]) > 0;
  }
};

// The case's data: the filter logically [Cout][kh][kw] and its bytes in the case's layout.
struct ConvData {
  std::vector<float> x, filter, filter_in_layout, bias;
  Dims filter_shape;
};

ConvData conv_data(const ConvCase& k, std::mt19937& rng) {
  ConvData d;
  d.x = random_values(size_t(k.n) * k.c * k.h * k.w, rng);
  d.filter = random_values(size_t(k.cout()) * k.kh * k.kw, rng);
  d.bias = random_values(k.cout(), rng);
  const FilterAxes a = conv2d_filter_axes(k.layout);
  d.filter_shape.assign(4, 0);
  d.filter_shape[a.out_channels] = k.cout();
  d.filter_shape[a.in_channels] = 1;
  d.filter_shape[a.height] = k.kh;
  d.filter_shape[a.width] = k.kw;
  size_t stride[4];
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * d.filter_shape[i + 1];
  d.filter_in_layout.resize(d.filter.size());
  for (size_t o = 0; o < k.cout(); ++o)
    for (size_t y = 0; y < k.kh; ++y)
      for (size_t x = 0; x < k.kw; ++x)
        d.filter_in_layout[o * stride[a.out_channels] + y * stride[a.height] +
                           x * stride[a.width]] = d.filter[(o * k.kh + y) * k.kw + x];
  return d;
}

// The case's graph on `context`: conv2d (+ activation), output "y".
MLGraph conv_graph(MLContext& context, const ConvCase& k, const ConvData& d) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kF32, {k.n, k.c, k.h, k.w}});
  MLOperand filter = b.constant({kF32, d.filter_shape}, to_bytes(d.filter_in_layout));
  MLConv2dOptions o;
  o.padding = k.padding;
  o.strides = k.strides;
  o.dilations = k.dilations;
  o.groups = k.c;
  o.filterLayout = k.layout;
  if (k.bias == Bias::kConstant) o.bias = b.constant({kF32, {k.cout()}}, to_bytes(d.bias));
  if (k.bias == Bias::kInput) o.bias = b.input("b", {kF32, {k.cout()}});
  MLOperand y = b.conv2d(x, filter, o);
  switch (k.act) {
    case Act::kNone:
      break;
    case Act::kRelu:
      y = b.relu(y);
      break;
    case Act::kClamp: {
      MLClampOptions c;
      c.minValue = MLNumber(-0.25);
      c.maxValue = MLNumber(0.5);
      y = b.clamp(y, c);
      break;
    }
    case Act::kLeakyRelu: {
      MLLeakyReluOptions l;
      l.alpha = 0.1;
      y = b.leakyRelu(y, l);
      break;
    }
    case Act::kSigmoid:
      y = b.sigmoid(y);
      break;
  }
  return b.build({{"y", y}});
}

// Runs the case on the cpu and reference backends and compares every output element within
// 1e-5 of a bound on the sum of |products| + |bias| of its channel (inputs are in [-1, 1]).
void check_conv(const ConvCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.name());
  ASSERT_TRUE(k.valid());
  const ConvData d = conv_data(k, rng);
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = k.threads});
  MLContext ref = testing::ref_context();
  std::map<std::string, std::vector<std::byte>> inputs{{"x", to_bytes(d.x)}};
  if (k.bias == Bias::kInput) inputs.emplace("b", to_bytes(d.bias));
  MLGraph gc = conv_graph(cpu, k, d), gr = conv_graph(ref, k, d);
  const std::vector<float> got = as<float>(testing::run_graph(cpu, gc, inputs)["y"]);
  const std::vector<float> want = as<float>(testing::run_graph(ref, gr, inputs)["y"]);
  ASSERT_EQ(got.size(), want.size());
  const size_t plane = want.size() / (size_t(k.n) * k.cout());
  size_t bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i) {
    const size_t oc = i / plane % k.cout();
    double bound = k.bias == Bias::kNone ? 0 : std::fabs(d.bias[oc]);
    for (size_t t = 0; t < size_t(k.kh) * k.kw; ++t)
      bound += std::fabs(d.filter[oc * k.kh * k.kw + t]);
    if (std::isnan(want[i]) ? !std::isnan(got[i])
                            : !(std::fabs(got[i] - want[i]) <= 1e-5 * bound + 1e-30)) {
      ADD_FAILURE() << "element " << i << ": cpu " << got[i] << ", reference " << want[i];
      ++bad;
    }
  }
}

class CpuDepthwiseConv2d : public ::testing::Test {
 protected:
  std::mt19937 rng_{1234};
};

TEST_F(CpuDepthwiseConv2d, ThreeByThreeStridesOneAndTwo) {
  for (uint32_t s : {1u, 2u})
    for (uint32_t w : {1u, 2u, 3u, 7u, 17u, 33u, 70u, 130u}) {
      ConvCase k;
      k.w = w;
      k.h = std::max(w / 2, 1u);
      k.strides = {s, s};
      check_conv(k, rng_);
    }
}

TEST_F(CpuDepthwiseConv2d, FiveByFiveWithPaddingTwo) {
  for (uint32_t s : {1u, 2u})
    for (uint32_t w : {3u, 7u, 17u, 33u, 65u}) {
      ConvCase k;
      k.kh = k.kw = 5;
      k.h = 11;
      k.w = w;
      k.padding = {2, 2, 2, 2};
      k.strides = {s, s};
      check_conv(k, rng_);
    }
}

// Output rows narrower than 16 with one filter per channel: the channels-in-lanes kernel
// (depthwise_lanes.h), over whole and partial groups of 16 channels, batches, strides, dilations,
// asymmetric padding, bias kinds, activations and both thread counts.
TEST_F(CpuDepthwiseConv2d, NarrowPlanesWithChannelsInLanes) {
  struct Shape {
    uint32_t h, w, k, s, d;
    std::vector<uint32_t> padding;
  };
  const Shape shapes[] = {{14, 14, 5, 1, 1, {2, 2, 2, 2}}, {14, 14, 5, 2, 1, {2, 2, 2, 2}},
                          {7, 7, 5, 1, 1, {2, 2, 2, 2}},   {28, 28, 3, 2, 1, {1, 1, 1, 1}},
                          {9, 5, 3, 1, 2, {0, 2, 3, 1}},   {20, 1, 3, 1, 1, {1, 1, 0, 0}}};
  size_t i = 0;
  for (uint32_t c : {16u, 40u, 7u})
    for (const Shape& sh : shapes) {
      ConvCase k;
      k.n = i % 3 == 0 ? 2 : 1;
      k.c = c;
      k.h = sh.h;
      k.w = sh.w;
      k.kh = sh.k;
      k.kw = sh.w == 1 ? 1 : sh.k;
      k.strides = {sh.s, sh.s};
      k.dilations = {sh.d, sh.d};
      k.padding = sh.padding;
      k.bias = Bias(i % 3);
      k.act = Act(i % 5);
      k.threads = 1 + i % 2;
      ++i;
      check_conv(k, rng_);
    }
}

TEST_F(CpuDepthwiseConv2d, AsymmetricAndWidePadding) {
  for (std::vector<uint32_t> p : std::vector<std::vector<uint32_t>>{
           {0, 1, 0, 1}, {1, 0, 2, 0}, {0, 0, 0, 0}, {3, 4, 5, 2}, {0, 2, 3, 1}}) {
    for (uint32_t s : {1u, 2u, 3u}) {
      ConvCase k;
      k.h = 8;
      k.w = 13;
      k.padding = p;
      k.strides = {s, s};
      check_conv(k, rng_);
    }
  }
}

TEST_F(CpuDepthwiseConv2d, DilationsAndMixedStrides) {
  for (std::vector<uint32_t> dil : std::vector<std::vector<uint32_t>>{{2, 2}, {1, 3}, {2, 1}})
    for (std::vector<uint32_t> st :
         std::vector<std::vector<uint32_t>>{{1, 1}, {2, 2}, {1, 2}, {2, 3}}) {
      ConvCase k;
      k.h = 12;
      k.w = 19;
      k.padding = {2, 1, 2, 3};
      k.dilations = dil;
      k.strides = st;
      check_conv(k, rng_);
    }
}

TEST_F(CpuDepthwiseConv2d, TinyPlanesBatchesAndMultipliers) {
  for (uint32_t hw : {1u, 2u, 3u})
    for (uint32_t m : {1u, 2u, 3u}) {
      ConvCase k;
      k.n = 2;
      k.c = 3;
      k.multiplier = m;
      k.h = hw;
      k.w = hw;
      check_conv(k, rng_);
    }
  ConvCase one_channel;  // groups == 1 == Cin: a multiplier of Cout
  one_channel.c = 1;
  one_channel.multiplier = 6;
  check_conv(one_channel, rng_);
}

TEST_F(CpuDepthwiseConv2d, FilterLayoutsAndBiasKinds) {
  using L = MLConv2dFilterOperandLayout;
  for (L layout : {L::kOihw, L::kHwio, L::kOhwi, L::kIhwo})
    for (Bias bias : {Bias::kNone, Bias::kConstant, Bias::kInput}) {
      ConvCase k;
      k.multiplier = 2;
      k.layout = layout;
      k.bias = bias;
      k.h = 6;
      k.w = 11;
      check_conv(k, rng_);
    }
}

TEST_F(CpuDepthwiseConv2d, FusedActivationsAndThreads) {
  for (Act act : {Act::kRelu, Act::kClamp, Act::kLeakyRelu, Act::kSigmoid})
    for (uint32_t threads : {1u, 2u, 3u}) {
      ConvCase k;
      k.n = 2;
      k.c = 7;
      k.h = 20;
      k.w = 37;
      k.act = act;
      k.threads = threads;
      k.strides = {threads == 2 ? 2u : 1u, threads == 2 ? 2u : 1u};
      check_conv(k, rng_);
    }
}

TEST_F(CpuDepthwiseConv2d, LargePlanesSpanSeveralBands) {
  ConvCase k;
  k.c = 2;
  k.h = 150;
  k.w = 300;
  k.threads = 2;
  check_conv(k, rng_);
  k.strides = {2, 2};
  k.kh = k.kw = 5;
  k.padding = {2, 2, 2, 2};
  check_conv(k, rng_);
}

TEST_F(CpuDepthwiseConv2d, RandomShapesAndOptions) {
  std::uniform_int_distribution<uint32_t> pick(0, 1 << 20);
  auto one_of = [&](std::initializer_list<uint32_t> v) { return v.begin()[pick(rng_) % v.size()]; };
  int done = 0;
  while (done < 150) {
    ConvCase k;
    k.n = one_of({1, 1, 2});
    k.c = one_of({1, 2, 3, 5});
    k.multiplier = one_of({1, 1, 1, 2});
    k.h = one_of({1, 2, 3, 5, 7, 17});
    k.w = one_of({1, 2, 3, 7, 17, 33});
    k.kh = one_of({1, 2, 3, 5});
    k.kw = one_of({1, 2, 3, 5});
    for (uint32_t& p : k.padding) p = one_of({0, 0, 1, 2, 3});
    k.strides = {one_of({1, 2, 3}), one_of({1, 2, 3})};
    k.dilations = {one_of({1, 1, 2}), one_of({1, 1, 2})};
    k.layout = MLConv2dFilterOperandLayout(one_of({0, 1, 2, 3}));
    k.bias = Bias(one_of({0, 1, 2}));
    k.act = Act(one_of({0, 0, 1, 2, 3, 4}));
    k.threads = one_of({1, 2});
    if (!k.valid()) continue;
    check_conv(k, rng_);
    ++done;
  }
}

TEST_F(CpuDepthwiseConv2d, NanAndInfinityInTheInput) {
  ConvCase k;
  k.h = 7;
  k.w = 19;
  const ConvData d = conv_data(k, rng_);
  ConvData e = d;
  e.x[3] = std::numeric_limits<float>::quiet_NaN();
  e.x[40] = std::numeric_limits<float>::infinity();
  e.x[200] = -std::numeric_limits<float>::infinity();
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = 1});
  MLContext ref = testing::ref_context();
  MLGraph gc = conv_graph(cpu, k, e), gr = conv_graph(ref, k, e);
  const auto got = as<float>(testing::run_graph(cpu, gc, {{"x", to_bytes(e.x)}})["y"]);
  const auto want = as<float>(testing::run_graph(ref, gr, {{"x", to_bytes(e.x)}})["y"]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isfinite(want[i]))
      EXPECT_NEAR(got[i], want[i], 1e-4) << i;
    else if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << i;
    else
      EXPECT_EQ(got[i], want[i]) << i;
  }
}

// ---- which cases the fast kernels take ---------------------------------------------------------

TEST_F(CpuDepthwiseConv2d, FastPathCases) {
  MLContext ref = testing::ref_context();
  auto depthwise = [](const cpu::CompileContext& cc, const Operation& op) {
    return cpu::compile_fast_depthwise_conv2d(cc, op);
  };
  auto conv = [&](MLOperandDataType type, uint32_t c, uint32_t groups, bool constant_filter,
                  MLInputOperandLayout layout, float w0) {
    MLGraphBuilder b(ref);
    const bool nhwc = layout == MLInputOperandLayout::kNhwc;
    MLOperand x = b.input("x", {type, nhwc ? Dims{1, 8, 8, c} : Dims{1, c, 8, 8}});
    const MLOperandDescriptor fd{type, {c, c / groups, 3, 3}};
    std::vector<float> w(size_t(c) * (c / groups) * 9, 0.5f);
    w[0] = w0;
    MLOperand filter = !constant_filter ? b.input("w", fd)
                       : type == kF32   ? b.constant(fd, to_bytes(w))
                                        : b.constant(fd, to_bytes(testing::half_bits(w)));
    MLConv2dOptions o;
    o.groups = groups;
    o.inputLayout = layout;
    return takes(b, b.conv2d(x, filter, o), depthwise);
  };
  const auto nchw = MLInputOperandLayout::kNchw, nhwc = MLInputOperandLayout::kNhwc;
  EXPECT_TRUE(conv(kF32, 4, 4, true, nchw, 1.0f));
  EXPECT_TRUE(conv(kF32, 1, 1, true, nchw, 1.0f));
  EXPECT_FALSE(conv(kF32, 4, 1, true, nchw, 1.0f));  // not depthwise
  EXPECT_FALSE(conv(kF32, 4, 2, true, nchw, 1.0f));  // grouped, 2 channels per group
  EXPECT_FALSE(conv(kF32, 4, 4, false, nchw, 1.0f));
  EXPECT_FALSE(conv(kF32, 4, 4, true, nhwc, 1.0f));
  EXPECT_FALSE(conv(MLOperandDataType::kFloat16, 4, 4, true, nchw, 1.0f));
  EXPECT_FALSE(conv(kF32, 4, 4, true, nchw, std::numeric_limits<float>::infinity()));
}

}  // namespace
}  // namespace cppnn
