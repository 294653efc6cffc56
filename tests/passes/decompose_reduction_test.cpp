// The decompositions of the reductions, argMin/argMax, cumulativeSum, the normalizations and gemm
// (src/passes/decompose/{reduction,normalization,matrix}.cpp): the same graph runs on the minimal
// backend (which has none of these ops natively, so it runs the decomposition) and on the
// reference backend; integers must agree bit for bit, floats within a few ULP (bit-exact where the
// decomposition rounds once, incl. NaN, Inf and signed zeros).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::run_graph;
using testing::to_bytes;
using enum MLOperandDataType;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One graph input: its descriptor and bytes.
struct Tensor {
  MLOperandDescriptor desc;
  std::vector<std::byte> bytes;
};

// A tensor of `type` holding `values` (T matching the type's element).
template <class T>
Tensor tensor(MLOperandDataType type, std::vector<uint32_t> shape, const std::vector<T>& values) {
  return {{type, std::move(shape)}, to_bytes(values)};
}

// A float16 tensor of `values` (rounded to nearest even).
Tensor half(std::vector<uint32_t> shape, const std::vector<float>& values) {
  return {{kFloat16, std::move(shape)}, to_bytes(testing::half_bits(values))};
}

// n deterministic pseudo-random values in [lo, hi).
std::vector<float> randoms(size_t n, float lo, float hi, uint32_t seed = 1) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

using GraphFn = std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)>;

// The output of graph `f` on `inputs` (named x0, x1, ...), run on `backend`.
struct Output {
  MLOperandDescriptor desc;
  std::vector<std::byte> bytes;
};
Output run_on(const std::string& backend, const std::vector<Tensor>& inputs, const GraphFn& f) {
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder b(context);
  std::vector<MLOperand> operands;
  std::map<std::string, std::vector<std::byte>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    operands.push_back(b.input(name, inputs[i].desc));
    feeds.emplace(name, inputs[i].bytes);
  }
  const MLOperand y = f(b, operands);
  const MLOperandDescriptor desc = y.descriptor();
  const MLGraph graph = b.build({{"y", y}});
  return {desc, run_graph(context, graph, feeds).at("y")};
}

