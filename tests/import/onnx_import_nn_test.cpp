// The ONNX importer's nn handlers on cases ONNX's backend test data (tests/onnx, ONNX 1.12) does
// not reach: Einsum on floats (the data is double only), Resize ties computed like ORT in float32,
// Pad's wrap mode with negative pads (opset 19), MaxPool's ceil_mode rule that drops a last window
// starting in the end padding, LRN with an even size, MatMul's 1-D promotion, and what cannot be
// expressed. Expected values come from naive loops here; each model runs on the reference backend
// and, where compiled in, on ONNX Runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

TEST(OnnxImportNn, EinsumBatchMatmulDiagonalAndSum) {
  const std::vector<float> a = pattern(2 * 3 * 4, 1), b = pattern(2 * 4 * 5, 2);
  OnnxModelBuilder m(12);
  m.input("a", kFloat, {2, 3, 4}).input("b", kFloat, {2, 4, 5}).output("y");
  attr_string(m.node("Einsum", {"a", "b"}, {"y"}), "equation", "bij, bjk -> bik");
  std::vector<double> want(2 * 3 * 5, 0.0);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k)
        for (int j = 0; j < 4; ++j)
          want[(n * 3 + i) * 5 + k] += double{a[(n * 3 + i) * 4 + j]} * b[(n * 4 + j) * 5 + k];
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"a", to_bytes(a)}, {"b", to_bytes(b)}}), want,
                    "matmul " + be);

  const std::vector<float> x = pattern(3 * 4 * 4, 3);
  OnnxModelBuilder d(12);
  d.input("x", kFloat, {3, 4, 4}).output("y");
  attr_string(d.node("Einsum", {"x"}, {"y"}), "equation", "...ii->...i");
  std::vector<double> diag;
  for (int n = 0; n < 3; ++n)
    for (int i = 0; i < 4; ++i) diag.push_back(x[(n * 4 + i) * 4 + i]);
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(d, be, {{"x", to_bytes(x)}}), diag, "diagonal " + be);

  OnnxModelBuilder s(12);
  s.input("x", kFloat, {3, 4, 4}).output("y");
  attr_string(s.node("Einsum", {"x"}, {"y"}), "equation", "nij->j");
  std::vector<double> sums(4, 0.0);
  for (size_t i = 0; i < x.size(); ++i) sums[i % 4] += x[i];
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(s, be, {{"x", to_bytes(x)}}), sums, "sum " + be);
}

// 7 -> 16 at scale 2.3: output 11 maps to 11.5 / 2.3f - 0.5, a tie in float32 arithmetic (as ORT
// computes it) that round_prefer_floor sends down to 4.
TEST(OnnxImportNn, ResizeNearestRoundsFloat32CoordinatesLikeOrt) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {1, 1, 2, 7}).output("y");
  m.initializer_f32("scales", {1.0f, 1.0f, 1.0f, 2.3f}, {4});
  m.node("Resize", {"x", "", "scales"}, {"y"});
  const std::vector<float> x = pattern(14, 4);
  std::vector<double> want;
  for (int h = 0; h < 2; ++h) {
    for (int o = 0; o < 16; ++o) {
      const float xo = (static_cast<float>(o) + 0.5f) / 2.3f - 0.5f;
      const float fl = std::floor(xo);
      const int i = static_cast<int>(xo - fl > 0.5f ? fl + 1 : fl);
      want.push_back(x[h * 7 + std::clamp(i, 0, 6)]);
    }
  }
  EXPECT_EQ(want[11], x[4]);
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, be);
}

TEST(OnnxImportNn, PadWrapWithNegativePads) {
  OnnxModelBuilder m(19);
  m.input("x", kFloat, {3, 5}).output("y");
  m.initializer_i64("pads", {2, -1, -1, 3}, {4});
  attr_string(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  const std::vector<float> x = pattern(15, 5);
  // Negative pads crop first (as ONNX Runtime does): rows 0..1 remain and wrap 2 before; columns
  // 1..4 remain and wrap 3 after.
  std::vector<double> want;
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 7; ++j) want.push_back(x[(r % 2) * 5 + 1 + j % 4]);
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, be);
}

