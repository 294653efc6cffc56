// The decompositions of the elementwise binary, elementwise unary and activation ops
// (src/passes/decompose/{elementwise_binary,elementwise_unary,activations}.cpp): each graph runs
// on the minimal backend (which must decompose the op into its core ops) and on the reference
// backend (which runs it natively) with the same values, edge cases included (±0, NaN, ±Inf,
// halves, integer extremes), and the results must agree: bit for bit (the sign of zero too) for
// the exact ops, within a few ULP for the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

using enum MLOperandDataType;
using testing::as;
using testing::run_graph;
using testing::to_bytes;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One graph input: its descriptor and bytes.
struct Tensor {
  MLOperandDescriptor desc;
  std::vector<std::byte> bytes;
};

// A float32 or float16 (rounded to nearest even) tensor of `shape` holding `v`.
Tensor floats(MLOperandDataType t, std::vector<float> v, std::vector<uint32_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<uint32_t>(v.size())};
  if (t == kFloat16) return {{t, shape}, to_bytes(testing::half_bits(v))};
  return {{t, shape}, to_bytes(v)};
}

// An integer tensor of element type E.
template <class E>
Tensor ints(MLOperandDataType t, std::vector<E> v, std::vector<uint32_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<uint32_t>(v.size())};
  return {{t, shape}, to_bytes(v)};
}

// Edge values every float test includes, then ordinary ones.
std::vector<float> edge_floats() {
  return {0.0f,   -0.0f,       kNaN,         -kNaN,  kInf,     -kInf,  0.5f,      -0.5f,
          1.5f,   -1.5f,       2.5f,         -2.5f,  3.0f,     -3.0f,  1e-7f,     -1e-7f,
          1e-3f,  -1e-3f,      0.1f,         -0.7f,  4.75f,    -9.3f,  1234.5f,   -88.0f,
          100.0f, -100.f,      2e4f,         -6e4f,  1e30f,    -1e30f, 8388609.f, -8388607.5f,
          1025.f, 0.49999997f, -0.50000006f, 7e-39f, -1.4e-45f};
}

// A float tensor of the edge values.
Tensor edges(MLOperandDataType t) {
  return floats(t, edge_floats());
}

// How close the minimal backend's result must be: `ulp` 0 means bit-exact (NaN matches any NaN),
// else WPT's ULP distance; `atol` > 0 accepts an absolute difference too.
struct Tolerance {
  int64_t ulp = 0;
  double atol = 0;
};

using BuildFn = std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)>;

// Builds `fn` over `inputs` on `backend` and runs it; the output's descriptor and bytes.
Tensor run_on(const std::string& backend, const std::vector<Tensor>& inputs, const BuildFn& fn) {
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder b(context);
  std::vector<MLOperand> operands;
  std::map<std::string, std::vector<std::byte>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    operands.push_back(b.input(name, inputs[i].desc));
    feeds.emplace(name, inputs[i].bytes);
  }
  const MLOperand y = fn(b, operands);
  const MLGraph graph = b.build({{"y", y}});
  return {y.descriptor(), run_graph(context, graph, feeds).at("y")};
}

// The WPT ULP key of a float32 (sign-magnitude to a line through 0).
int64_t ulp_key(float v) {
  int32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits < 0 ? -int64_t{bits & 0x7fffffff} : int64_t{bits};
}

// Whether float element `got` is within `tol` of `want` (ulps: the type's own ULP distance).
bool float_close(double got, double want, int64_t ulps, const Tolerance& tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (tol.ulp == 0 && tol.atol == 0) return got == want && std::signbit(got) == std::signbit(want);
  if (got == want) return true;
  return ulps <= tol.ulp || (tol.atol > 0 && std::fabs(got - want) <= tol.atol);
}