// Distance in representable values between two floats of the same width (bits ordered so that
// consecutive values differ by 1; -0 and +0 are 0 apart); `width` is 2 or 4 bytes.
int64_t ulp_distance(const std::byte* a, const std::byte* b, size_t width) {
  auto ordered = [width](const std::byte* p) -> int64_t {
    uint32_t bits = 0;
    std::memcpy(&bits, p, width);
    const uint32_t sign = width == 4 ? 0x80000000u : 0x8000u;
    const int64_t magnitude = bits & (sign - 1);
    return (bits & sign) ? -magnitude : magnitude;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// An element of float bytes (`width` 2 or 4) as a double.
double value_of(const std::byte* p, size_t width) {
  if (width == 2) {
    uint16_t bits = 0;
    std::memcpy(&bits, p, 2);
    return half_bits_to_float(bits);
  }
  float f = 0;
  std::memcpy(&f, p, 4);
  return f;
}

// Runs `f` on the minimal and the reference backend and expects the same descriptor and values:
// integers bit for bit, floats within `ulps` (0: identical bits, NaN matching NaN) or, when
// `atol` is given, within `atol` (float32 normalizations: their final + bias may cancel, so an
// error of a few ULP of the unit-scale terms is many ULP of a result near 0).
void expect_matches(const std::vector<Tensor>& inputs, const GraphFn& f, int64_t ulps = 0,
                    double atol = 0) {
  const Output want = run_on("reference", inputs, f);
  const Output got = run_on("minimal", inputs, f);
  ASSERT_EQ(got.desc, want.desc);
  ASSERT_EQ(got.bytes.size(), want.bytes.size());
  const MLOperandDataType t = want.desc.dataType;
  if (t != kFloat32 && t != kFloat16) {
    EXPECT_EQ(got.bytes, want.bytes);
    return;
  }
  const size_t width = t == kFloat32 ? 4 : 2;
  for (size_t i = 0; i < want.bytes.size(); i += width) {
    const std::byte* w = want.bytes.data() + i;
    const std::byte* g = got.bytes.data() + i;
    const double wv = value_of(w, width), gv = value_of(g, width);
    if (std::isnan(wv)) {
      EXPECT_TRUE(std::isnan(gv)) << "element " << i / width;
    } else if (ulps == 0 && atol == 0) {
      EXPECT_EQ(std::memcmp(w, g, width), 0)
          << "element " << i / width << ": " << gv << " vs " << wv;
    } else if (std::fabs(gv - wv) > atol) {
      EXPECT_LE(ulp_distance(w, g, width), ulps)
          << "element " << i / width << ": " << gv << " vs " << wv;
    }
  }
}

// ---- argMin / argMax ------------------------------------------------------------------------

TEST(DecomposeReduction, ArgMaxTakesTheFirstMaximumAndTheFirstNaN) {
  // [2, 3, 2] along axis 1: ties pick the first index, -0 ties +0, NaN wins from its position.
  const Tensor x =
      tensor<float>(kFloat32, {2, 3, 2}, {1, 5, 3, 5, 3, kNaN, -0.0f, 2, 0, kNaN, 0, 2});
  expect_matches(
      {x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return b.argMax(in[0], 1); });
  expect_matches({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return b.argMin(in[0], 1, {.keepDimensions = true, .outputDataType = kInt64});
  });
}

TEST(DecomposeReduction, ArgMinMaxOfIntegersUseTheirOwnOrder) {
  const int64_t lo = std::numeric_limits<int64_t>::lowest(),
                hi = std::numeric_limits<int64_t>::max();
  const Tensor i64 = tensor<int64_t>(kInt64, {2, 3}, {hi, lo, hi, 0, lo, lo});
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  const Tensor u64 = tensor<uint64_t>(kUint64, {3, 2}, {top, 1, 0, top, top, 0});
  const Tensor u8 = tensor<uint8_t>(kUint8, {4}, {200, 7, 255, 7});
  const Tensor i8 = tensor<int8_t>(kInt8, {4}, {-128, 127, -128, 127});
  for (const Tensor& x : {i64, u64, u8, i8}) {
    expect_matches({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.argMax(in[0], 0, {.outputDataType = kInt64});
    });
    expect_matches({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.argMin(in[0], 0, {.keepDimensions = true});
    });
  }
}

TEST(DecomposeReduction, ArgMaxOfFloat16AlongTheLastAxis) {
  expect_matches(
      {half({3, 4}, randoms(12, -2, 2))},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return b.argMax(in[0], 1); });
}

// ---- cumulativeSum ---------------------------------------------------------------------------

// Every combination of exclusive and reversed along `axis`.
void expect_scans_match(const Tensor& x, uint32_t axis, int64_t ulps) {
  for (bool exclusive : {false, true})
    for (bool reversed : {false, true})
      expect_matches(
          {x},
          [=](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
            return b.cumulativeSum(in[0], axis, {.exclusive = exclusive, .reversed = reversed});
          },
          ulps);
}

TEST(DecomposeReduction, CumulativeSumOfIntegersWraps) {
  expect_scans_match(tensor<int32_t>(kInt32, {3, 5},
                                     {std::numeric_limits<int32_t>::max(), 1, 2, 3, 4, -5, 6, 7, 8,
                                      9, 10, 11, -12, 13, 14}),
                     1, 0);
  expect_scans_match(tensor<uint64_t>(kUint64, {5, 1}, {~0ull, 2, 3, 4, 5}), 0, 0);
}

TEST(DecomposeReduction, CumulativeSumOfFloatsKeepsInfNaNAndSignedZeros) {
  expect_scans_match(
      tensor<float>(kFloat32, {2, 6}, {-0.0f, -0.0f, 1, kInf, -1, 2, 3e7f, 1, -3e7f, kNaN, 0, 1}),
      1, 0);
  expect_scans_match(tensor<float>(kFloat32, {7, 3}, randoms(21, -100, 100)), 0, 0);
  expect_scans_match(half({2, 9, 1}, randoms(18, -10, 10)), 1, 0);
}

TEST(DecomposeReduction, CumulativeSumAlongALongAxisUsesLogStepSums) {
  // Beyond the scan matrix size: log-step sums in float32, a few roundings per element.
  expect_scans_match(tensor<float>(kFloat32, {1500}, randoms(1500, 0.5f, 1)), 0, 8);
}

// ---- the reductions --------------------------------------------------------------------------

using Reduce = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLReduceOptions&);