// ceil_mode over 10 inputs, kernel 3, stride 4, pads 1/1: ceil gives 4 windows, but the 4th would
// start at padded position 12 >= 10 + 1, so ONNX Runtime (like PyTorch) keeps 3.
TEST(OnnxImportNn, MaxPoolCeilModeDropsAWindowStartingInThePadding) {
  OnnxModelBuilder m(12);
  m.input("x", kFloat, {1, 1, 10}).output("y");
  auto& n = m.node("MaxPool", {"x"}, {"y"});
  OnnxModelBuilder::attr_ints(n, "kernel_shape", {3});
  OnnxModelBuilder::attr_ints(n, "strides", {4});
  OnnxModelBuilder::attr_ints(n, "pads", {1, 1});
  OnnxModelBuilder::attr_int(n, "ceil_mode", 1);
  const std::vector<float> x = pattern(10, 6);
  std::vector<double> want;
  for (int o = 0; o < 3; ++o) {
    float best = -INFINITY;
    for (int k = 0; k < 3; ++k) {
      const int i = o * 4 - 1 + k;
      if (i >= 0 && i < 10) best = std::max(best, x[i]);
    }
    want.push_back(best);
  }
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, be);
}

// size 4 sums channels c-1 .. c+2.
TEST(OnnxImportNn, LrnWithAnEvenSize) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {1, 5, 1, 2}).output("y");
  auto& n = m.node("LRN", {"x"}, {"y"});
  OnnxModelBuilder::attr_int(n, "size", 4);
  attr_float(n, "alpha", 0.5f);
  attr_float(n, "beta", 0.6f);
  attr_float(n, "bias", 2.0f);
  const std::vector<float> x = pattern(10, 8);
  std::vector<double> want;
  for (int ch = 0; ch < 5; ++ch)
    for (int w = 0; w < 2; ++w) {
      double sq = 0;
      for (int k = std::max(0, ch - 1); k <= std::min(4, ch + 2); ++k)
        sq += double{x[k * 2 + w]} * x[k * 2 + w];
      want.push_back(x[ch * 2 + w] / std::pow(2.0 + 0.5 / 4 * sq, 0.6));
    }
  expect_near_all(run_y_floats(m, "reference", {{"x", to_bytes(x)}}), want, "reference");
}

TEST(OnnxImportNn, MatMulPromotesOneDimensionalOperands) {
  OnnxModelBuilder m(13);
  m.input("a", kFloat, {4}).input("b", kFloat, {2, 4, 3}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"});
  const std::vector<float> a = pattern(4, 9), b = pattern(24, 10);
  std::vector<double> want(6, 0.0);
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) want[n * 3 + j] += double{a[k]} * b[(n * 4 + k) * 3 + j];
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"a", to_bytes(a)}, {"b", to_bytes(b)}}), want, be);
}

TEST(OnnxImportNn, InexpressibleNodesAreNotSupported) {
  // 4 spatial dimensions (the importer decomposes up to 3-D).
  OnnxModelBuilder conv4d(13);
  conv4d.input("x", kFloat, {1, 1, 3, 3, 3, 3}).output("y");
  conv4d.initializer_f32("w", std::vector<float>(16, 1.0f), {1, 1, 2, 2, 2, 2});
  conv4d.node("Conv", {"x", "w"}, {"y"});
  EXPECT_THROW(run_y_floats(conv4d, "reference", {}), NotSupportedError);

  // Indices of windows over 256 elements (the bound of the window-gathering decomposition).
  OnnxModelBuilder argmax(12);
  argmax.input("x", kFloat, {1, 1, 20, 20}).output("y").output("i");
  auto& n = argmax.node("MaxPool", {"x"}, {"y", "i"});
  OnnxModelBuilder::attr_ints(n, "kernel_shape", {17, 17});
  EXPECT_THROW(run_y_floats(argmax, "reference", {}), NotSupportedError);

  OnnxModelBuilder antialias(18);
  antialias.input("x", kFloat, {1, 1, 4, 4}).output("y");
  antialias.initializer_f32("scales", {1.0f, 1.0f, 0.5f, 0.5f}, {4});
  OnnxModelBuilder::attr_int(antialias.node("Resize", {"x", "", "scales"}, {"y"}), "antialias", 1);
  EXPECT_THROW(run_y_floats(antialias, "reference", {}), NotSupportedError);
}

}  // namespace
}  // namespace cppnn