// A value with all its float32 digits.
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// Every element of `got` and `want` (of type E) that differs beyond `tol`, as text.
template <class E>
std::string differences(const Tensor& got, const Tensor& want, const Tolerance& tol) {
  const auto g = as<E>(got.bytes), w = as<E>(want.bytes);
  std::string out;
  for (size_t i = 0; i < g.size(); ++i) {
    bool ok = false;
    double gv = 0, wv = 0;
    if constexpr (std::is_same_v<E, float>) {
      gv = g[i], wv = w[i];
      ok = float_close(gv, wv, std::llabs(ulp_key(g[i]) - ulp_key(w[i])), tol);
    } else if constexpr (std::is_same_v<E, uint16_t>) {  // float16 bits
      gv = half_bits_to_float(g[i]), wv = half_bits_to_float(w[i]);
      ok = float_close(gv, wv, std::abs(int{g[i]} - int{w[i]}), tol);
    } else {
      gv = static_cast<double>(g[i]), wv = static_cast<double>(w[i]);
      ok = g[i] == w[i];
    }
    if (!ok) out += " [" + std::to_string(i) + "] " + number(gv) + " vs " + number(wv);
  }
  return out;
}

// Runs `fn` on the minimal and the reference backends with `inputs` and expects the same output
// descriptor and results within `tol`.
void expect_matches_reference(const std::vector<Tensor>& inputs, const BuildFn& fn,
                              Tolerance tol = {}) {
  const Tensor got = run_on("minimal", inputs, fn);
  const Tensor want = run_on("reference", inputs, fn);
  ASSERT_EQ(got.desc, want.desc);
  ASSERT_EQ(got.bytes.size(), want.bytes.size());
  std::string diff;
  switch (want.desc.dataType) {
    case kFloat32:
      diff = differences<float>(got, want, tol);
      break;
    case kFloat16:
      diff = differences<uint16_t>(got, want, tol);
      break;
    case kInt32:
      diff = differences<int32_t>(got, want, tol);
      break;
    case kUint32:
      diff = differences<uint32_t>(got, want, tol);
      break;
    case kInt64:
      diff = differences<int64_t>(got, want, tol);
      break;
    case kUint64:
      diff = differences<uint64_t>(got, want, tol);
      break;
    case kInt8:
      diff = differences<int8_t>(got, want, tol);
      break;
    case kUint8:
      diff = differences<uint8_t>(got, want, tol);
      break;
    default:
      FAIL() << "no comparison for " << to_string(want.desc);
  }
  EXPECT_EQ(diff, "") << "minimal vs reference for " << to_string(want.desc);
}

// A unary op applied to input 0.
BuildFn unary(std::function<MLOperand(MLGraphBuilder&, const MLOperand&)> f) {
  return [f](MLGraphBuilder& b, const std::vector<MLOperand>& in) { return f(b, in[0]); };
}

// A binary op applied to inputs 0 and 1.
BuildFn binary(MLOperand (MLGraphBuilder::*m)(const MLOperand&, const MLOperand&,
                                              const MLOperatorOptions&)) {
  return [m](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return (b.*m)(in[0], in[1], MLOperatorOptions{});
  };
}

#define UNARY(expr) unary([](MLGraphBuilder& b, const MLOperand& x) { return b.expr; })

// The float types every float op is checked with.
const MLOperandDataType kFloats[] = {kFloat32, kFloat16};

// ---- elementwise binary ----

// Pairs of every edge value with every other (a: [n, 1], b: [n], broadcast to [n, n]).
std::vector<Tensor> all_pairs(MLOperandDataType t) {
  const std::vector<float> v = {0.0f, -0.0f, kNaN, kInf, -kInf, 1.5f, -1.5f, 2.0f, 65504.f};
  const auto n = static_cast<uint32_t>(v.size());
  return {floats(t, v, {n, 1}), floats(t, v, {n})};
}

TEST(DecomposeComparison, NotEqualGreaterGreaterOrEqualOnFloats) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference(all_pairs(t), binary(&MLGraphBuilder::notEqual));
    expect_matches_reference(all_pairs(t), binary(&MLGraphBuilder::greater));
    expect_matches_reference(all_pairs(t), binary(&MLGraphBuilder::greaterOrEqual));
  }
}