// reduction `op` on x with default options, axes [] (identity), axes [0, 2] and keepDimensions.
void expect_reductions_match(Reduce op, const Tensor& x, int64_t ulps) {
  const std::vector<MLReduceOptions> variants{{},
                                              {.axes = std::vector<uint32_t>{}},
                                              {.axes = {2, 0}, .keepDimensions = true},
                                              {.axes = {1}}};
  for (const MLReduceOptions& o : variants)
    expect_matches(
        {x}, [=](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return (b.*op)(in[0], o); },
        ulps);
}

const Tensor& floats32() {
  static const Tensor t = tensor<float>(kFloat32, {2, 3, 4}, randoms(24, 0.5f, 2));
  return t;
}
const Tensor& floats16() {
  static const Tensor t = half({2, 3, 4}, randoms(24, 0.5f, 2, 7));
  return t;
}
const Tensor& mixed32() {
  static const Tensor t = tensor<float>(kFloat32, {2, 3, 4}, randoms(24, -3, 3, 3));
  return t;
}

TEST(DecomposeReduction, ReduceL1IsExactForEveryType) {
  expect_reductions_match(&MLGraphBuilder::reduceL1, mixed32(), 0);
  expect_reductions_match(&MLGraphBuilder::reduceL1, half({2, 3, 4}, randoms(24, -3, 3)), 0);
  std::vector<int32_t> ints(24);
  // Large values whose sum wraps (computed in int64, converted modulo 2^32 as C++20 defines).
  for (int i = 0; i < 24; ++i) ints[i] = static_cast<int32_t>(int64_t{i % 3 - 1} * i * 100000000);
  ints[5] = std::numeric_limits<int32_t>::lowest();
  expect_reductions_match(&MLGraphBuilder::reduceL1, tensor<int32_t>(kInt32, {2, 3, 4}, ints), 0);
  std::vector<uint32_t> u(24, 0xf0000000u);
  expect_reductions_match(&MLGraphBuilder::reduceL1, tensor<uint32_t>(kUint32, {2, 3, 4}, u), 0);
}

TEST(DecomposeReduction, ReduceL1OfNegativeZeroIsPositiveZero) {
  expect_matches(
      {tensor<float>(kFloat32, {3}, {-0.0f, -0.0f, -0.0f})},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return b.reduceL1(in[0]); });
}

TEST(DecomposeReduction, ReduceSumSquareRoundsOnceAndWrapsIntegers) {
  expect_reductions_match(&MLGraphBuilder::reduceSumSquare, mixed32(), 0);
  expect_reductions_match(&MLGraphBuilder::reduceSumSquare, floats16(), 0);
  std::vector<int64_t> big(24);
  for (int i = 0; i < 24; ++i) big[i] = (int64_t{1} << 40) + i * 77777;
  expect_reductions_match(&MLGraphBuilder::reduceSumSquare, tensor<int64_t>(kInt64, {2, 3, 4}, big),
                          0);
}

TEST(DecomposeReduction, FloatReductionsStayWithinAFewUlp) {
  for (Reduce op : {&MLGraphBuilder::reduceL2, &MLGraphBuilder::reduceMean,
                    &MLGraphBuilder::reduceLogSum, &MLGraphBuilder::reduceLogSumExp}) {
    expect_reductions_match(op, floats32(), 2);
    expect_reductions_match(op, floats16(), 1);
  }
  expect_reductions_match(&MLGraphBuilder::reduceLogSumExp, mixed32(), 2);
}

TEST(DecomposeReduction, ReduceLogSumExpOfInfinities) {
  expect_matches({tensor<float>(kFloat32, {3, 2}, {-kInf, -kInf, kInf, 1, kNaN, 2})},
                 [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
                   return b.reduceLogSumExp(in[0], {.axes = {1}});
                 });
}

