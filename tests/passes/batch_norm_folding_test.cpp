// The batch normalization folding pass (src/passes/batch_norm_folding.h): a float32 conv2d or
// convTranspose2d whose only reader is a batchNormalization (or per-channel mul/add/sub) over its
// channel axis, with constant filter, conv bias and batch-norm operands, becomes one conv with a
// bias; everything else is left as it was. The
// folded graph gives the original's values on the reference kernels within 1e-5 of the output's
// largest magnitude.
// This file: conv2d; batch_norm_folding_conv_transpose_test.cpp: convTranspose2d.
#include "src/passes/batch_norm_folding.h"

#include <gtest/gtest.h>

#include "tests/passes/batch_norm_folding_util.h"

namespace cppnn {
namespace {

using namespace bn_folding_testing;  // NOLINT: the shared helpers of these tests

TEST(BatchNormFolding, ConvAndBatchNormBecomeOneConvWithABias) {
  const Graph g = source(conv_bn);
  bool changed = false;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(f.operations.size(), 1u);
  const Operation& conv = f.operations[0];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  ASSERT_EQ(conv.inputs.size(), 3u);
  ASSERT_TRUE(conv.inputs[2].valid());
  EXPECT_EQ(f.descriptor(conv.inputs[2]), (MLOperandDescriptor{kFloat32, {4}}));
  EXPECT_EQ(f.descriptor(conv.inputs[1]), (MLOperandDescriptor{kFloat32, {4, 3, 3, 3}}));
  EXPECT_EQ(attrs_of<OpType::kConv2d>(conv.attrs).options.padding.value_or({0, 0, 0, 0}),
            (Dims{1, 1, 1, 1}));
  ASSERT_EQ(f.outputs.size(), 1u);
  EXPECT_EQ(f.outputs[0].first, "y");
  EXPECT_EQ(f.descriptor(f.outputs[0].second), (MLOperandDescriptor{kFloat32, {1, 4, 6, 6}}));
  // filter' = filter · s, bias' = (0 − mean) · s + beta, s = scale / sqrt(variance + epsilon).
  const std::vector<float> w = values(4 * 27, 1), mean = values(4, 10),
                           var = values(4, 11, 0.1f, 2.0f), scale = values(4, 12, -2.0f, 2.0f),
                           beta = values(4, 13);
  const std::vector<float> fw = constant_floats(f, conv.inputs[1]);
  const std::vector<float> fb = constant_floats(f, conv.inputs[2]);
  ASSERT_EQ(fw.size(), w.size());
  ASSERT_EQ(fb.size(), 4u);
  for (size_t oc = 0; oc < 4; ++oc) {
    const double s = double(scale[oc]) / std::sqrt(double(var[oc]) + double(float(1e-3)));
    EXPECT_NEAR(fb[oc], -double(mean[oc]) * s + beta[oc], 1e-6 * (std::fabs(s) + 1)) << oc;
    for (size_t i = 0; i < 27; ++i)
      EXPECT_NEAR(fw[oc * 27 + i], w[oc * 27 + i] * s, 1e-6 * std::fabs(s)) << oc << ", " << i;
  }
  expect_same_values(g, f);
}

// Absent scale and bias take 1 and 0; the default epsilon.
TEST(BatchNormFolding, DefaultScaleBiasAndEpsilon) {
  expect_folds([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {2, 3, 5, 7}});
    MLOperand c = b.conv2d(x, weights(b, {5, 3, 3, 3}, 2), {.strides = {2, 1}});
    MLOperand y = b.batchNormalization(c, weights(b, {5}, 20), weights(b, {5}, 21, 0.1f, 2.0f));
    return {{"y", y}};
  });
}

// A large epsilon matters to the folded values.
TEST(BatchNormFolding, LargeEpsilon) {
  expect_folds([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
    MLOperand c = b.conv2d(x, weights(b, {3, 2, 1, 1}, 3));
    Norm n = norm_operands(b, 3, 30);
    n.options.epsilon = 0.75;
    return {{"y", batch_norm(b, c, n)}};
  });
}

