// Reference backend: activations (webnn-spec.md §2 rows 5, 46, 51, 55, 56, 59, 60, 68, 79, 85,
// 87-89, 91), with hand-computed values, options cast to the input type, broadcasting (prelu),
// clamp's exact integer bounds (mlnumber.json, clamp.json) and edge values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::run_graph;
using testing::to_bytes;
using T = MLOperandDataType;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Builds y = make(builder, x) for one input x of `type` and `shape` holding `data` and returns
// y's elements as Out.
template <class Out, class E, class Make>
std::vector<Out> run_shaped(T type, std::vector<uint32_t> shape, const std::vector<E>& data,
                            Make make) {
  MLContext ctx = MLContext::create({.backend = "reference"});
  MLGraphBuilder b(ctx);
  MLOperand x = b.input("x", {type, shape});
  MLGraph g = b.build({{"y", make(b, x)}});
  return as<Out>(run_graph(ctx, g, {{"x", to_bytes(data)}}).at("y"));
}

// A 1-D run over `data`.
template <class Out, class E, class Make>
std::vector<Out> run1(T type, const std::vector<E>& data, Make make) {
  return run_shaped<Out>(type, {static_cast<uint32_t>(data.size())}, data, make);
}

// prelu(x, slope) with the given shapes.
template <class E>
std::vector<E> run_prelu(T type, std::vector<uint32_t> xs, const std::vector<E>& x,
                         std::vector<uint32_t> ss, const std::vector<E>& slope) {
  MLContext ctx = MLContext::create({.backend = "reference"});
  MLGraphBuilder b(ctx);
  MLGraph g =
      b.build({{"y", b.prelu(b.input("x", {type, xs}), b.constant({type, ss}, to_bytes(slope)))}});
  return as<E>(run_graph(ctx, g, {{"x", to_bytes(x)}}).at("y"));
}

#define OP(expr) [&](MLGraphBuilder& b, const MLOperand& x) { return expr; }

uint16_t h(double v) {
  return double_to_half_bits(v);
}
std::vector<uint16_t> halves(std::initializer_list<double> v) {
  std::vector<uint16_t> out;
  for (double d : v) out.push_back(h(d));
  return out;
}

TEST(RefActivation, ClampFloat32) {
  const std::vector<float> in{-kInf, kInf, -3e35f, 2147483647.f, -2.f, 1.f, 0.f};
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.clamp(x, {.minValue = -1, .maxValue = 1.5}))),
            (std::vector<float>{-1.f, 1.5f, -1.f, 1.5f, -1.f, 1.f, 0.f}));
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.clamp(x))), in);  // absent = -Inf..+Inf
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.clamp(x, {.minValue = NAN}))), in);
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.clamp(x, {.minValue = INFINITY}))),
            std::vector<float>(7, kInf));
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.clamp(x, {.maxValue = -INFINITY}))),
            std::vector<float>(7, -kInf));
  auto n = run1<float>(T::kFloat32, std::vector<float>{kNaN}, OP(b.clamp(x, {.minValue = 0})));
  EXPECT_TRUE(std::isnan(n[0]));
}

TEST(RefActivation, ClampFloat16CastsTheBounds) {
  // 0.1 becomes the float16 0.0999755859375 (0x2e66); the outputs are inputs or bounds.
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({0, 0.5, -7, 3}),
                           OP(b.clamp(x, {.minValue = 0.1, .maxValue = 2.0}))),
            (std::vector<uint16_t>{0x2e66, h(0.5), 0x2e66, h(2.0)}));
  // Subnormals and NaN payloads pass through untouched.
  const std::vector<uint16_t> keep{0x0001, 0x8001, 0x7e01};
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, keep, OP(b.clamp(x))), keep);
}