TEST(DecomposeComparison, IntegerTypesAndBroadcasting) {
  const std::vector<Tensor> i64 = {
      ints<int64_t>(kInt64, {INT64_MIN, -1, 0, 1, INT64_MAX, 7}, {2, 3}),
      ints<int64_t>(kInt64, {INT64_MAX, 0, 1}, {3})};
  const std::vector<Tensor> u8 = {ints<uint8_t>(kUint8, {0, 1, 255, 128}, {4, 1}),
                                  ints<uint8_t>(kUint8, {255, 0, 128}, {1, 3})};
  const std::vector<Tensor> u64 = {ints<uint64_t>(kUint64, {0, UINT64_MAX, 1ull << 63}),
                                   ints<uint64_t>(kUint64, {UINT64_MAX, UINT64_MAX, 0})};
  for (const auto& in : {i64, u8, u64}) {
    expect_matches_reference(in, binary(&MLGraphBuilder::notEqual));
    expect_matches_reference(in, binary(&MLGraphBuilder::greater));
    expect_matches_reference(in, binary(&MLGraphBuilder::greaterOrEqual));
  }
}

TEST(DecomposeLogical, AndOrXorTreatEveryNonzeroValueAsTrue) {
  const std::vector<Tensor> in = {ints<uint8_t>(kUint8, {0, 1, 2, 255}, {4, 1}),
                                  ints<uint8_t>(kUint8, {0, 1, 128, 255}, {4})};
  expect_matches_reference(in, binary(&MLGraphBuilder::logicalAnd));
  expect_matches_reference(in, binary(&MLGraphBuilder::logicalOr));
  expect_matches_reference(in, binary(&MLGraphBuilder::logicalXor));
}

TEST(DecomposeLogical, ResultsAreZeroOrOne) {
  const Tensor got =
      run_on("minimal", {ints<uint8_t>(kUint8, {7, 0, 7}), ints<uint8_t>(kUint8, {9, 9, 0})},
             binary(&MLGraphBuilder::logicalAnd));
  EXPECT_EQ(as<uint8_t>(got.bytes), (std::vector<uint8_t>{1, 0, 0}));
}

// ---- elementwise unary ----

TEST(DecomposeUnary, IsNaNAndIsInfinite) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(isNaN(x)));
    expect_matches_reference({edges(t)}, UNARY(isInfinite(x)));
  }
}

TEST(DecomposeUnary, AbsNegSignOnFloatsKeepTheSignOfZero) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(abs(x)));
    expect_matches_reference({edges(t)}, UNARY(neg(x)));
    expect_matches_reference({edges(t)}, UNARY(sign(x)));
  }
}

TEST(DecomposeUnary, AbsNegSignOnSignedIntegersWrap) {
  const std::vector<Tensor> inputs = {
      ints<int8_t>(kInt8, {-128, -127, -1, 0, 1, 127}),
      ints<int32_t>(kInt32, {INT32_MIN, -5, 0, 5, INT32_MAX}),
      ints<int64_t>(kInt64, {INT64_MIN, -(1ll << 40), -1, 0, 3, INT64_MAX})};
  for (const Tensor& in : inputs) {
    expect_matches_reference({in}, UNARY(abs(x)));
    expect_matches_reference({in}, UNARY(neg(x)));
    expect_matches_reference({in}, UNARY(sign(x)));
  }
}

TEST(DecomposeUnary, CeilAndRoundEvenAreExact) {
  std::vector<float> halves = edge_floats();
  for (float v = -6.0f; v <= 6.0f; v += 0.25f) halves.push_back(v);
  for (float v : {8388607.5f, 8388606.5f, 1023.5f, 1022.5f, 2047.f, 0.4999f, -1024.5f})
    halves.push_back(v);
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({floats(t, halves)}, UNARY(ceil(x)));
    expect_matches_reference({floats(t, halves)}, UNARY(roundEven(x)));
  }
}

TEST(DecomposeUnary, Reciprocal) {
  for (MLOperandDataType t : kFloats) expect_matches_reference({edges(t)}, UNARY(reciprocal(x)));
}

TEST(DecomposeUnary, TanWithinTheWptTolerance) {
  std::vector<float> v;
  for (float x = -10.0f; x <= 10.0f; x += 0.37f) v.push_back(x);
  for (float x : {0.0f, -0.0f, kNaN, kInf, 1.5607f, -1.5607f}) v.push_back(x);
  expect_matches_reference({floats(kFloat32, v)}, UNARY(tan(x)), {.ulp = 4, .atol = 1.0 / 1024});
  expect_matches_reference({floats(kFloat16, v)}, UNARY(tan(x)), {.ulp = 1, .atol = 1.0 / 512});
}

// ---- activations ----

