// The ONNX importer's integer and quantized convolution / matmul (ConvInteger, MatMulInteger,
// QLinearConv, QLinearMatMul; src/import/onnx/ops_nn_qlinear.cpp) on cases ONNX's backend test data
// does not reach: reductions long enough that one float32 sum is not exact (the importer splits
// them into exact float32 chunks added in int32), per-channel and per-column scales, int8 data,
// int32 bias on both the fused and the int32 path, 1-D convolution, and the clear errors. Expected
// values come from integer loops here and ONNX Runtime's requantization formula
// (saturate(roundEven(float(acc) · ((x_scale · w_scale) / y_scale)) + y_zero_point), in float32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

// n pseudo-random values in [lo, hi], mostly at the extremes (so that sums get large).
template <class T>
std::vector<T> extreme_pattern(size_t n, int lo, int hi, uint32_t seed) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const uint32_t r = seed >> 8;
    const int span = hi - lo + 1;
    v[i] = static_cast<T>(r % 4 == 0 ? lo + static_cast<int>((r >> 2) % span) : hi);
  }
  return v;
}

// ONNX Runtime's requantization of one accumulator.
template <class T>
T requantize(int64_t acc, float multiplier, int zero_point) {
  const float q =
      std::nearbyint(static_cast<float>(acc) * multiplier) + static_cast<float>(zero_point);
  const float lo = std::is_signed_v<T> ? -128.0f : 0.0f;
  const float hi = std::is_signed_v<T> ? 127.0f : 255.0f;
  return static_cast<T>(std::clamp(q, lo, hi));
}

// A naive grouped 2-D convolution of integers (x [1, C, H, W], w [M, C/g, kh, kw], square
// stride and padding of zeros, i.e. of the zero point before the shift).
std::vector<int64_t> conv_reference(const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                                    uint32_t c, uint32_t h, uint32_t wd, uint32_t m, uint32_t kh,
                                    uint32_t kw, uint32_t groups, uint32_t pad, uint32_t stride,
                                    uint32_t& oh, uint32_t& ow) {
  oh = (h + 2 * pad - kh) / stride + 1;
  ow = (wd + 2 * pad - kw) / stride + 1;
  const uint32_t cg = c / groups, mg = m / groups;
  std::vector<int64_t> y(size_t{m} * oh * ow, 0);
  for (uint32_t o = 0; o < m; ++o)
    for (uint32_t i = 0; i < oh; ++i)
      for (uint32_t j = 0; j < ow; ++j) {
        int64_t acc = 0;
        for (uint32_t ci = 0; ci < cg; ++ci)
          for (uint32_t a = 0; a < kh; ++a)
            for (uint32_t b = 0; b < kw; ++b) {
              const int64_t yy = int64_t{i} * stride + a - pad, xx = int64_t{j} * stride + b - pad;
              if (yy < 0 || xx < 0 || yy >= h || xx >= wd) continue;
              const size_t xc = size_t{o / mg} * cg + ci;
              acc += x[(xc * h + yy) * wd + xx] * w[((size_t{o} * cg + ci) * kh + a) * kw + b];
            }
        y[(size_t{o} * oh + i) * ow + j] = acc;
      }
  return y;
}

// ConvInteger over 2 groups of 48 input channels with a 3x3 kernel: the bound 48·9·255² exceeds
// 2^24, so the importer sums chunks of channels in int32; results past 2^24 that float32 cannot
// hold must come out exact. Weights as a run-time input (the shape bound) and as an initializer
// with per-channel zero points (the bound from the known weights).
TEST(OnnxImportQLinear, ConvIntegerChunkedIsExact) {
  const uint32_t c = 96, h = 5, wd = 5, m = 4, k = 3, groups = 2, cg = c / groups;
  const std::vector<uint8_t> x = extreme_pattern<uint8_t>(size_t{c} * h * wd, 0, 255, 3);
  const std::vector<uint8_t> w = extreme_pattern<uint8_t>(size_t{m} * cg * k * k, 0, 255, 5);
  for (const bool known_w : {false, true}) {
    const std::vector<uint8_t> wzp =
        known_w ? std::vector<uint8_t>{0, 3, 0, 1} : std::vector<uint8_t>{0};
    OnnxModelBuilder model(10);
    model.input("x", kUint8, {1, c, h, wd}).output("y");
    if (known_w)
      initializer(model, "w", kUint8, w, {m, cg, k, k});
    else
      model.input("w", kUint8, {m, cg, k, k});
    initializer(model, "xzp", kUint8, std::vector<uint8_t>{0}, {});
    initializer(model, "wzp", kUint8, wzp, {static_cast<int64_t>(wzp.size())});
    auto& n = model.node("ConvInteger", {"x", "w", "xzp", "wzp"}, {"y"});
    OnnxModelBuilder::attr_int(n, "group", groups);
    OnnxModelBuilder::attr_ints(n, "pads", {1, 1, 1, 1});
    std::vector<int64_t> xi(x.begin(), x.end()), wi(w.size());
    for (size_t i = 0; i < w.size(); ++i)
      wi[i] = int64_t{w[i]} - wzp[wzp.size() == 1 ? 0 : i / (cg * k * k)];
    uint32_t oh = 0, ow = 0;
    const std::vector<int64_t> want =
        conv_reference(xi, wi, c, h, wd, m, k, k, groups, 1, 1, oh, ow);
    // The case is meaningful: some results are integers that float32 cannot represent.
    EXPECT_TRUE(std::any_of(want.begin(), want.end(), [](int64_t v) {
      return static_cast<int64_t>(static_cast<float>(v)) != v;
    }));
    Bytes inputs{{"x", to_bytes(x)}};
    if (!known_w) inputs["w"] = to_bytes(w);
    for (const std::string& be : import_backends()) {
      const std::vector<int32_t> got = as<int32_t>(run_y_bytes(model, be, inputs));
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << be << (known_w ? " known w" : " run-time w") << " at " << i;
    }
  }
}