TEST(RefActivation, ClampIntegers) {
  EXPECT_EQ(run1<int8_t>(T::kInt8, std::vector<int8_t>{-128, 127, -4, -2, 1, 0, 2, 4},
                         OP(b.clamp(x, {.minValue = -2, .maxValue = 125}))),
            (std::vector<int8_t>{-2, 125, -2, -2, 1, 0, 2, 4}));
  EXPECT_EQ(run1<uint8_t>(T::kUint8, std::vector<uint8_t>{255, 127, 5, 0}, OP(b.clamp(x))),
            (std::vector<uint8_t>{255, 127, 5, 0}));
  // mlnumber.json: 1000 saturates to 255 for uint8, -1 to 0.
  EXPECT_EQ(run1<uint8_t>(T::kUint8, std::vector<uint8_t>{255, 127, 5, 0},
                          OP(b.clamp(x, {.minValue = 1000}))),
            (std::vector<uint8_t>(4, 255)));
  EXPECT_EQ(run1<uint8_t>(T::kUint8, std::vector<uint8_t>{255, 127, 5, 0},
                          OP(b.clamp(x, {.maxValue = -1}))),
            (std::vector<uint8_t>(4, 0)));
  EXPECT_EQ(run1<uint32_t>(T::kUint32, std::vector<uint32_t>{4294967295u, 127, 5, 0},
                           OP(b.clamp(x, {.minValue = 5, .maxValue = 4294967290u}))),
            (std::vector<uint32_t>{4294967290u, 127, 5, 5}));
}

TEST(RefActivation, ClampInt64AndUint64AreExact) {
  // 2^53 + 1 is not a double: the bound and the compare must stay 64-bit integers.
  const int64_t p = 9007199254740993;
  EXPECT_EQ(run1<int64_t>(T::kInt64, std::vector<int64_t>{p + 2, p, p - 1, INT64_MIN},
                          OP(b.clamp(x, {.minValue = -2, .maxValue = MLNumber(p)}))),
            (std::vector<int64_t>{p, p, p - 1, -2}));
  // minValue 3.9 truncates to 3 (mlnumber.json); bigints beyond the range saturate.
  EXPECT_EQ(
      run1<int64_t>(T::kInt64, std::vector<int64_t>{3, 4, -1}, OP(b.clamp(x, {.minValue = 3.9}))),
      (std::vector<int64_t>{3, 4, 3}));
  EXPECT_EQ(run1<int64_t>(T::kInt64, std::vector<int64_t>{-21474836470, 0},
                          OP(b.clamp(x, {.minValue = MLNumber(18446744073709551615ull)}))),
            (std::vector<int64_t>{INT64_MAX, INT64_MAX}));
  const uint64_t q = 18446744073709551613ull;
  EXPECT_EQ(run1<uint64_t>(T::kUint64, std::vector<uint64_t>{UINT64_MAX, q, q - 1, 0},
                           OP(b.clamp(x, {.minValue = 5, .maxValue = MLNumber(q)}))),
            (std::vector<uint64_t>{q, q, q - 1, 5}));
  EXPECT_EQ(run1<uint64_t>(T::kUint64, std::vector<uint64_t>{42949672950ull, 0},
                           OP(b.clamp(x, {.maxValue = -1}))),
            (std::vector<uint64_t>{0, 0}));
}

TEST(RefActivation, Elu) {
  auto y = run1<float>(T::kFloat32, std::vector<float>{-1.f, 2.f, 0.f, -kInf}, OP(b.elu(x)));
  EXPECT_EQ(y, (std::vector<float>{-0.632120558828557678f, 2.f, 0.f, -1.f}));
  auto a = run1<float>(T::kFloat32, std::vector<float>{-1.f}, OP(b.elu(x, {.alpha = 2.0})));
  EXPECT_EQ(a[0], -1.26424111765711536f);
  // float16: alpha 0.1 is cast to 0.0999755859375 first; 0.0999755859375 * (e^-2 - 1) =
  // -0.0864453... -> 0xad88 (-0.08642578125).
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({-2, 3}), OP(b.elu(x, {.alpha = 0.1}))),
            (std::vector<uint16_t>{0xad88, h(3)}));
}

TEST(RefActivation, Gelu) {
  auto y = run1<float>(T::kFloat32, std::vector<float>{1.f, -1.f, 0.f, -10.f}, OP(b.gelu(x)));
  EXPECT_EQ(y[0], 0.841344746068542949f);
  EXPECT_EQ(y[1], -0.158655253931457051f);
  EXPECT_EQ(y[2], 0.f);
  EXPECT_EQ(y[3], -7.61985302416052606e-23f);  // no cancellation in 1 + erf(x/sqrt 2)
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1}), OP(b.gelu(x))),
            halves({0.841344746068542949}));
}

