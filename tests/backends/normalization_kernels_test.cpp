// Reference kernels of batchNormalization, instanceNormalization and layerNormalization (§2 rows
// 3, 57, 58).
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/backends/ref_test_fixture.h"

namespace cppnn::testing {
namespace {

using RefNormalizationTest = RefGraphTest;

// (x − mean)/√(var + ε)·scale + bias in double, rounded to float.
float normalized(double x, double mean, double var, double eps, double scale = 1, double bias = 0) {
  return static_cast<float>((x - mean) / std::sqrt(var + eps) * scale + bias);
}

// ---- batchNormalization -------------------------------------------------------------------------

// Channel axis 1 (the default) of [1, 2, 2]: channel 0 = {1, 3}, channel 1 = {2, 4}.
TEST_F(RefNormalizationTest, BatchNormalizationDefaultAxis) {
  const MLOperand x = f32({1, 2, 2}, {1, 3, 2, 4});
  const MLOperand mean = f32({2}, {0, 1});
  const MLOperand var = f32({2}, {4, 0.25});
  const MLOperand scale = f32({2}, {2, 3});
  const MLOperand bias = f32({2}, {1, -1});
  const auto r = run({{"plain", builder.batchNormalization(x, mean, var, {.epsilon = 0})},
                      {"affine", builder.batchNormalization(
                                     x, mean, var, {.scale = scale, .bias = bias, .epsilon = 0})},
                      {"eps", builder.batchNormalization(x, mean, var)}});
  ExpectFloats(as<float>(r.at("plain")), {0.5, 1.5, 2, 6});
  ExpectFloats(as<float>(r.at("affine")), {2, 4, 5, 17});
  // ε = 1e-5 rounded to float32.
  const double eps = static_cast<float>(1e-5);
  ExpectFloats(as<float>(r.at("eps")), {normalized(1, 0, 4, eps), normalized(3, 0, 4, eps),
                                        normalized(2, 1, 0.25, eps), normalized(4, 1, 0.25, eps)});
}

// axis 2 of [1, 2, 2]: channel = last index.
TEST_F(RefNormalizationTest, BatchNormalizationLastAxis) {
  const MLOperand x = f32({1, 2, 2}, {1, 3, 2, 4});
  const MLOperand y = builder.batchNormalization(
      x, f32({2}, {1, 2}), f32({2}, {1, 4}), {.bias = f32({2}, {10, 20}), .axis = 2, .epsilon = 0});
  ExpectFloats(run1<float>(y), {10, 20.5, 11, 21});
}

TEST_F(RefNormalizationTest, BatchNormalizationFloat16) {
  const MLOperand x = f16_input({2, 1}, {3, 5});
  const MLOperand y = builder.batchNormalization(x, f16_input({1}, {1}), f16_input({1}, {3}),
                                                 {.scale = f16_input({1}, {0.5})});
  // ε is cast to float16 first (§3.6).
  const double eps = f16(h16(1e-5));
  ExpectFloats(run_f16(y), {f16(h16((3 - 1) / std::sqrt(3 + eps) * 0.5)),
                            f16(h16((5 - 1) / std::sqrt(3 + eps) * 0.5))});
}

// ---- instanceNormalization ----------------------------------------------------------------------

// nchw [1, 2, 1, 2]: channel 0 = {1, 3} (mean 2, variance 1), channel 1 = {2, 6} (4, 4).
TEST_F(RefNormalizationTest, InstanceNormalizationNchw) {
  const MLOperand x = f32({1, 2, 1, 2}, {1, 3, 2, 6});
  const auto r = run(
      {{"plain", builder.instanceNormalization(x, {.epsilon = 0})},
       {"affine", builder.instanceNormalization(
                      x, {.scale = f32({2}, {2, 3}), .bias = f32({2}, {1, -1}), .epsilon = 0})}});
  ExpectFloats(as<float>(r.at("plain")), {-1, 1, -1, 1});
  ExpectFloats(as<float>(r.at("affine")), {-1, 3, -4, 2});
}

// The same data in nhwc [1, 1, 2, 2]: channels interleaved.
TEST_F(RefNormalizationTest, InstanceNormalizationNhwc) {
  const MLOperand x = f32({1, 1, 2, 2}, {1, 2, 3, 6});
  const MLOperand y = builder.instanceNormalization(x, {.scale = f32({2}, {2, 3}),
                                                        .bias = f32({2}, {1, -1}),
                                                        .epsilon = 0,
                                                        .layout = MLInputOperandLayout::kNhwc});
  ExpectFloats(run1<float>(y), {-1, -4, 3, 2});
}

// Two batches, default ε; the mean and variance are per (n, c).
TEST_F(RefNormalizationTest, InstanceNormalizationBatches) {
  const MLOperand x = f32({2, 1, 2, 1}, {0, 2, 10, 30});
  const double eps = static_cast<float>(1e-5);
  ExpectFloats(run1<float>(builder.instanceNormalization(x)),
               {normalized(0, 1, 1, eps), normalized(2, 1, 1, eps), normalized(10, 20, 100, eps),
                normalized(30, 20, 100, eps)});
}

// WPT instance-normalization-zero-epsilon.json, float16 nchw with affine: tiny values whose
// variance underflows float16 but not double.
TEST_F(RefNormalizationTest, InstanceNormalizationZeroEpsilonFloat16) {
  const double a = 5.960464477539063e-08, b = 1.1920928955078125e-07;
  const MLOperand x = f16_input({1, 2, 2, 2}, {a, -a, a, -a, b, -b, b, -b});
  const MLOperand y = builder.instanceNormalization(
      x, {.scale = f16_input({2}, {0.5, 2}), .bias = f16_input({2}, {0.25, -0.5}), .epsilon = 0});
  ExpectFloats(run_f16(y), {0.75, -0.25, 0.75, -0.25, 1.5, -2.5, 1.5, -2.5});
}

// ---- layerNormalization -------------------------------------------------------------------------

// Default axes [1..rank-1]: each row of [2, 2] separately.
TEST_F(RefNormalizationTest, LayerNormalizationDefaultAxes) {
  const MLOperand x = f32({2, 2}, {1, 3, 2, 6});
  ExpectFloats(run1<float>(builder.layerNormalization(x, {.epsilon = 0})), {-1, 1, -1, 1});
}

// axes [2, 1] of [1, 2, 3]: scale and bias have shape [3, 2], so element (0, h, w) uses
// scale[w][h].
TEST_F(RefNormalizationTest, LayerNormalizationAxesOrderShapesScale) {
  const std::vector<float> data{0, 1, 2, 3, 4, 5};
  const std::vector<float> scale{1, 2, 3, 4, 5, 6}, bias{0.5, -0.5, 1.5, -1.5, 2.5, -2.5};
  const MLOperand x = f32({1, 2, 3}, data);
  const MLOperand y = builder.layerNormalization(
      x, {.scale = f32({3, 2}, scale), .bias = f32({3, 2}, bias), .axes = {2, 1}});
  const double eps = static_cast<float>(1e-5), mean = 2.5, var = 17.5 / 6;
  std::vector<float> expected(6);
  for (size_t h = 0; h < 2; ++h)
    for (size_t w = 0; w < 3; ++w)
      expected[h * 3 + w] =
          normalized(data[h * 3 + w], mean, var, eps, scale[w * 2 + h], bias[w * 2 + h]);
  ExpectFloats(run1<float>(y), expected);
}

// A scalar (axes default to []) and empty axes: every group is one element, so x − mean is 0
// and the result is the bias.
TEST_F(RefNormalizationTest, LayerNormalizationEmptyGroups) {
  const MLOperand s = f32({}, {7});
  const MLOperand x = f16_input({2}, {3, -4});
  const auto r = run({{"scalar", builder.layerNormalization(s, {.bias = f32({}, {2.5})})},
                      {"empty", builder.layerNormalization(x, {.scale = f16_input({}, {9}),
                                                               .axes = std::vector<uint32_t>{}})}});
  ExpectFloats(as<float>(r.at("scalar")), {2.5});
  const std::vector<uint16_t> empty = as<uint16_t>(r.at("empty"));
  EXPECT_EQ(f16(empty[0]), 0);
  EXPECT_EQ(f16(empty[1]), 0);
}

TEST_F(RefNormalizationTest, LayerNormalizationFloat16) {
  const MLOperand x = f16_input({1, 4}, {1, 2, 3, 4});
  const double eps = f16(h16(1e-5)), mean = 2.5, var = 1.25;
  std::vector<float> expected;
  for (double v : {1.0, 2.0, 3.0, 4.0})
    expected.push_back(f16(h16((v - mean) / std::sqrt(var + eps))));
  ExpectFloats(run_f16(builder.layerNormalization(x)), expected);
}

}  // namespace
}  // namespace cppnn::testing