// An existing constant conv bias is folded too: bias' = (bias − mean) · s + beta.
TEST(BatchNormFolding, ConvWithABiasFoldsItsBias) {
  auto make = [](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 4),
                           {.padding = {1, 1, 1, 1}, .bias = weights(b, {4}, 40)});
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 41))}};
  };
  expect_folds(make);
  const Graph g = source(make);
  bool changed = false;
  const Graph f = passes::fold_batch_norm(g, &changed);
  ASSERT_EQ(f.operations.size(), 1u);
  const std::vector<float> fb = constant_floats(f, f.operations[0].inputs[2]);
  const std::vector<float> bias = values(4, 40), mean = values(4, 41),
                           var = values(4, 42, 0.1f, 2.0f), scale = values(4, 43, -2.0f, 2.0f),
                           beta = values(4, 44);
  ASSERT_EQ(fb.size(), 4u);
  for (size_t oc = 0; oc < 4; ++oc) {
    const double s = double(scale[oc]) / std::sqrt(double(var[oc]) + double(float(1e-3)));
    EXPECT_NEAR(fb[oc], (double(bias[oc]) - mean[oc]) * s + beta[oc], 1e-6 * (std::fabs(s) + 1))
        << oc;
  }
}

// Every filter layout, with groups (the filter is scaled along its output-channel axis).
TEST(BatchNormFolding, EveryFilterLayoutAndGroups) {
  for (Filter layout : {Filter::kOihw, Filter::kHwio, Filter::kOhwi, Filter::kIhwo})
    for (uint32_t groups : {1u, 2u}) {
      SCOPED_TRACE("layout " + std::to_string(int(layout)) + " groups " + std::to_string(groups));
      expect_folds([&](MLGraphBuilder& b) -> MLNamedOperands {
        MLOperand x = b.input("x", {kFloat32, {2, 4, 6, 5}});
        MLConv2dOptions o;
        o.padding = std::vector<uint32_t>{1, 0, 2, 1};
        o.groups = groups;
        o.filterLayout = layout;
        o.bias = weights(b, {6}, 50);
        MLOperand c = b.conv2d(x, weights(b, filter_shape(layout, 6, 4 / groups, 3, 2), 5), o);
        return {{"y", batch_norm(b, c, norm_operands(b, 6, 51))}};
      });
    }
}

// NHWC conv2d with the batch norm over axis 3 (its channels) folds, for every filter layout.
TEST(BatchNormFolding, NhwcConvWithAxis3Folds) {
  for (Filter layout : {Filter::kOihw, Filter::kHwio, Filter::kOhwi, Filter::kIhwo}) {
    SCOPED_TRACE("layout " + std::to_string(int(layout)));
    expect_folds([&](MLGraphBuilder& b) -> MLNamedOperands {
      MLOperand x = b.input("x", {kFloat32, {1, 5, 6, 3}});
      MLConv2dOptions o;
      o.padding = std::vector<uint32_t>{1, 1, 1, 1};
      o.inputLayout = MLInputOperandLayout::kNhwc;
      o.filterLayout = layout;
      MLOperand c = b.conv2d(x, weights(b, filter_shape(layout, 4, 3, 3, 3), 6), o);
      return {{"y", batch_norm(b, c, norm_operands(b, 4, 60, 3))}};
    });
  }
}

// Two pairs in a row (with a relu between) both fold; the relu stays.
TEST(BatchNormFolding, TwoPairsInARow) {
  expect_folds(
      [](MLGraphBuilder& b) -> MLNamedOperands {
        MLOperand x = b.input("x", {kFloat32, {1, 3, 6, 6}});
        MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 7), {.padding = {1, 1, 1, 1}});
        MLOperand r = b.relu(batch_norm(b, c, norm_operands(b, 4, 70)));
        MLOperand d = b.conv2d(r, weights(b, {2, 4, 1, 1}, 8));
        return {{"y", batch_norm(b, d, norm_operands(b, 2, 80))}};
      },
      2);
}

// One filter constant read by two convolutions, each with its own batch norm.
TEST(BatchNormFolding, SharedFilterTwoNorms) {
  expect_folds(
      [](MLGraphBuilder& b) -> MLNamedOperands {
        MLOperand x = b.input("x", {kFloat32, {1, 3, 4, 4}});
        MLOperand w = weights(b, {4, 3, 3, 3}, 9);
        MLOperand c1 = b.conv2d(x, w, {.padding = {1, 1, 1, 1}});
        MLOperand c2 = b.conv2d(x, w);
        return {{"y1", batch_norm(b, c1, norm_operands(b, 4, 90))},
                {"y2", batch_norm(b, c2, norm_operands(b, 4, 95))}};
      },
      2);
}

TEST(BatchNormFolding, ConvWithAnotherReaderIsLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 11));
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 110))}, {"z", b.relu(c)}};
  });
}

TEST(BatchNormFolding, ConvOutputThatIsAGraphOutputIsLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 12));
    return {{"c", c}, {"y", batch_norm(b, c, norm_operands(b, 4, 120))}};
  });
}

