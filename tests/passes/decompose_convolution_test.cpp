// The decompositions of convTranspose2d, the pooling ops and resample2d
// (src/passes/decompose/{convolution,pooling,resample}.cpp): each graph runs on the minimal
// backend (which must decompose the op into its core ops) and on the reference backend (which runs
// it natively) with the same random data, and the results must agree within a few ULP.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::as;
using testing::run_graph;
using testing::to_bytes;

// An operand of the test graph: a graph input, or a constant (filters, biases).
struct Operand {
  MLOperandDescriptor desc;
  bool constant = false;
};
using BuildFn = std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)>;

// Random bytes for `d`: floats in [-4, 4] (float16 rounded), integers over a small range.
std::vector<std::byte> random_data(const MLOperandDescriptor& d, std::mt19937& rng) {
  size_t n = 1;
  for (uint32_t s : d.shape) n *= s;
  std::uniform_real_distribution<float> real(-4, 4);
  std::uniform_int_distribution<int> small(-100, 100), byte(0, 255);
  std::vector<float> f(n);
  for (float& v : f) v = real(rng);
  switch (d.dataType) {
    case kFloat32:
      return to_bytes(f);
    case kFloat16:
      return to_bytes(testing::half_bits(f));
    case kInt32: {
      std::vector<int32_t> v(n);
      for (int32_t& e : v) e = small(rng);
      return to_bytes(v);
    }
    case kUint8: {
      std::vector<uint8_t> v(n);
      for (uint8_t& e : v) e = static_cast<uint8_t>(byte(rng));
      return to_bytes(v);
    }
    case kInt8: {
      std::vector<int8_t> v(n);
      for (int8_t& e : v) e = static_cast<int8_t>(small(rng));
      return to_bytes(v);
    }
    default:
      break;
  }
  ADD_FAILURE() << "no random data for this type";
  return {};
}

// Builds `fn` over `operands` on `backend` and runs it with `data`; the output's bytes.
std::vector<std::byte> run_on(const std::string& backend, const std::vector<Operand>& operands,
                              const std::vector<std::vector<std::byte>>& data, const BuildFn& fn,
                              MLOperandDescriptor* out_desc) {
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder b(context);
  std::vector<MLOperand> ops;
  std::map<std::string, std::vector<std::byte>> feeds;
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    if (operands[i].constant) {
      ops.push_back(b.constant(operands[i].desc, data[i]));
    } else {
      ops.push_back(b.input(name, operands[i].desc));
      feeds.emplace(name, data[i]);
    }
  }
  const MLOperand y = fn(b, ops);
  *out_desc = y.descriptor();
  const MLGraph graph = b.build({{"y", y}});
  return run_graph(context, graph, feeds).at("y");
}

// The ULP distance of two float32 values (as WPT measures it; NaN matches NaN).
int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  const auto key = [](float v) {
    int32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? -int64_t{bits & 0x7fffffff} : int64_t{bits};
  };
  return std::llabs(key(a) - key(b));
}

// The largest distance between the two results of type `t`: ULP for floats, |a - b| for integers.
int64_t max_distance(MLOperandDataType t, const std::vector<std::byte>& a,
                     const std::vector<std::byte>& b) {
  int64_t worst = 0;
  const auto take = [&worst](int64_t d) { worst = std::max(worst, d); };
  if (t == kFloat32) {
    const auto x = as<float>(a), y = as<float>(b);
    for (size_t i = 0; i < x.size(); ++i) take(ulp_distance(x[i], y[i]));
  } else if (t == kFloat16) {
    const auto x = as<uint16_t>(a), y = as<uint16_t>(b);
    for (size_t i = 0; i < x.size(); ++i) {
      const float fx = half_bits_to_float(x[i]), fy = half_bits_to_float(y[i]);
      if ((std::isnan(fx) && std::isnan(fy)) || fx == fy) continue;
      take(std::isnan(fx) || std::isnan(fy) ? INT64_MAX : std::abs(int{x[i]} - int{y[i]}));
    }
  } else if (t == kInt32) {
    const auto x = as<int32_t>(a), y = as<int32_t>(b);
    for (size_t i = 0; i < x.size(); ++i) take(std::llabs(int64_t{x[i]} - y[i]));
  } else if (t == kUint8) {
    const auto x = as<uint8_t>(a), y = as<uint8_t>(b);
    for (size_t i = 0; i < x.size(); ++i) take(std::abs(int{x[i]} - int{y[i]}));
  } else if (t == kInt8) {
    const auto x = as<int8_t>(a), y = as<int8_t>(b);
    for (size_t i = 0; i < x.size(); ++i) take(std::abs(int{x[i]} - int{y[i]}));
  } else {
    ADD_FAILURE() << "no comparison for this type";
  }
  return worst;
}