// QLinearMatMul, uint8 a [2, 3, 700] at run time, int8 b [700, 5] known with per-column scales:
// the known weights bound the sums past 2^24, so K is chunked; the requantization must match
// ONNX Runtime's float32 formula exactly (including a saturating column).
TEST(OnnxImportQLinear, QLinearMatMulChunkedPerColumn) {
  const uint32_t batch = 2, rows = 3, kk = 700, cols = 5;
  const std::vector<uint8_t> a = extreme_pattern<uint8_t>(size_t{batch} * rows * kk, 0, 255, 11);
  std::vector<int8_t> b = extreme_pattern<int8_t>(size_t{kk} * cols, 100, 127, 13);
  for (size_t i = 0; i < b.size(); ++i)
    if ((i * 7 + i / 3) % 2 == 0) b[i] = static_cast<int8_t>(-b[i]);
  const float a_scale = 0.02f, y_scale = 0.5f;
  const std::vector<float> b_scale{0.001f, 0.0007f, 0.0013f, 0.0001f, 0.05f};
  const int a_zp = 7, y_zp = 128;
  OnnxModelBuilder model(10);
  model.input("a", kUint8, {batch, rows, kk}).output("y");
  model.initializer_f32("as", {a_scale}, {});
  initializer(model, "azp", kUint8, std::vector<uint8_t>{static_cast<uint8_t>(a_zp)}, {});
  initializer(model, "b", kInt8, b, {kk, cols});
  model.initializer_f32("bs", b_scale, {cols});
  initializer(model, "bzp", kInt8, std::vector<int8_t>(cols, 0), {cols});
  model.initializer_f32("ys", {y_scale}, {});
  initializer(model, "yzp", kUint8, std::vector<uint8_t>{static_cast<uint8_t>(y_zp)}, {});
  model.node("QLinearMatMul", {"a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"}, {"y"});
  std::vector<uint8_t> want;
  for (uint32_t r = 0; r < batch * rows; ++r)
    for (uint32_t n = 0; n < cols; ++n) {
      int64_t acc = 0;
      for (uint32_t i = 0; i < kk; ++i)
        acc += (int64_t{a[size_t{r} * kk + i]} - a_zp) * b[size_t{i} * cols + n];
      want.push_back(requantize<uint8_t>(acc, a_scale * b_scale[n] / y_scale, y_zp));
    }
  EXPECT_TRUE(std::count(want.begin(), want.end(), uint8_t{255}) +
                  std::count(want.begin(), want.end(), uint8_t{0}) >
              0);
  for (const std::string& be : import_backends())
    EXPECT_EQ(as<uint8_t>(run_y_bytes(model, be, {{"a", to_bytes(a)}})), want) << be;
}

// MatMulInteger with K = 600 (past the 2^24 bound of one float32 sum of 255² products) and
// both operands as graph inputs, per-row a and per-column b zero points: exact int32.
TEST(OnnxImportQLinear, MatMulIntegerLongReductionIsExact) {
  const uint32_t rows = 4, kk = 600, cols = 3;
  const std::vector<uint8_t> a = extreme_pattern<uint8_t>(size_t{rows} * kk, 0, 255, 21);
  const std::vector<uint8_t> b = extreme_pattern<uint8_t>(size_t{kk} * cols, 0, 255, 23);
  const std::vector<uint8_t> azp{0, 1, 2, 3}, bzp{255, 0, 128};
  OnnxModelBuilder model(10);
  model.input("a", kUint8, {rows, kk}).input("b", kUint8, {kk, cols}).output("y");
  initializer(model, "azp", kUint8, azp, {rows});
  initializer(model, "bzp", kUint8, bzp, {cols});
  model.node("MatMulInteger", {"a", "b", "azp", "bzp"}, {"y"});
  std::vector<int32_t> want;
  bool beyond_float = false;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t n = 0; n < cols; ++n) {
      int64_t acc = 0;
      for (uint32_t i = 0; i < kk; ++i)
        acc +=
            (int64_t{a[size_t{r} * kk + i]} - azp[r]) * (int64_t{b[size_t{i} * cols + n]} - bzp[n]);
      beyond_float = beyond_float || static_cast<int64_t>(static_cast<float>(acc)) != acc;
      want.push_back(static_cast<int32_t>(acc));
    }
  EXPECT_TRUE(beyond_float);
  for (const std::string& be : import_backends())
    EXPECT_EQ(as<int32_t>(run_y_bytes(model, be, {{"a", to_bytes(a)}, {"b", to_bytes(b)}})), want)
        << be;
}

