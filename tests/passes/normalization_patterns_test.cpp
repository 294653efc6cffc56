// The normalization patterns pass (src/passes/normalization_patterns.h): exporters' spelled-out
// layer normalizations become one layerNormalization with the same values on the reference
// kernels; near misses (a reused intermediate, other axes, other exponents, a scale that varies
// off the normalized axes) are left as they are.
#include "src/passes/normalization_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "tests/backends/run_util.h"
#include "tests/passes/pattern_test_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using enum OpType;
using testing::to_bytes;

const std::vector<uint32_t> kShape = {2, 3, 8};

using pattern_testing::op_types;
using pattern_testing::random_floats;
using pattern_testing::scalar;

MLOperand constant(MLGraphBuilder& b, const std::vector<uint32_t>& shape, uint32_t seed) {
  return b.constant({kFloat32, shape}, to_bytes(random_floats(element_count(shape), seed, 0.5, 2)));
}

// How a layer normalization is spelled.
struct Spelling {
  std::optional<std::vector<uint32_t>> axes = std::vector<uint32_t>{2};  // absent: all axes
  std::optional<std::vector<uint32_t>> variance_axes;  // the second mean's, when they differ
  bool square_by_mul = false;                          // mul(d, d) instead of pow(d, 2)
  float exponent = 2;                                  // pow's
  bool by_reciprocal = false;                          // mul(d, reciprocal(s)) instead of div(d, s)
  bool epsilon_first = false;                          // add(ε, v)
  bool constant_epsilon = true;                        // else ε is a second input
  std::optional<std::vector<uint32_t>> scale, bias;    // shapes, when applied
  bool operand_first = false;                          // mul(γ, n), add(β, ·)
  bool reuse_difference = false;                       // d also read by another output
};

// The graph of `s` with input x [2, 3, 8] (and ε when it is an input).
Graph spelled(const Spelling& s) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = b.input("x", {kFloat32, kShape});
  auto mean = [&](const MLOperand& v, const std::optional<std::vector<uint32_t>>& axes) {
    MLReduceOptions o;
    if (axes) o.axes = *axes;
    o.keepDimensions = true;
    return b.reduceMean(v, o);
  };
  MLOperand d = b.sub(x, mean(x, s.axes));
  MLOperand sq = s.square_by_mul ? b.mul(d, d) : b.pow(d, scalar(b, s.exponent));
  MLOperand v = mean(sq, s.variance_axes ? s.variance_axes : s.axes);
  MLOperand eps = s.constant_epsilon ? scalar(b, 1e-5f) : b.input("eps", {kFloat32, {}});
  MLOperand sd = b.sqrt(s.epsilon_first ? b.add(eps, v) : b.add(v, eps));
  MLOperand y = s.by_reciprocal ? b.mul(d, b.reciprocal(sd)) : b.div(d, sd);
  auto apply = [&](auto op, const std::optional<std::vector<uint32_t>>& shape, uint32_t seed) {
    if (!shape) return;
    MLOperand c = constant(b, *shape, seed);
    y = s.operand_first ? (b.*op)(c, y, MLOperatorOptions{}) : (b.*op)(y, c, MLOperatorOptions{});
  };
  apply(&MLGraphBuilder::mul, s.scale, 3);
  apply(&MLGraphBuilder::add, s.bias, 4);
  MLNamedOperands outputs{{"y", y}};
  if (s.reuse_difference) outputs.emplace("d", d);
  return b.pruned_graph(outputs);
}

// Output "y" of `g` on the reference kernels, x in [-3, 5] (ε, when an input, 1e-5).
std::vector<float> run(const Graph& g) {
  auto plan = make_reference_plan(std::make_shared<const Graph>(g));
  std::vector<std::vector<float>> in_values;
  for (OperandId id : g.inputs) {
    const size_t n = element_count(g.descriptor(id).shape);
    in_values.push_back(n == 1 ? std::vector<float>{1e-5f} : random_floats(n, 9, -3, 5));
  }
  std::vector<const std::byte*> in;
  for (const auto& v : in_values) in.push_back(reinterpret_cast<const std::byte*>(v.data()));
  std::vector<std::vector<float>> out_values;
  for (const auto& [name, id] : g.outputs)
    out_values.emplace_back(element_count(g.descriptor(id).shape));
  std::vector<std::byte*> out;
  size_t y = 0;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    out.push_back(reinterpret_cast<std::byte*>(out_values[i].data()));
    if (g.outputs[i].first == "y") y = i;
  }
  plan->execute(in, out);
  return out_values[y];
}