TEST(DecomposeReduction, ReduceMinIsBitExactForEveryType) {
  expect_reductions_match(&MLGraphBuilder::reduceMin, mixed32(), 0);
  expect_reductions_match(&MLGraphBuilder::reduceMin, floats16(), 0);
  expect_matches({tensor<float>(kFloat32, {4}, {0.0f, -0.0f, 1, kNaN})},
                 [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
                   return b.reduceMin(in[0], {.axes = {0}});
                 });
  std::vector<uint64_t> u(24);
  std::vector<int8_t> s(24);
  for (int i = 0; i < 24; ++i) {
    u[i] = ~0ull - static_cast<uint64_t>((i * 7) % 24);
    s[i] = static_cast<int8_t>(-128 + (i * 37) % 256);
  }
  expect_reductions_match(&MLGraphBuilder::reduceMin, tensor<uint64_t>(kUint64, {2, 3, 4}, u), 0);
  expect_reductions_match(&MLGraphBuilder::reduceMin, tensor<int8_t>(kInt8, {2, 3, 4}, s), 0);
}

TEST(DecomposeReduction, ReduceProductIsExactForIntegers) {
  std::vector<int32_t> ints(24);
  std::vector<uint64_t> u(24);
  for (int i = 0; i < 24; ++i) {
    ints[i] = (i % 2 ? -1 : 1) * (i + 3) * 1001;
    u[i] = 0x100000001ull * static_cast<uint64_t>(i + 2);
  }
  expect_reductions_match(&MLGraphBuilder::reduceProduct, tensor<int32_t>(kInt32, {2, 3, 4}, ints),
                          0);
  expect_reductions_match(&MLGraphBuilder::reduceProduct, tensor<uint64_t>(kUint64, {2, 3, 4}, u),
                          0);
  expect_reductions_match(&MLGraphBuilder::reduceProduct, floats32(), 8);
  expect_reductions_match(&MLGraphBuilder::reduceProduct, floats16(), 1);
}

TEST(DecomposeReduction, ReductionsOfAScalar) {
  const Tensor x = tensor<float>(kFloat32, {}, {-2.5f});
  for (Reduce op :
       {&MLGraphBuilder::reduceL1, &MLGraphBuilder::reduceL2, &MLGraphBuilder::reduceLogSumExp,
        &MLGraphBuilder::reduceMin, &MLGraphBuilder::reduceProduct,
        &MLGraphBuilder::reduceSumSquare, &MLGraphBuilder::reduceMean})
    expect_matches({x}, [=](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return (b.*op)(in[0], {});
    });
}

// ---- normalizations --------------------------------------------------------------------------

TEST(DecomposeNormalization, BatchNormalizationWithAndWithoutScaleAndBias) {
  const Tensor x = tensor<float>(kFloat32, {2, 3, 4}, randoms(24, -5, 5));
  const Tensor mean = tensor<float>(kFloat32, {4}, randoms(4, -1, 1, 2));
  const Tensor var = tensor<float>(kFloat32, {4}, randoms(4, 0.1f, 2, 3));
  const Tensor scale = tensor<float>(kFloat32, {4}, randoms(4, -2, 2, 4));
  expect_matches(
      {x, mean, var, scale, mean},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.batchNormalization(in[0], in[1], in[2],
                                    {.scale = in[3], .bias = in[4], .axis = 2, .epsilon = 1e-3});
      },
      4, 1e-6);
  const Tensor x16 = half({1, 3, 2, 2}, randoms(12, -5, 5));
  expect_matches(
      {x16, half({3}, randoms(3, -1, 1)), half({3}, randoms(3, 0.1f, 2, 5))},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.batchNormalization(in[0], in[1], in[2]);
      },
      1);
}