// QLinearConv 1-D, int8, per-channel w_scale, int32 bias: small biases fold into the float32
// conv2d; one bias past 2^24 takes the int32 path (the float conversion then rounds like ORT).
TEST(OnnxImportQLinear, QLinearConvInt8PerChannelBias) {
  const uint32_t c = 3, len = 8, m = 4, k = 3;
  const std::vector<int8_t> x = extreme_pattern<int8_t>(size_t{c} * len, -128, 127, 17);
  const std::vector<int8_t> w = extreme_pattern<int8_t>(size_t{m} * c * k, -128, 127, 19);
  const std::vector<float> w_scale{0.01f, 0.02f, 0.003f, 0.0000001f};
  const float x_scale = 0.05f, y_scale = 0.7f;
  const int x_zp = -5, y_zp = 3;
  for (const int32_t big : {1000, 20000001}) {
    const std::vector<int32_t> bias{-700, 1234, 5, big};
    OnnxModelBuilder model(10);
    model.input("x", kInt8, {1, c, len}).output("y");
    model.initializer_f32("xs", {x_scale}, {});
    initializer(model, "xzp", kInt8, std::vector<int8_t>{static_cast<int8_t>(x_zp)}, {});
    initializer(model, "w", kInt8, w, {m, c, k});
    model.initializer_f32("ws", w_scale, {m});
    initializer(model, "wzp", kInt8, std::vector<int8_t>(m, 0), {m});
    model.initializer_f32("ys", {y_scale}, {});
    initializer(model, "yzp", kInt8, std::vector<int8_t>{static_cast<int8_t>(y_zp)}, {});
    initializer(model, "B", kInt32, bias, {m});
    auto& n =
        model.node("QLinearConv", {"x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp", "B"}, {"y"});
    OnnxModelBuilder::attr_ints(n, "strides", {2});
    attr_string(n, "auto_pad", "SAME_UPPER");
    // SAME_UPPER with stride 2: out = ceil(8 / 2) = 4, total pad = (4 - 1)·2 + 3 - 8 = 1, at the
    // end.
    std::vector<int8_t> want;
    for (uint32_t o = 0; o < m; ++o)
      for (uint32_t j = 0; j < len / 2; ++j) {
        int64_t acc = bias[o];
        for (uint32_t ci = 0; ci < c; ++ci)
          for (uint32_t t = 0; t < k; ++t) {
            const uint32_t p = j * 2 + t;
            if (p >= len) continue;
            acc += (int64_t{x[ci * len + p]} - x_zp) * w[(o * c + ci) * k + t];
          }
        want.push_back(requantize<int8_t>(acc, x_scale * w_scale[o] / y_scale, y_zp));
      }
    for (const std::string& be : import_backends())
      EXPECT_EQ(as<int8_t>(run_y_bytes(model, be, {{"x", to_bytes(x)}})), want)
          << be << " bias " << big;
  }
}

// What cannot be made exact fails with a clear error naming the node: an accumulation that may
// overflow int32, and a kernel window whose single-channel partial sum may exceed 2^24.
TEST(OnnxImportQLinear, InexpressibleAccumulationsAreClearErrors) {
  OnnxModelBuilder mm(10);
  mm.input("a", kUint8, {1, 40000}).input("b", kUint8, {40000, 1}).output("y");
  mm.initializer_f32("s", {1.0f}, {});
  initializer(mm, "z", kUint8, std::vector<uint8_t>{0}, {});
  mm.node("QLinearMatMul", {"a", "s", "z", "b", "s", "z", "s", "z"}, {"y"});
  try {
    run_y_bytes(mm, "reference", {});
    FAIL() << "no error";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow int32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("QLinearMatMul"), std::string::npos) << e.what();
  }

  OnnxModelBuilder conv(10);
  conv.input("x", kUint8, {1, 2, 17, 17}).input("w", kUint8, {1, 2, 17, 17}).output("y");
  conv.node("ConvInteger", {"x", "w"}, {"y"});
  try {
    run_y_bytes(conv, "reference", {});
    FAIL() << "no error";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("2^24"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn
