// Reference backend: element-wise unary ops and cast (webnn-spec.md §2 rows 4, 23, 27-43; §3.6),
// with hand-computed values per data type class, edge values (NaN, ±Inf, -0, subnormals, integer
// limits) and the bit-exact float16 transport cases of cast-storage.json.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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

// Builds y = make(builder, x) for one input x of `type` and `shape` holding `data` (x is a
// constant when `constant` is set) and returns y's bytes.
template <class E, class Make>
std::vector<std::byte> run_unary(T type, std::vector<uint32_t> shape, const std::vector<E>& data,
                                 Make make, bool constant = false) {
  MLContext ctx = MLContext::create({.backend = "reference"});
  MLGraphBuilder b(ctx);
  const MLOperandDescriptor desc{type, shape};
  const std::vector<std::byte> bytes = to_bytes(data);
  MLOperand x = constant ? b.constant(desc, bytes) : b.input("x", desc);
  MLGraph g = b.build({{"y", make(b, x)}});
  std::map<std::string, std::vector<std::byte>> inputs;
  if (!constant) inputs.emplace("x", bytes);
  return run_graph(ctx, g, inputs).at("y");
}

// Runs a 1-D op over `data` and returns the outputs as Out.
template <class Out, class E, class Make>
std::vector<Out> run1(T type, const std::vector<E>& data, Make make) {
  return as<Out>(run_unary(type, {static_cast<uint32_t>(data.size())}, data, make));
}

#define OP(expr) [](MLGraphBuilder& b, const MLOperand& x) { return expr; }