TEST(DecomposeClamp, FloatsKeepNaNAndTheSignOfZero) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(clamp(x)));
    expect_matches_reference({edges(t)}, UNARY(clamp(x, {.minValue = 0.0, .maxValue = 6.0})));
    expect_matches_reference({edges(t)}, UNARY(clamp(x, {.minValue = -1.5})));
    expect_matches_reference({edges(t)}, UNARY(clamp(x, {.maxValue = -0.0})));
    expect_matches_reference({edges(t)}, UNARY(clamp(x, {.minValue = kInf})));
    expect_matches_reference({edges(t)}, UNARY(clamp(x, {.minValue = kNaN, .maxValue = 2.0})));
  }
}

TEST(DecomposeClamp, IntegerBoundsAreCastToTheType) {
  const Tensor i8 = ints<int8_t>(kInt8, {-128, -3, 0, 3, 127});
  expect_matches_reference({i8}, UNARY(clamp(x)));
  expect_matches_reference({i8}, UNARY(clamp(x, {.minValue = -3.9, .maxValue = 1000})));
  const Tensor u64 = ints<uint64_t>(kUint64, {0, 5, 1ull << 63, UINT64_MAX});
  expect_matches_reference({u64}, UNARY(clamp(x, {.minValue = 5, .maxValue = UINT64_MAX - 1})));
  expect_matches_reference({u64}, UNARY(clamp(x, {.minValue = -kInf, .maxValue = 1e30})));
  const Tensor i64 = ints<int64_t>(kInt64, {INT64_MIN, -1, 0, INT64_MAX});
  expect_matches_reference({i64}, UNARY(clamp(x, {.minValue = INT64_MIN + 1ll, .maxValue = 0})));
  const Tensor u32 = ints<uint32_t>(kUint32, {0, 4294967290u, 4294967295u});
  expect_matches_reference({u32}, UNARY(clamp(x, {.maxValue = 4294967290.0})));
}

TEST(DecomposeActivation, ReluOnFloatsAndSignedIntegers) {
  for (MLOperandDataType t : kFloats) expect_matches_reference({edges(t)}, UNARY(relu(x)));
  expect_matches_reference({ints<int8_t>(kInt8, {-128, -1, 0, 1, 127})}, UNARY(relu(x)));
  expect_matches_reference({ints<int64_t>(kInt64, {INT64_MIN, 0, INT64_MAX})}, UNARY(relu(x)));
}

TEST(DecomposeActivation, LeakyReluIsExact) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(leakyRelu(x)));
    expect_matches_reference({edges(t)}, UNARY(leakyRelu(x, {.alpha = -2.3})));
  }
}

TEST(DecomposeActivation, PreluBroadcastsTheSlope) {
  const BuildFn prelu = binary(&MLGraphBuilder::prelu);
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t), floats(t, {0.25f})}, prelu);
    expect_matches_reference(
        {floats(t, {-1, 2, -3, 4, -0.0f, kNaN}, {2, 3}), floats(t, {0.5f, -2, 3}, {3})}, prelu);
    expect_matches_reference({floats(t, {-1, 2, -3}, {3, 1}), floats(t, {0.5f, -2}, {1, 2})},
                             prelu);
  }
  expect_matches_reference(
      {ints<int8_t>(kInt8, {-128, -3, 0, 3}, {2, 2}), ints<int8_t>(kInt8, {-1, 100}, {2})}, prelu);
  expect_matches_reference({ints<int32_t>(kInt32, {INT32_MIN, -7, 7}), ints<int32_t>(kInt32, {3})},
                           prelu);
  expect_matches_reference({ints<int64_t>(kInt64, {INT64_MIN, -7, 7}), ints<int64_t>(kInt64, {-1})},
                           prelu);
}

TEST(DecomposeActivation, EluNearZeroAndAtTheTails) {
  std::vector<float> v = edge_floats();
  for (float x : {-1e-5f, -3e-8f, -0.01f, -20.f, -104.f, -200.f}) v.push_back(x);
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({floats(t, v)}, UNARY(elu(x)), {.ulp = 4});
    expect_matches_reference({floats(t, v)}, UNARY(elu(x, {.alpha = -0.7})), {.ulp = 4});
  }
}