TEST(RefActivation, HardSigmoid) {
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{1.f, -5.f, 5.f, 0.f}, OP(b.hardSigmoid(x))),
            (std::vector<float>{0.7f, 0.f, 1.f, 0.5f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{1.f, -1.f},
                        OP(b.hardSigmoid(x, {.alpha = 0.25, .beta = 0.25}))),
            (std::vector<float>{0.5f, 0.f}));
  auto n = run1<float>(T::kFloat32, std::vector<float>{kNaN}, OP(b.hardSigmoid(x)));
  EXPECT_TRUE(std::isnan(n[0]));
  // float16: alpha 0.2 -> 0.199951171875, beta 0.5; 0.199951171875 * 1 + 0.5 -> 0.7001953125.
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1}), OP(b.hardSigmoid(x))), halves({0.7001953125}));
}

TEST(RefActivation, HardSwish) {
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{1.f, -4.f, 4.f, -kInf, kInf, -1.5f},
                        OP(b.hardSwish(x))),
            (std::vector<float>{0.666666666666666667f, 0.f, 4.f, 0.f, kInf, -0.375f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1, -4}), OP(b.hardSwish(x))),
            halves({0.666666666666666667, 0}));
}

TEST(RefActivation, LeakyRelu) {
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{-2.f, 3.f, 0.f}, OP(b.leakyRelu(x))),
            (std::vector<float>{-0.02f, 3.f, 0.f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{-2.f}, OP(b.leakyRelu(x, {.alpha = 0.5}))),
            (std::vector<float>{-1.f}));
  // float16: alpha 0.01 -> 0.01000213623046875; * -100 -> -1.000213623046875 -> -1.0 (0xbc00).
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({-100, 7}), OP(b.leakyRelu(x))),
            (std::vector<uint16_t>{0xbc00, h(7)}));
}

TEST(RefActivation, Linear) {
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{3.f, -1.f}, OP(b.linear(x))),
            (std::vector<float>{3.f, -1.f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{3.f, -1.f},
                        OP(b.linear(x, {.alpha = 2.0, .beta = 1.0}))),
            (std::vector<float>{7.f, -1.f}));
  // float16: alpha 0.1 -> 0.0999755859375, beta 0.3 -> 0.300048828125; x = 10 ->
  // 1.300 (0.999755859375 + 0.300048828125 = 1.2998046875, a float16 value).
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({10}), OP(b.linear(x, {.alpha = 0.1, .beta = 0.3}))),
            halves({1.2998046875}));
}

TEST(RefActivation, PreluBroadcastsTheSlope) {
  EXPECT_EQ(run_prelu<float>(T::kFloat32, {2, 3}, {-1.f, 2.f, -3.f, 4.f, -5.f, 0.f}, {3},
                             {0.5f, 2.f, -1.f}),
            (std::vector<float>{-0.5f, 2.f, 3.f, 4.f, -10.f, 0.f}));
  // The output shape is the bidirectional broadcast: x [2,1] with slope [1,2] gives [2,2].
  EXPECT_EQ(run_prelu<float>(T::kFloat32, {2, 1}, {-2.f, 3.f}, {1, 2}, {0.5f, 0.25f}),
            (std::vector<float>{-1.f, -0.5f, 3.f, 3.f}));
  EXPECT_EQ(run_prelu<uint16_t>(T::kFloat16, {2}, halves({-2, 3}), {}, halves({0.1})),
            halves({-0.199951171875, 3}));
  EXPECT_EQ(run_prelu<int32_t>(T::kInt32, {3}, {INT32_MIN, -3, 5}, {}, {-1}),
            (std::vector<int32_t>{INT32_MIN, 3, 5}));
  EXPECT_EQ(run_prelu<int8_t>(T::kInt8, {3}, {-100, -1, 5}, {1}, {3}),
            (std::vector<int8_t>{-44, -3, 5}));  // -300 wraps to -44
  EXPECT_EQ(run_prelu<int64_t>(T::kInt64, {2}, {-(int64_t{1} << 62), 9}, {}, {4}),
            (std::vector<int64_t>{0, 9}));  // -2^64 wraps to 0
}

TEST(RefActivation, Relu) {
  auto f = run1<float>(T::kFloat32, std::vector<float>{-1.f, 0.f, 2.5f, -kInf, kInf, kNaN},
                       OP(b.relu(x)));
  EXPECT_EQ(std::vector<float>(f.begin(), f.end() - 1),
            (std::vector<float>{0.f, 0.f, 2.5f, 0.f, kInf}));
  EXPECT_TRUE(std::isnan(f[5]));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, std::vector<uint16_t>{0x8001, 0x0001, 0x7e01, 0xbc00},
                           OP(b.relu(x))),
            (std::vector<uint16_t>{0x0000, 0x0001, 0x7e01, 0x0000}));
  EXPECT_EQ(run1<int8_t>(T::kInt8, std::vector<int8_t>{-128, 0, 127}, OP(b.relu(x))),
            (std::vector<int8_t>{0, 0, 127}));
  EXPECT_EQ(run1<int32_t>(T::kInt32, std::vector<int32_t>{INT32_MIN, 7}, OP(b.relu(x))),
            (std::vector<int32_t>{0, 7}));
  EXPECT_EQ(run1<int64_t>(T::kInt64, std::vector<int64_t>{INT64_MIN, INT64_MAX}, OP(b.relu(x))),
            (std::vector<int64_t>{0, INT64_MAX}));
}

TEST(RefActivation, Sigmoid) {
  EXPECT_EQ(
      run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f, -kInf, kInf, -200.f}, OP(b.sigmoid(x))),
      (std::vector<float>{0.5f, 0.731058578630004879f, 0.f, 1.f, 0.f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1}), OP(b.sigmoid(x))),
            halves({0.731058578630004879}));
}

TEST(RefActivation, SoftmaxAlongAxis) {
  EXPECT_EQ(
      run1<float>(T::kFloat32, std::vector<float>{1.f, 2.f, 3.f}, OP(b.softmax(x, 0))),
      (std::vector<float>{0.0900305731703804562f, 0.244728471054797646f, 0.665240955774821898f}));
  // Max subtraction: huge inputs do not overflow.
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{1000.f, 1000.f}, OP(b.softmax(x, 0))),
            (std::vector<float>{0.5f, 0.5f}));
  // [2,2]: axis 0 normalises columns, axis 1 rows.
  const std::vector<float> m{0.f, 1.f, 0.f, 3.f};
  EXPECT_EQ(run_shaped<float>(T::kFloat32, {2, 2}, m, OP(b.softmax(x, 0))),
            (std::vector<float>{0.5f, 0.119202922022117575f, 0.5f, 0.880797077977882444f}));
  EXPECT_EQ(run_shaped<float>(T::kFloat32, {2, 2}, m, OP(b.softmax(x, 1))),
            (std::vector<float>{0.268941421369995121f, 0.731058578630004879f,
                                0.0474258731775667968f, 0.952574126822433203f}));
  // [1,2,2] along the middle axis (inner stride 2).
  EXPECT_EQ(run_shaped<float>(T::kFloat32, {1, 2, 2}, m, OP(b.softmax(x, 1))),
            (std::vector<float>{0.5f, 0.119202922022117575f, 0.5f, 0.880797077977882444f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1, 2, 3}), OP(b.softmax(x, 0))),
            halves({0.0900305731703804562, 0.244728471054797646, 0.665240955774821898}));
}

TEST(RefActivation, Softplus) {
  auto y = run1<float>(T::kFloat32, std::vector<float>{0.f, 100.f, -100.f, kInf, -kInf},
                       OP(b.softplus(x)));
  EXPECT_EQ(
      y, (std::vector<float>{0.693147180559945309f, 100.f, 3.72007597602083612e-44f, kInf, 0.f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1000, 1}), OP(b.softplus(x))),
            halves({1000, 1.31326168751822284}));
}

TEST(RefActivation, Softsign) {
  EXPECT_EQ(
      run1<float>(T::kFloat32, std::vector<float>{1.f, -3.f, 0.f, kInf, -kInf}, OP(b.softsign(x))),
      (std::vector<float>{0.5f, -0.75f, 0.f, 1.f, -1.f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({2}), OP(b.softsign(x))), halves({2.0 / 3.0}));
}

TEST(RefActivation, Tanh) {
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f, -kInf, 20.f}, OP(b.tanh(x))),
            (std::vector<float>{0.f, 0.761594155955764888f, -1.f, 1.f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1}), OP(b.tanh(x))),
            halves({0.761594155955764888}));
}

}  // namespace
}  // namespace cppnn