// Runs `fn` on the minimal and the reference backends with the same random data and expects the
// same output descriptor and results within `ulp` (integers: exactly equal with ulp 0).
void expect_matches_reference(const std::vector<Operand>& operands, const BuildFn& fn, int64_t ulp,
                              uint32_t seed = 1) {
  std::mt19937 rng(seed);
  std::vector<std::vector<std::byte>> data;
  for (const Operand& o : operands) data.push_back(random_data(o.desc, rng));
  MLOperandDescriptor got, want;
  const auto minimal = run_on("minimal", operands, data, fn, &got);
  const auto reference = run_on("reference", operands, data, fn, &want);
  ASSERT_EQ(got, want);
  EXPECT_LE(max_distance(want.dataType, minimal, reference), ulp) << to_string(want);
}

// A 4-D descriptor.
MLOperandDescriptor desc(MLOperandDataType t, std::vector<uint32_t> shape) {
  return {t, std::move(shape)};
}

// ---- convTranspose2d ----

// convTranspose2d of input 0 by filter 1 (and bias 2 when given) with `o`.
BuildFn conv_transpose(MLConvTranspose2dOptions o) {
  return [o](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    MLConvTranspose2dOptions options = o;
    if (in.size() > 2) options.bias = in[2];
    return b.convTranspose2d(in[0], in[1], options);
  };
}

TEST(DecomposeConvTranspose2d, DefaultOptions) {
  expect_matches_reference({{desc(kFloat32, {1, 2, 3, 4})}, {desc(kFloat32, {2, 3, 3, 2}), true}},
                           conv_transpose({}), 1);
}

TEST(DecomposeConvTranspose2d, StridesPaddingDilationsOutputPadding) {
  expect_matches_reference({{desc(kFloat32, {2, 3, 4, 5})}, {desc(kFloat32, {3, 2, 3, 3}), true}},
                           conv_transpose({.padding = {1, 2, 0, 1},
                                           .strides = {2, 3},
                                           .dilations = {2, 1},
                                           .outputPadding = {1, 2}}),
                           1);
}

TEST(DecomposeConvTranspose2d, PaddingLargerThanTheWindowCropsTheOutput) {
  expect_matches_reference({{desc(kFloat32, {1, 1, 5, 5})}, {desc(kFloat32, {1, 2, 2, 2}), true}},
                           conv_transpose({.padding = {3, 2, 4, 1}, .strides = {3, 2}}), 1);
}

TEST(DecomposeConvTranspose2d, GroupsNhwcHwoiWithBias) {
  expect_matches_reference(
      {{desc(kFloat32, {1, 3, 4, 6})},
       {desc(kFloat32, {3, 2, 2, 6}), true},
       {desc(kFloat32, {4}), true}},
      conv_transpose({.padding = {0, 1, 1, 0},
                      .strides = {2, 2},
                      .groups = 2,
                      .inputLayout = MLInputOperandLayout::kNhwc,
                      .filterLayout = MLConvTranspose2dFilterOperandLayout::kHwoi}),
      1);
}

TEST(DecomposeConvTranspose2d, OutputSizesOhwiGroupsFloat16) {
  expect_matches_reference(
      {{desc(kFloat16, {2, 6, 3, 3})},
       {desc(kFloat16, {2, 3, 2, 6}), true},
       {desc(kFloat16, {6}), true}},
      conv_transpose({.strides = {3, 2},
                      .dilations = {1, 2},
                      .outputSizes = {10, 8},
                      .groups = 3,
                      .filterLayout = MLConvTranspose2dFilterOperandLayout::kOhwi}),
      1);
}

