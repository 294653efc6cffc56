// The activation patterns pass (src/passes/activation_patterns.h) and the per-channel scale/shift
// chains of the batch-norm folding pass (src/passes/batch_norm_folding.h): exporters' spellings
// of hardSwish and linear become those ops, mul/add/sub chains after a conv2d fold into it, and
// the rewritten graphs give the original's values on the reference kernels.
#include "src/passes/activation_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/passes/batch_norm_folding.h"
#include "tests/backends/run_util.h"
#include "tests/passes/pattern_test_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::to_bytes;
using Make = std::function<MLOperand(MLGraphBuilder&)>;
using Pass = Graph (*)(const Graph&, bool*);

using pattern_testing::op_types;
using pattern_testing::scalar;

// n floats uniform in [-scale, scale) from `seed`.
std::vector<float> random_floats(size_t n, uint32_t seed, float scale) {
  return pattern_testing::random_floats(n, seed, -scale, scale);
}

// conv2d of input x [1, 4, 6, 6] with a 3x3 filter, padding 1, and a bias.
MLOperand conv(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 4, 6, 6}});
  MLConv2dOptions o;
  o.padding = std::vector<uint32_t>{1, 1, 1, 1};
  o.bias = b.constant({kFloat32, {4}}, to_bytes(random_floats(4, 2, 1.0f)));
  return b.conv2d(x, b.constant({kFloat32, {4, 4, 3, 3}}, to_bytes(random_floats(144, 1, 0.5f))),
                  o);
}

Graph source(const Make& make) {
  MLGraphBuilder b(testing::ref_context());
  return b.pruned_graph({{"y", make(b)}});
}

// Output "y" of `g` on the reference kernels for input x in [-4, 4].
std::vector<float> run(const Graph& g) {
  auto plan = make_reference_plan(std::make_shared<const Graph>(g));
  const std::vector<float> x = random_floats(element_count(g.descriptor(g.inputs[0]).shape), 9, 4);
  std::vector<float> y(element_count(g.descriptor(g.outputs[0].second).shape));
  const std::byte* in = reinterpret_cast<const std::byte*>(x.data());
  std::byte* out = reinterpret_cast<std::byte*>(y.data());
  plan->execute(std::span(&in, 1), std::span(&out, 1));
  return y;
}

// `pass` turns `make`'s graph into ops `want` with the same values (within `tolerance` relative
// to the largest output).
void expect_rewrite(Pass pass, const Make& make, const std::vector<OpType>& want,
                    double tolerance) {
  const Graph g = source(make);
  bool changed = false;
  const Graph r = pass(g, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(op_types(r), want);
  const std::vector<float> a = run(g), b = run(r);
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (float v : a) largest = std::max(largest, std::fabs(double(v)));
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::fabs(double(a[i]) - double(b[i])), tolerance * largest) << "element " << i;
}