TEST(DecomposeActivation, Gelu) {
  std::vector<float> v;
  for (float x = -2.0f; x <= 6.0f; x += 0.13f) v.push_back(x);
  for (float x : {0.0f, -0.0f, kNaN, kInf, -kInf, 1e-6f, 100.f}) v.push_back(x);
  for (MLOperandDataType t : kFloats)
    expect_matches_reference({floats(t, v)}, UNARY(gelu(x)), {.ulp = 18});
}

TEST(DecomposeActivation, HardSigmoidAndHardSwish) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(hardSigmoid(x)), {.ulp = 2});
    expect_matches_reference({edges(t)}, UNARY(hardSigmoid(x, {.alpha = 0.7, .beta = -0.1})),
                             {.ulp = 2});
    expect_matches_reference({edges(t)}, UNARY(hardSwish(x)), {.ulp = 2});
  }
}

TEST(DecomposeActivation, Linear) {
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({edges(t)}, UNARY(linear(x)));
    expect_matches_reference({edges(t)}, UNARY(linear(x, {.alpha = 0.3, .beta = 0.0})), {.ulp = 1});
  }
  // Positive inputs with a positive beta: no cancellation, within WPT's 2 ULP.
  expect_matches_reference({floats(kFloat32, {0.1f, 3.7f, 9.9f, 1e-3f})},
                           UNARY(linear(x, {.alpha = 1.7, .beta = 0.3})), {.ulp = 2});
}

TEST(DecomposeActivation, SigmoidSoftplusSoftsign) {
  std::vector<float> v = edge_floats();
  for (float x : {-20.f, -90.f, 20.f, 90.f, 17.f, -17.f}) v.push_back(x);
  for (MLOperandDataType t : kFloats) {
    expect_matches_reference({floats(t, v)}, UNARY(sigmoid(x)), {.ulp = 4});
    expect_matches_reference({floats(t, v)}, UNARY(softplus(x)), {.ulp = 4});
    expect_matches_reference({floats(t, v)}, UNARY(softsign(x)), {.ulp = 2});
  }
}

TEST(DecomposeActivation, SoftmaxAlongEachAxis) {
  std::vector<float> v;
  for (int i = 0; i < 24; ++i) v.push_back(std::sin(static_cast<float>(i)) * 9.0f);
  for (MLOperandDataType t : kFloats) {
    for (uint32_t axis = 0; axis < 3; ++axis)
      expect_matches_reference(
          {floats(t, v, {2, 3, 4})},
          unary([axis](MLGraphBuilder& b, const MLOperand& x) { return b.softmax(x, axis); }),
          {.ulp = 12});
    // A NaN, an Inf or all -Inf make their row NaN like the reference.
    expect_matches_reference(
        {floats(t, {1, kNaN, 2, 3, kInf, 1, -kInf, -kInf, -kInf, 1, -kInf, 2}, {4, 3})},
        UNARY(softmax(x, 1)), {.ulp = 6});
  }
}

// ---- support limits ----

bool lists(const MLTensorLimits& l, MLOperandDataType t) {
  return std::find(l.dataTypes.begin(), l.dataTypes.end(), t) != l.dataTypes.end();
}

TEST(DecomposeElementwise, MinimalContextReportsTheDecomposedOpsWithTheirTypes) {
  const MLOpSupportLimits limits = MLContext::create({.backend = "minimal"}).opSupportLimits();
  for (const char* op : {"gelu", "elu", "softmax", "tan", "roundEven", "sigmoid", "softplus"}) {
    EXPECT_TRUE(lists(limits.op(op)["input"], kFloat32)) << op;
    EXPECT_TRUE(lists(limits.op(op)["input"], kFloat16)) << op;
  }
  EXPECT_TRUE(lists(limits.op("isNaN")["a"], kFloat16));
  EXPECT_TRUE(lists(limits.op("abs")["input"], kInt8));
  EXPECT_TRUE(lists(limits.op("abs")["input"], kInt64));
  EXPECT_TRUE(lists(limits.op("clamp")["input"], kUint64));
  EXPECT_TRUE(lists(limits.op("prelu")["input"], kInt32));
  EXPECT_TRUE(lists(limits.op("greaterOrEqual")["a"], kUint32));
  EXPECT_TRUE(lists(limits.op("logicalXor")["a"], kUint8));
}

}  // namespace
}  // namespace cppnn