TEST(DecomposeConvTranspose2d, FilterAsGraphInput) {
  expect_matches_reference(
      {{desc(kFloat32, {1, 4, 3, 3})}, {desc(kFloat32, {4, 1, 3, 3})}},
      conv_transpose({.padding = {1, 1, 1, 1}, .strides = {2, 2}, .groups = 4}), 1);
}

// ---- pooling ----

using PoolMethod = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLPool2dOptions&);

BuildFn pool(PoolMethod method, MLPool2dOptions o) {
  return [method, o](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return (b.*method)(in[0], o);
  };
}

// Every pooling op over the same option sets, with `ulp` for the float sums.
void expect_pools_match(const Operand& input, const MLPool2dOptions& o, int64_t ulp) {
  expect_matches_reference({input}, pool(&MLGraphBuilder::averagePool2d, o), ulp);
  expect_matches_reference({input}, pool(&MLGraphBuilder::l2Pool2d, o), ulp);
  expect_matches_reference({input}, pool(&MLGraphBuilder::maxPool2d, o), 0);
}

TEST(DecomposePool2d, WholeInputWindowByDefault) {
  expect_pools_match({desc(kFloat32, {2, 3, 5, 4})}, {}, 2);
  expect_pools_match({desc(kFloat16, {1, 4, 3, 3})}, {.layout = MLInputOperandLayout::kNhwc}, 1);
}

TEST(DecomposePool2d, WindowPaddingStridesDilations) {
  expect_pools_match(
      {desc(kFloat32, {1, 2, 7, 8})},
      {.windowDimensions = {3, 2}, .padding = {1, 2, 0, 1}, .strides = {2, 3}, .dilations = {2, 1}},
      2);
}

TEST(DecomposePool2d, NhwcCeilRoundingFloat16) {
  expect_pools_match({desc(kFloat16, {2, 6, 7, 3})},
                     {.windowDimensions = {3, 3},
                      .strides = {2, 2},
                      .layout = MLInputOperandLayout::kNhwc,
                      .outputShapeRounding = MLRoundingType::kCeil},
                     1);
}

TEST(DecomposePool2d, OutputSizesPickCeil) {
  // floor gives [3, 3], ceil [4, 4].
  expect_pools_match({desc(kFloat32, {1, 3, 6, 6})},
                     {.windowDimensions = {2, 2},
                      .padding = {1, 0, 0, 1},
                      .strides = {2, 2},
                      .outputSizes = {4, 4}},
                     2);
}

TEST(DecomposePool2d, PaddingBeyondTheInputGivesEmptyWindows) {
  // Padding of 3 around a 2x2 input with a 2x2 window and stride 2: the corner windows read only
  // padding (averagePool2d 0/0 = NaN, maxPool2d -Infinity, l2Pool2d 0).
  expect_pools_match({desc(kFloat32, {1, 1, 2, 2})},
                     {.windowDimensions = {2, 2}, .padding = {3, 3, 3, 3}, .strides = {2, 2}}, 2);
}

TEST(DecomposePool2d, MaxPoolIntegerTypes) {
  const MLPool2dOptions o{.windowDimensions = {2, 3},
                          .padding = {1, 1, 1, 1},
                          .strides = {1, 2},
                          .outputShapeRounding = MLRoundingType::kCeil};
  for (MLOperandDataType t : {kInt32, kUint8, kInt8})
    expect_matches_reference({{desc(t, {1, 2, 4, 5})}}, pool(&MLGraphBuilder::maxPool2d, o), 0);
}