void expect_unchanged(Pass pass, const Make& make) {
  const Graph g = source(make);
  bool changed = true;
  const Graph r = pass(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(op_types(r), op_types(g));
}

// x·clamp(x + 3, 0, 6)/6 with the operand orders `add_x_first` and `mul_x_first`.
MLOperand hard_swish_spelling(MLGraphBuilder& b, const MLOperand& x, bool add_x_first,
                              bool mul_x_first) {
  MLOperand t = add_x_first ? b.add(x, scalar(b, 3)) : b.add(scalar(b, 3), x);
  MLOperand c = b.clamp(t, {.minValue = MLNumber(0.0), .maxValue = MLNumber(6.0)});
  MLOperand m = mul_x_first ? b.mul(x, c) : b.mul(c, x);
  return b.div(m, scalar(b, 6));
}

TEST(ActivationPatterns, HardSwishSpellingsBecomeHardSwish) {
  using enum OpType;
  for (bool add_first : {true, false})
    for (bool mul_first : {true, false})
      expect_rewrite(
          &passes::recognize_activations,
          [&](MLGraphBuilder& b) { return hard_swish_spelling(b, conv(b), add_first, mul_first); },
          {kConv2d, kHardSwish}, 1e-6);
}

TEST(ActivationPatterns, ScalarMulAddSubAfterAnActivationBecomeLinear) {
  using enum OpType;
  // The linears are the same single IEEE operations; the hardSwish rounds once instead of thrice.
  expect_rewrite(
      &passes::recognize_activations,
      [](MLGraphBuilder& b) {
        MLOperand h = hard_swish_spelling(b, conv(b), true, true);
        return b.sub(b.add(b.mul(scalar(b, 0.75f), h), scalar(b, 2)), scalar(b, 0.5f));
      },
      {kConv2d, kHardSwish, kLinear, kLinear, kLinear}, 1e-6);
}

// 0.5·x·(1 + erf(x/√2)) in the spellings exporters write: `form` 0 is mul(mul(x, a), 0.5), 1 is
// mul(mul(x, 0.5), a); `swap` flips every operand order; `by_mul` writes x/√2 as x·(1/√2).
MLOperand gelu_spelling(MLGraphBuilder& b, const MLOperand& x, int form, bool swap, bool by_mul) {
  auto mul = [&](MLOperand p, MLOperand q) { return swap ? b.mul(q, p) : b.mul(p, q); };
  MLOperand d = by_mul ? mul(x, scalar(b, 0.70710677f)) : b.div(x, scalar(b, 1.4142135f));
  MLOperand e = b.erf(d);
  MLOperand a = swap ? b.add(scalar(b, 1), e) : b.add(e, scalar(b, 1));
  if (form == 0) return mul(mul(x, a), scalar(b, 0.5f));
  return mul(mul(x, scalar(b, 0.5f)), a);
}

TEST(ActivationPatterns, ErfGeluSpellingsBecomeGelu) {
  using enum OpType;
  for (int form : {0, 1})
    for (bool swap : {false, true})
      for (bool by_mul : {false, true}) {
        SCOPED_TRACE(::testing::Message() << form << swap << by_mul);
        // gelu rounds once where the five ops round five times.
        expect_rewrite(
            &passes::recognize_activations,
            [&](MLGraphBuilder& b) { return gelu_spelling(b, conv(b), form, swap, by_mul); },
            {kConv2d, kGelu}, 1e-6);
      }
}

TEST(ActivationPatterns, GeluNeedsItsConstantsAndSingleUses) {
  // mul(mul(x, add(f(div(x, divisor)), 1)), half) for f = erf or tanh.
  const auto spelled = [](float divisor, float half, bool erf) -> Make {
    return [=](MLGraphBuilder& b) {
      MLOperand x = conv(b);
      MLOperand d = b.div(x, scalar(b, divisor));
      MLOperand a = b.add(erf ? b.erf(d) : b.tanh(d), scalar(b, 1));
      return b.mul(b.mul(x, a), scalar(b, half));
    };
  };
  // 0.5 replaced by 0.25; √2 by 1.5; erf replaced by tanh.
  expect_unchanged(&passes::recognize_activations, spelled(1.4142135f, 0.25f, true));
  expect_unchanged(&passes::recognize_activations, spelled(1.5f, 0.5f, true));
  expect_unchanged(&passes::recognize_activations, spelled(1.4142135f, 0.5f, false));
  // erf's result read twice.
  expect_unchanged(&passes::recognize_activations, [](MLGraphBuilder& b) {
    MLOperand x = conv(b);
    MLOperand e = b.erf(b.div(x, scalar(b, 1.4142135f)));
    return b.add(b.mul(b.mul(x, b.add(e, scalar(b, 1))), scalar(b, 0.5f)), e);
  });
}

TEST(ActivationPatterns, LeavesOtherShapesAlone) {
  // An intermediate of the spelling read twice (a graph output needs it too).
  const auto shared = [](MLGraphBuilder& b) {
    MLOperand x = conv(b);
    MLOperand c =
        b.clamp(b.add(x, scalar(b, 3)), {.minValue = MLNumber(0.0), .maxValue = MLNumber(6.0)});
    return b.add(b.div(b.mul(x, c), scalar(b, 6)), c);
  };
  bool changed = false;
  const std::vector<OpType> t = op_types(passes::recognize_activations(source(shared), &changed));
  EXPECT_EQ(std::count(t.begin(), t.end(), OpType::kHardSwish), 0);
  // Other constants than 3, 6; c − x; a scalar op on a graph input.
  expect_unchanged(&passes::recognize_activations, [](MLGraphBuilder& b) {
    MLOperand x = b.input("x", {kFloat32, {1, 4, 6, 6}});
    MLOperand c =
        b.clamp(b.add(x, scalar(b, 2)), {.minValue = MLNumber(0.0), .maxValue = MLNumber(6.0)});
    return b.sub(scalar(b, 1), b.mul(b.div(b.mul(x, c), scalar(b, 6)), scalar(b, 2)));
  });
}

TEST(BatchNormFoldingChains, PerChannelMulAddSubAfterConvFoldIntoIt) {
  using enum OpType;
  expect_rewrite(
      &passes::fold_batch_norm,
      [](MLGraphBuilder& b) {
        MLOperand s = b.constant({kFloat32, {1, 4, 1, 1}}, to_bytes(random_floats(4, 5, 2.0f)));
        MLOperand t = b.constant({kFloat32, {4, 1, 1}}, to_bytes(random_floats(4, 6, 1.0f)));
        return b.sub(b.add(b.mul(s, conv(b)), t), scalar(b, 0.25f));
      },
      {kConv2d}, 1e-5);
}

TEST(BatchNormFoldingChains, LeavesNonChannelConstantsAlone) {
  // A constant that varies along the width is no per-channel scale; x − conv is no shift of conv.
  expect_unchanged(&passes::fold_batch_norm, [](MLGraphBuilder& b) {
    return b.mul(conv(b), b.constant({kFloat32, {6}}, to_bytes(random_floats(6, 3, 1.0f))));
  });
  expect_unchanged(&passes::fold_batch_norm,
                   [](MLGraphBuilder& b) { return b.sub(scalar(b, 1), conv(b)); });
}

}  // namespace
}  // namespace cppnn