TEST(DecomposeNormalization, InstanceNormalizationInBothLayouts) {
  const Tensor x = tensor<float>(kFloat32, {2, 3, 2, 3}, randoms(36, -5, 5));
  const Tensor scale = tensor<float>(kFloat32, {3}, randoms(3, -2, 2, 4));
  const Tensor bias = tensor<float>(kFloat32, {3}, randoms(3, -2, 2, 5));
  for (MLInputOperandLayout layout : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc})
    expect_matches(
        {x, scale, bias},
        [=](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
          return b.instanceNormalization(in[0], {.scale = in[1], .bias = in[2], .layout = layout});
        },
        16, 1e-6);
  expect_matches(
      {half({1, 2, 3, 3}, randoms(18, -5, 5))},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.instanceNormalization(in[0]);
      },
      1);
}

TEST(DecomposeNormalization, LayerNormalizationAxes) {
  const Tensor x = tensor<float>(kFloat32, {2, 3, 4}, randoms(24, -5, 5));
  // Scale and bias follow the order of axes: [4, 3] for axes [2, 1].
  const Tensor scale = tensor<float>(kFloat32, {4, 3}, randoms(12, -2, 2, 4));
  const Tensor bias = tensor<float>(kFloat32, {4, 3}, randoms(12, -2, 2, 5));
  expect_matches(
      {x, scale, bias},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.layerNormalization(in[0], {.scale = in[1], .bias = in[2], .axes = {2, 1}});
      },
      16, 1e-6);
  expect_matches({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return b.layerNormalization(in[0], {.axes = std::vector<uint32_t>{}});
  });
  expect_matches(
      {half({2, 3, 4}, randoms(24, -5, 5))},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.layerNormalization(in[0]);
      },
      1);
}

// ---- gemm ------------------------------------------------------------------------------------

TEST(DecomposeMatrix, GemmWithTransposesAlphaBetaAndBroadcastC) {
  const Tensor a = tensor<float>(kFloat32, {5, 3}, randoms(15, -2, 2));
  const Tensor b = tensor<float>(kFloat32, {4, 5}, randoms(20, -2, 2, 2));
  const Tensor c = tensor<float>(kFloat32, {4}, randoms(4, -2, 2, 3));
  expect_matches(
      {a, b, c},
      [](MLGraphBuilder& g, const std::vector<MLOperand>& in) {
        return g.gemm(
            in[0], in[1],
            {.c = in[2], .alpha = 0.5, .beta = -2, .aTranspose = true, .bTranspose = true});
      },
      4, 1e-6);
  expect_matches(
      {tensor<float>(kFloat32, {3, 5}, randoms(15, -2, 2)),
       tensor<float>(kFloat32, {5, 4}, randoms(20, -2, 2, 2))},
      [](MLGraphBuilder& g, const std::vector<MLOperand>& in) { return g.gemm(in[0], in[1]); });
  expect_matches(
      {half({3, 5}, randoms(15, -2, 2)), half({5, 4}, randoms(20, -2, 2, 2)),
       half({3, 1}, randoms(3, -2, 2, 3))},
      [](MLGraphBuilder& g, const std::vector<MLOperand>& in) {
        return g.gemm(in[0], in[1], {.c = in[2], .alpha = 0.3, .beta = 0.7});
      },
      1);
}

// ---- the context's limits --------------------------------------------------------------------

// Every data type the spec (and so the reference backend) allows for these ops is reachable on the
// minimal backend through its decomposition (the DecompositionUse lists are complete).
TEST(DecomposeReduction, MinimalContextTakesEveryDataTypeTheSpecAllows) {
  const MLOpSupportLimits want = testing::ref_context().opSupportLimits();
  const MLOpSupportLimits got = MLContext::create({.backend = "minimal"}).opSupportLimits();
  for (const char* op :
       {"argMin", "argMax", "cumulativeSum", "reduceL1", "reduceL2", "reduceLogSum",
        "reduceLogSumExp", "reduceMean", "reduceMin", "reduceProduct", "reduceSumSquare",
        "batchNormalization", "instanceNormalization", "layerNormalization"})
    EXPECT_EQ(got.op(op)["input"], want.op(op)["input"]) << op;
  EXPECT_EQ(got.op("gemm")["a"], want.op("gemm")["a"]);
}

}  // namespace
}  // namespace cppnn