// Mean, variance, scale or bias not constant (a graph input).
TEST(BatchNormFolding, NonConstantNormOperandsAreLeftAlone) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_unchanged([&](MLGraphBuilder& b) -> MLNamedOperands {
      MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
      MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 13));
      Norm n = norm_operands(b, 4, 130);
      MLOperand p = b.input("p", {kFloat32, {4}});
      if (which == 0) n.mean = p;
      if (which == 1) n.variance = b.add(b.abs(p), weights(b, {4}, 131, 0.5f, 1.0f));
      if (which == 2) n.options.scale = p;
      if (which == 3) n.options.bias = p;
      return {{"y", batch_norm(b, c, n)}};
    });
  }
}

// The conv's filter or bias not constant.
TEST(BatchNormFolding, NonConstantFilterOrBiasIsLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    MLOperand c = b.conv2d(x, b.input("w", {kFloat32, {4, 3, 3, 3}}));
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 140))}};
  });
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    MLOperand c =
        b.conv2d(x, weights(b, {4, 3, 3, 3}, 14), {.bias = b.input("b", {kFloat32, {4}})});
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 141))}};
  });
}

// The batch norm over an axis that is not the conv's channel axis (the height, as long as the
// channel count): NCHW with axis 2, NHWC with axis 1.
TEST(BatchNormFolding, AxisOtherThanTheChannelsIsLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 6, 5}});
    MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 15), {.padding = {0, 0, 1, 1}});
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 150, 2))}};  // c is [1, 4, 4, 5]
  });
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 6, 5, 3}});
    MLOperand c = b.conv2d(x, weights(b, {3, 3, 3, 4}, 16),
                           {.padding = {0, 0, 1, 1},
                            .inputLayout = MLInputOperandLayout::kNhwc,
                            .filterLayout = Filter::kHwio});
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 160, 1))}};  // c is [1, 4, 5, 4]
  });
  // NCHW conv, batch norm over axis 3 (NHWC's channel axis).
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 6, 6}});
    MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 17), {.padding = {0, 0, 0, 0}});
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 170, 3))}};  // c is [1, 4, 4, 4]
  });
}

TEST(BatchNormFolding, Float16IsLeftAlone) {
  expect_unchanged(
      [](MLGraphBuilder& b) -> MLNamedOperands {
        auto half = [&](Dims shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
          const std::vector<float> v = values(element_count(shape), seed, lo, hi);
          return b.constant({kFloat16, std::move(shape)}, to_bytes(testing::half_bits(v)));
        };
        MLOperand x = b.input("x", {kFloat16, {1, 3, 5, 5}});
        MLOperand c = b.conv2d(x, half({4, 3, 3, 3}, 18));
        MLBatchNormalizationOptions o;
        o.scale = half({4}, 181);
        o.bias = half({4}, 182);
        return {{"y", b.batchNormalization(c, half({4}, 183), half({4}, 184, 0.1f, 2.0f), o)}};
      },
      false);
}

// Batch norms after other ops: the graph input, a relu, a convTranspose2d with a filter that is
// no constant.
TEST(BatchNormFolding, NormsAfterOtherOpsAreLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 4, 5, 5}});
    return {{"a", batch_norm(b, x, norm_operands(b, 4, 190))},
            {"b", batch_norm(b, b.relu(x), norm_operands(b, 4, 195))}};
  });
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 4, 4}});
    MLOperand c = b.convTranspose2d(x, b.input("w", {kFloat32, {3, 4, 3, 3}}));
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 199))}};
  });
}

// A conv2d already carrying fused activations (Operation::activations) is not folded.
TEST(BatchNormFolding, ConvWithFusedActivationsIsLeftAlone) {
  Graph g = source(conv_bn);
  ASSERT_EQ(g.operations[0].type, OpType::kConv2d);
  FusedActivation relu;
  relu.type = OpType::kRelu;
  relu.attrs.emplace<static_cast<size_t>(OpType::kRelu)>();
  g.operations[0].activations.push_back(relu);
  bool changed = true;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(f.operations.size(), 2u);
  EXPECT_EQ(count(f, OpType::kBatchNormalization), 1u);
}

// A graph without any batch norm comes back as it was.
TEST(BatchNormFolding, NothingToFold) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
    return {{"y", b.relu(b.conv2d(x, weights(b, {4, 3, 3, 3}, 20)))}};
  });
}

}  // namespace
}  // namespace cppnn