TEST(DecomposePool2d, AveragePoolExcludesPadding) {
  // 1..9 in a 3x3 input, 2x2 windows with padding 1 and stride 2: the windows hold {1},
  // {2, 3}, {4, 7} and {5, 6, 8, 9}.
  MLContext context = MLContext::create({.backend = "minimal"});
  MLGraphBuilder b(context);
  const MLOperand x = b.input("x", desc(kFloat32, {1, 1, 3, 3}));
  const MLOperand y =
      b.averagePool2d(x, {.windowDimensions = {2, 2}, .padding = {1, 1, 1, 1}, .strides = {2, 2}});
  const MLGraph graph = b.build({{"y", y}});
  const auto out =
      run_graph(context, graph, {{"x", to_bytes(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 2.5f, 5.5f, 7}));
}

TEST(DecomposePool2d, MaxPoolPropagatesNaN) {
  MLContext context = MLContext::create({.backend = "minimal"});
  MLGraphBuilder b(context);
  const MLOperand x = b.input("x", desc(kFloat32, {1, 1, 2, 3}));
  const MLOperand y = b.maxPool2d(x, {.windowDimensions = {2, 2}});
  const MLGraph graph = b.build({{"y", y}});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto out = as<float>(
      run_graph(context, graph, {{"x", to_bytes(std::vector<float>{1, nan, 3, 4, 5, 2})}}).at("y"));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
}

// ---- resample2d ----

BuildFn resample(MLResample2dOptions o) {
  return
      [o](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return b.resample2d(in[0], o); };
}

TEST(DecomposeResample2d, NearestNeighborScalesAndSizes) {
  expect_matches_reference({{desc(kFloat32, {1, 2, 3, 4})}}, resample({.scales = {2.0f, 1.5f}}), 0);
  expect_matches_reference({{desc(kFloat16, {2, 7, 5, 3})}},
                           resample({.sizes = {3, 4}, .axes = {1, 2}}), 0);
  expect_matches_reference({{desc(kUint8, {3, 2, 4, 5})}},
                           resample({.sizes = {7, 2}, .axes = {3, 0}}), 0);
}

TEST(DecomposeResample2d, LinearFloat32) {
  // Three float32 roundings per axis against one of the double result: where the two taps
  // nearly cancel, the few-ULP errors of the terms are many ULP of the result, so the bound is
  // WPT's resample2d linear tolerance.
  const auto linear = MLInterpolationMode::kLinear;
  constexpr int64_t kWptUlp = 84;
  expect_matches_reference({{desc(kFloat32, {1, 2, 3, 4})}},
                           resample({.mode = linear, .scales = {2.0f, 2.0f}}), kWptUlp);
  expect_matches_reference({{desc(kFloat32, {2, 5, 7, 3})}},
                           resample({.mode = linear, .sizes = {3, 11}, .axes = {1, 2}}), kWptUlp);
  expect_matches_reference({{desc(kFloat32, {3, 6, 2, 2})}},
                           resample({.mode = linear, .scales = {0.5f, 3.0f}, .axes = {1, 0}}),
                           kWptUlp);
}

TEST(DecomposeResample2d, LinearFloat16AndIntegers) {
  const auto linear = MLInterpolationMode::kLinear;
  expect_matches_reference({{desc(kFloat16, {1, 3, 5, 4})}},
                           resample({.mode = linear, .sizes = {8, 9}}), 2);
  // Scale 2 and 0.5 weights are exact binary fractions: ties round half to even exactly.
  expect_matches_reference({{desc(kUint8, {1, 2, 4, 6})}},
                           resample({.mode = linear, .scales = {2.0f, 0.5f}}), 0);
  expect_matches_reference({{desc(kInt8, {2, 3, 3, 2})}},
                           resample({.mode = linear, .scales = {2.0f, 4.0f}, .axes = {1, 2}}), 0);
}

TEST(DecomposeResample2d, LinearKeepsInfinityAtExactTaps) {
  // Upsampling 2 -> 3 along the width puts the middle output at x_in = 0.5 and the outer ones at
  // exact input positions: an Infinity must stay Infinity there (not Inf·0 = NaN).
  MLContext context = MLContext::create({.backend = "minimal"});
  MLGraphBuilder b(context);
  const MLOperand x = b.input("x", desc(kFloat32, {1, 1, 1, 2}));
  const MLOperand y = b.resample2d(x, {.mode = MLInterpolationMode::kLinear, .sizes = {1, 3}});
  const MLGraph graph = b.build({{"y", y}});
  const float inf = std::numeric_limits<float>::infinity();
  const auto out =
      as<float>(run_graph(context, graph, {{"x", to_bytes(std::vector<float>{2, inf})}}).at("y"));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], inf);
  EXPECT_EQ(out[2], inf);
}

}  // namespace
}  // namespace cppnn