// `s` becomes ops `want` (the new graph), with the same values within 1e-5 of the largest.
void expect_recognised(const Spelling& s, const std::vector<OpType>& want) {
  const Graph g = spelled(s);
  bool changed = false;
  const Graph r = passes::recognize_normalizations(g, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(op_types(r), want);
  const std::vector<float> a = run(g), b = run(r);
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (float v : a) largest = std::max(largest, std::fabs(double(v)));
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::fabs(double(a[i]) - double(b[i])), 1e-5 * largest) << "element " << i;
}

void expect_unchanged(const Spelling& s) {
  const Graph g = spelled(s);
  bool changed = true;
  const Graph r = passes::recognize_normalizations(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(op_types(r), op_types(g));
}

TEST(NormalizationPatterns, SpelledOutLayerNormsBecomeLayerNormalization) {
  for (bool square_by_mul : {false, true})
    for (bool by_reciprocal : {false, true})
      for (bool epsilon_first : {false, true}) {
        Spelling s;
        s.square_by_mul = square_by_mul;
        s.by_reciprocal = by_reciprocal;
        s.epsilon_first = epsilon_first;
        SCOPED_TRACE(::testing::Message() << square_by_mul << by_reciprocal << epsilon_first);
        expect_recognised(s, {kLayerNormalization});
      }
}

TEST(NormalizationPatterns, ScaleAndBiasBecomeTheOptions) {
  for (bool operand_first : {false, true}) {
    Spelling s;
    s.scale = std::vector<uint32_t>{8};
    s.bias = std::vector<uint32_t>{8};
    s.operand_first = operand_first;
    expect_recognised(s, {kLayerNormalization});
  }
  Spelling bias_only;
  bias_only.bias = std::vector<uint32_t>{8};
  expect_recognised(bias_only, {kLayerNormalization});
  // Leading ones: reshaped to the normalized sizes (a reshape of a constant, folded later).
  Spelling ranked;
  ranked.axes = std::vector<uint32_t>{1, 2};
  ranked.scale = std::vector<uint32_t>{1, 3, 8};
  ranked.bias = std::vector<uint32_t>{3, 8};
  expect_recognised(ranked, {kReshape, kLayerNormalization});
}

TEST(NormalizationPatterns, AnyAxesIncludingAll) {
  Spelling all;
  all.axes = std::nullopt;
  expect_recognised(all, {kLayerNormalization});
  Spelling middle;
  middle.axes = std::vector<uint32_t>{1};
  middle.scale = std::vector<uint32_t>{3, 1};
  expect_recognised(middle, {kReshape, kLayerNormalization});
  Spelling unordered;
  unordered.axes = std::vector<uint32_t>{2, 0};
  unordered.variance_axes = std::vector<uint32_t>{0, 2};
  expect_recognised(unordered, {kLayerNormalization});
}

TEST(NormalizationPatterns, NearMissesStayAsTheyAre) {
  Spelling other_axes;
  other_axes.variance_axes = std::vector<uint32_t>{1};
  expect_unchanged(other_axes);
  Spelling cube;
  cube.exponent = 3;
  expect_unchanged(cube);
  Spelling runtime_epsilon;
  runtime_epsilon.constant_epsilon = false;
  expect_unchanged(runtime_epsilon);
  Spelling reused;
  reused.reuse_difference = true;
  expect_unchanged(reused);
}

TEST(NormalizationPatterns, AScaleOffTheAxesStaysAnElementwiseOp) {
  Spelling s;
  s.scale = std::vector<uint32_t>{3, 1};  // varies along axis 1, normalized over axis 2
  s.bias = std::vector<uint32_t>{8};      // then not the option either (it follows the mul)
  expect_recognised(s, {kLayerNormalization, kMul, kAdd});
}

}  // namespace
}  // namespace cppnn