uint16_t h(float v) {
  return float_to_half_bits(v);
}
std::vector<uint16_t> halves(std::initializer_list<float> v) {
  std::vector<uint16_t> out;
  for (float f : v) out.push_back(h(f));
  return out;
}
TEST(RefUnary, LogicalNotMapsZeroToOne) {
  EXPECT_EQ(run1<uint8_t>(T::kUint8, std::vector<uint8_t>{0, 1, 2, 255}, OP(b.logicalNot(x))),
            (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(RefUnary, IsNaNAndIsInfinite) {
  const std::vector<float> f{kNaN, -kNaN, kInf, -kInf, 0.f, 3.4e38f};
  EXPECT_EQ(run1<uint8_t>(T::kFloat32, f, OP(b.isNaN(x))),
            (std::vector<uint8_t>{1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(run1<uint8_t>(T::kFloat32, f, OP(b.isInfinite(x))),
            (std::vector<uint8_t>{0, 0, 1, 1, 0, 0}));
  const std::vector<uint16_t> hf{0x7e00, 0xfc01, 0x7c00, 0xfc00, 0x0001, 0x7bff};
  EXPECT_EQ(run1<uint8_t>(T::kFloat16, hf, OP(b.isNaN(x))),
            (std::vector<uint8_t>{1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(run1<uint8_t>(T::kFloat16, hf, OP(b.isInfinite(x))),
            (std::vector<uint8_t>{0, 0, 1, 1, 0, 0}));
}

TEST(RefUnary, AbsIsExactAndWrapsIntegers) {
  auto f =
      run1<float>(T::kFloat32, std::vector<float>{-1.5f, 2.f, -0.f, -kInf, 1e-45f}, OP(b.abs(x)));
  EXPECT_EQ(f, (std::vector<float>{1.5f, 2.f, 0.f, kInf, 1e-45f}));
  EXPECT_FALSE(std::signbit(f[2]));
  // float16: the sign bit is cleared, NaN payloads and subnormals kept.
  EXPECT_EQ(
      run1<uint16_t>(T::kFloat16, std::vector<uint16_t>{0x8000, 0x8001, 0xfe01, 0xc500, 0x3c00},
                     OP(b.abs(x))),
      (std::vector<uint16_t>{0x0000, 0x0001, 0x7e01, 0x4500, 0x3c00}));
  EXPECT_EQ(run1<int8_t>(T::kInt8, std::vector<int8_t>{-128, -1, 5, 0}, OP(b.abs(x))),
            (std::vector<int8_t>{-128, 1, 5, 0}));
  EXPECT_EQ(run1<int32_t>(T::kInt32, std::vector<int32_t>{INT32_MIN, -7, 7}, OP(b.abs(x))),
            (std::vector<int32_t>{INT32_MIN, 7, 7}));
  EXPECT_EQ(
      run1<int64_t>(T::kInt64, std::vector<int64_t>{INT64_MIN, -(int64_t{1} << 40)}, OP(b.abs(x))),
      (std::vector<int64_t>{INT64_MIN, int64_t{1} << 40}));
}

TEST(RefUnary, NegIsExactAndWrapsIntegers) {
  auto f = run1<float>(T::kFloat32, std::vector<float>{1.5f, 0.f, -kInf}, OP(b.neg(x)));
  EXPECT_EQ(f, (std::vector<float>{-1.5f, -0.f, kInf}));
  EXPECT_TRUE(std::signbit(f[1]));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, std::vector<uint16_t>{0x0000, 0x0001, 0x7e01, 0xbc00},
                           OP(b.neg(x))),
            (std::vector<uint16_t>{0x8000, 0x8001, 0xfe01, 0x3c00}));
  EXPECT_EQ(run1<int8_t>(T::kInt8, std::vector<int8_t>{-128, 127, 0}, OP(b.neg(x))),
            (std::vector<int8_t>{-128, -127, 0}));
  EXPECT_EQ(run1<int32_t>(T::kInt32, std::vector<int32_t>{INT32_MIN, 5}, OP(b.neg(x))),
            (std::vector<int32_t>{INT32_MIN, -5}));
  EXPECT_EQ(run1<int64_t>(T::kInt64, std::vector<int64_t>{INT64_MIN, INT64_MAX}, OP(b.neg(x))),
            (std::vector<int64_t>{INT64_MIN, -INT64_MAX}));
}

TEST(RefUnary, CeilFloorKeepTheSignOfZero) {
  const std::vector<float> in{-1.5f, -0.5f, 0.5f, 1.5f, 2.f, -kInf};
  auto c = run1<float>(T::kFloat32, in, OP(b.ceil(x)));
  EXPECT_EQ(c, (std::vector<float>{-1.f, -0.f, 1.f, 2.f, 2.f, -kInf}));
  EXPECT_TRUE(std::signbit(c[1]));
  EXPECT_EQ(run1<float>(T::kFloat32, in, OP(b.floor(x))),
            (std::vector<float>{-2.f, -1.f, 0.f, 1.f, 2.f, -kInf}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({-1.5f, 0.25f, 1000.5f}), OP(b.ceil(x))),
            halves({-1.f, 1.f, 1001.f}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({-1.5f, 0.25f, 1000.5f}), OP(b.floor(x))),
            halves({-2.f, 0.f, 1000.f}));
}

TEST(RefUnary, RoundEvenTiesToEven) {
  const std::vector<float> in{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -0.4f, 8388609.f};
  auto r = run1<float>(T::kFloat32, in, OP(b.roundEven(x)));
  EXPECT_EQ(r, (std::vector<float>{0.f, 2.f, 2.f, -0.f, -2.f, -2.f, 2.f, 3.f, -0.f, 8388609.f}));
  EXPECT_TRUE(std::signbit(r[3]));
  EXPECT_TRUE(std::signbit(r[8]));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({0.5f, 1.5f, 2.5f, -3.5f}), OP(b.roundEven(x))),
            halves({0.f, 2.f, 2.f, -4.f}));
}

TEST(RefUnary, SignPerType) {
  auto f = run1<float>(T::kFloat32, std::vector<float>{-3.f, 0.f, -0.f, 2.f, -kInf, kNaN},
                       OP(b.sign(x)));
  EXPECT_EQ(std::vector<float>(f.begin(), f.end() - 1),
            (std::vector<float>{-1.f, 0.f, -0.f, 1.f, -1.f}));
  EXPECT_TRUE(std::signbit(f[2]));
  EXPECT_TRUE(std::isnan(f[5]));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, std::vector<uint16_t>{0xc500, 0x0001, 0x8000, 0x7e00},
                           OP(b.sign(x))),
            (std::vector<uint16_t>{0xbc00, 0x3c00, 0x8000, 0x7e00}));
  EXPECT_EQ(run1<int8_t>(T::kInt8, std::vector<int8_t>{-128, 0, 127}, OP(b.sign(x))),
            (std::vector<int8_t>{-1, 0, 1}));
  EXPECT_EQ(run1<int32_t>(T::kInt32, std::vector<int32_t>{-5, 0, 9}, OP(b.sign(x))),
            (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(run1<int64_t>(T::kInt64, std::vector<int64_t>{INT64_MIN, 0, INT64_MAX}, OP(b.sign(x))),
            (std::vector<int64_t>{-1, 0, 1}));
}

TEST(RefUnary, TranscendentalsFloat32) {
  auto e = run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f, -kInf, 100.f}, OP(b.exp(x)));
  EXPECT_EQ(e, (std::vector<float>{1.f, 2.71828182845904524f, 0.f, kInf}));
  auto l = run1<float>(T::kFloat32, std::vector<float>{1.f, 0.f, -1.f, 2.f}, OP(b.log(x)));
  EXPECT_EQ(l[0], 0.f);
  EXPECT_EQ(l[1], -kInf);
  EXPECT_TRUE(std::isnan(l[2]));
  EXPECT_EQ(l[3], 0.693147180559945309f);
  auto s = run1<float>(T::kFloat32, std::vector<float>{4.f, 2.f, -1.f, -0.f}, OP(b.sqrt(x)));
  EXPECT_EQ(s[0], 2.f);
  EXPECT_EQ(s[1], 1.41421356237309505f);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_TRUE(std::signbit(s[3]));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{4.f, -0.f, 3.f}, OP(b.reciprocal(x))),
            (std::vector<float>{0.25f, -kInf, 0.333333333333333333f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f}, OP(b.cos(x))),
            (std::vector<float>{1.f, 0.540302305868139717f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f}, OP(b.sin(x))),
            (std::vector<float>{0.f, 0.841470984807896507f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f}, OP(b.tan(x))),
            (std::vector<float>{0.f, 1.55740772465490223f}));
  EXPECT_EQ(run1<float>(T::kFloat32, std::vector<float>{0.f, 1.f, kInf, -kInf}, OP(b.erf(x))),
            (std::vector<float>{0.f, 0.842700792949714869f, 1.f, -1.f}));
}

TEST(RefUnary, TranscendentalsFloat16RoundOnce) {
  // exp(1) = 2.71828... -> 2.71875 (0x4170); sqrt(2) -> 1.4140625 (0x3da8); 1/3 -> 0x3555.
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1.f, 0.f, 12.f}), OP(b.exp(x))),
            (std::vector<uint16_t>{0x4170, 0x3c00, 0x7c00}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({2.f}), OP(b.sqrt(x))),
            (std::vector<uint16_t>{0x3da8}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({3.f, 0.f}), OP(b.reciprocal(x))),
            (std::vector<uint16_t>{0x3555, 0x7c00}));
  // cos(1) = 0.5403023 -> 0.54052734375 (0x3853); log(2) = 0.693147 -> 0.69287109375 (0x398c).
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({1.f}), OP(b.cos(x))),
            (std::vector<uint16_t>{0x3853}));
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({2.f}), OP(b.log(x))),
            (std::vector<uint16_t>{0x398c}));
}

TEST(RefUnary, ConformanceExpSamples) {
  // exp.json "exp float32 1D constant tensor" and "exp float16 1D constant tensor" (first three
  // elements): float32 within its ULP 32 tolerance, float16 exactly.
  auto y = run1<float>(
      T::kFloat32,
      std::vector<float>{0.3421436548233032f, -3.310965061187744f, -3.6967575550079346f},
      OP(b.exp(x)));
  EXPECT_FLOAT_EQ(y[0], 1.4079625606536865f);
  EXPECT_FLOAT_EQ(y[1], 0.03648095205426216f);
  EXPECT_FLOAT_EQ(y[2], 0.024803820997476578f);
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, halves({0.342041015625f, -3.310546875f, -3.697265625f}),
                           OP(b.exp(x))),
            halves({1.408203125f, 0.0364990234375f, 0.0247955322265625f}));
}

TEST(RefUnary, IdentityIsBitExact) {
  const std::vector<uint16_t> hb{0,     32768, 1,     32769, 1023,  33791, 1024,  33792,
                                 15360, 48128, 31743, 64511, 31744, 64512, 32256, 65024};
  for (bool constant : {false, true}) {
    EXPECT_EQ(as<uint16_t>(run_unary(T::kFloat16, {1, 2, 2, 4}, hb, OP(b.identity(x)), constant)),
              hb);
  }
  const std::vector<uint16_t> payload{0x7e01, 0xfd55};
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, payload, OP(b.identity(x))), payload);
  const std::vector<int64_t> i{INT64_MIN, -1, INT64_MAX};
  EXPECT_EQ(run1<int64_t>(T::kInt64, i, OP(b.identity(x))), i);
  EXPECT_EQ(
      as<float>(run_unary(T::kFloat32, {}, std::vector<float>{-0.f}, OP(b.identity(x)))).size(),
      1u);
}

TEST(RefCast, SameTypeIsBitExact) {
  const std::vector<uint16_t> hb{0, 32768, 1, 32769, 1023, 33791, 31744, 64512, 32257, 65025};
  EXPECT_EQ(run1<uint16_t>(T::kFloat16, hb, OP(b.cast(x, T::kFloat16))), hb);
  const std::vector<uint32_t> fb{0, 2147483648u, 1, 2139095040u, 2143289345u, 4290772993u};
  EXPECT_EQ(run1<uint32_t>(T::kFloat32, fb, OP(b.cast(x, T::kFloat32))), fb);
}

TEST(RefCast, Float16ToFloat32IsExact) {
  // cast-storage.json "float16 to float32 cast".
  const std::vector<uint16_t> in{0,     32768, 1,     32769, 1023,  33791, 1024,  33792,
                                 15360, 48128, 31743, 64511, 31744, 64512, 32256, 65024};
  const std::vector<uint32_t> expected{0,          2147483648, 864026624,  3011510272,
                                       947896320,  3095379968, 947912704,  3095396352,
                                       1065353216, 3212836864, 1199562752, 3347046400,
                                       2139095040, 4286578688, 2143289344, 4290772992};
  for (bool constant : {false, true})
    EXPECT_EQ(as<uint32_t>(run_unary(T::kFloat16, {16}, in, OP(b.cast(x, T::kFloat32)), constant)),
              expected);
  // The NaN payload survives: 0x7e01 -> 0x7fc02000.
  EXPECT_EQ(run1<uint32_t>(T::kFloat16, std::vector<uint16_t>{0x7e01}, OP(b.cast(x, T::kFloat32))),
            (std::vector<uint32_t>{0x7fc02000u}));
}

TEST(RefCast, Float32ToFloat16RoundsToNearestEven) {
  // cast-storage.json "float32 to float16 signed underflow and ties".
  const std::vector<uint32_t> in{0,         2147483648, 847249408,  2994733056,
                                 855638016, 3003121664, 868220928,  3015704576,
                                 874512384, 3021996032, 1065357312, 3212840960};
  const std::vector<uint16_t> expected{0, 32768, 0, 32768, 0,     32768,
                                       2, 32770, 2, 32770, 15360, 48128};
  EXPECT_EQ(run1<uint16_t>(T::kFloat32, in, OP(b.cast(x, T::kFloat16))), expected);
  EXPECT_EQ(run1<uint16_t>(T::kFloat32, std::vector<float>{65519.f, 65520.f, -1e9f, kInf},
                           OP(b.cast(x, T::kFloat16))),
            (std::vector<uint16_t>{0x7bff, 0x7c00, 0xfc00, 0x7c00}));
}

TEST(RefCast, FloatToIntegerTruncatesAndSaturates) {
  EXPECT_EQ(run1<int32_t>(T::kFloat32, std::vector<float>{1.9f, -1.9f, 3e9f, -3e9f, kNaN, -0.f},
                          OP(b.cast(x, T::kInt32))),
            (std::vector<int32_t>{1, -1, INT32_MAX, INT32_MIN, 0, 0}));
  EXPECT_EQ(run1<uint8_t>(T::kFloat32, std::vector<float>{-1.f, 300.f, 255.9f, -0.5f},
                          OP(b.cast(x, T::kUint8))),
            (std::vector<uint8_t>{0, 255, 255, 0}));
  EXPECT_EQ(run1<int64_t>(T::kFloat32, std::vector<float>{1e19f, -1e19f, -kInf, 123456789.f},
                          OP(b.cast(x, T::kInt64))),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MIN, 123456792}));
  EXPECT_EQ(
      run1<uint64_t>(T::kFloat32, std::vector<float>{1e20f, -5.f, kInf}, OP(b.cast(x, T::kUint64))),
      (std::vector<uint64_t>{UINT64_MAX, 0, UINT64_MAX}));
  EXPECT_EQ(run1<int8_t>(T::kFloat16, halves({200.f, -200.f, -7.75f}), OP(b.cast(x, T::kInt8))),
            (std::vector<int8_t>{127, -128, -7}));
}

TEST(RefCast, IntegerToIntegerWraps) {
  EXPECT_EQ(
      run1<int8_t>(T::kInt32, std::vector<int32_t>{300, -129, 127, -128}, OP(b.cast(x, T::kInt8))),
      (std::vector<int8_t>{44, 127, 127, -128}));
  EXPECT_EQ(run1<uint32_t>(T::kInt64, std::vector<int64_t>{-1, (int64_t{1} << 32) + 5},
                           OP(b.cast(x, T::kUint32))),
            (std::vector<uint32_t>{4294967295u, 5}));
  EXPECT_EQ(run1<int64_t>(T::kUint64, std::vector<uint64_t>{UINT64_MAX}, OP(b.cast(x, T::kInt64))),
            (std::vector<int64_t>{-1}));
  EXPECT_EQ(run1<uint8_t>(T::kInt8, std::vector<int8_t>{-1, -128}, OP(b.cast(x, T::kUint8))),
            (std::vector<uint8_t>{255, 128}));
  EXPECT_EQ(run1<int32_t>(T::kUint32, std::vector<uint32_t>{4294967295u}, OP(b.cast(x, T::kInt32))),
            (std::vector<int32_t>{-1}));
}

TEST(RefCast, IntegerToFloatRoundsOnce) {
  // 2^60 + 2^36 + 1 is just above a float32 midpoint: one rounding gives 2^60 + 2^37; rounding
  // through double first would give 2^60.
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ(run1<float>(T::kInt64, std::vector<int64_t>{big, 16777217}, OP(b.cast(x, T::kFloat32))),
            (std::vector<float>{0x1.000002p60f, 16777216.f}));
  EXPECT_EQ(run1<float>(T::kUint32, std::vector<uint32_t>{4294967295u}, OP(b.cast(x, T::kFloat32))),
            (std::vector<float>{4294967296.f}));
  EXPECT_EQ(run1<uint16_t>(T::kInt32, std::vector<int32_t>{65519, 65520, 2049, 2051, -70000},
                           OP(b.cast(x, T::kFloat16))),
            (std::vector<uint16_t>{0x7bff, 0x7c00, h(2048.f), h(2052.f), 0xfc00}));
  EXPECT_EQ(
      run1<uint16_t>(T::kUint64, std::vector<uint64_t>{UINT64_MAX, 7}, OP(b.cast(x, T::kFloat16))),
      (std::vector<uint16_t>{0x7c00, h(7.f)}));
}

// Every one of the 8x8 type pairs carries small values through (7 and, for signed types, -3).
TEST(RefCast, AllTypePairs) {
  const std::vector<T> types{T::kFloat32, T::kFloat16, T::kInt32, T::kUint32,
                             T::kInt64,   T::kUint64,  T::kInt8,  T::kUint8};
  auto encode = [](T t, double v) {
    std::vector<std::byte> b(8);
    MLNumber(v).cast_to_bytes(t, b.data());
    b.resize(t == T::kFloat32 || t == T::kInt32 || t == T::kUint32 ? 4
             : t == T::kFloat16                                    ? 2
             : t == T::kInt8 || t == T::kUint8                     ? 1
                                                                   : 8);
    return b;
  };
  auto is_signed = [](T t) {
    return t == T::kFloat32 || t == T::kFloat16 || t == T::kInt32 || t == T::kInt64 ||
           t == T::kInt8;
  };
  for (T from : types) {
    for (T to : types) {
      std::vector<double> values{7};
      if (is_signed(from) && is_signed(to)) values.push_back(-3);
      for (double v : values) {
        MLContext ctx = MLContext::create({.backend = "reference"});
        MLGraphBuilder b(ctx);
        MLOperand x = b.input("x", {from, {}});
        MLGraph g = b.build({{"y", b.cast(x, to)}});
        auto y = run_graph(ctx, g, {{"x", encode(from, v)}}).at("y");
        EXPECT_EQ(y, encode(to, v))
            << data_type_name(from) << " -> " << data_type_name(to) << " " << v;
      }
    }
  }
}

}  // namespace
}  // namespace cppnn
