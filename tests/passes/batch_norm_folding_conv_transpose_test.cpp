// The batch normalization folding pass (src/passes/batch_norm_folding.h) for convTranspose2d: the
// filter scaled along its output-channel axis (output channel = group * (Cout / groups) + o, for
// every filter layout), the shift folded into the bias; batch_norm_folding_test.cpp has conv2d.
#include <gtest/gtest.h>

#include "src/passes/batch_norm_folding.h"
#include "tests/passes/batch_norm_folding_util.h"

namespace cppnn {
namespace {

using namespace bn_folding_testing;  // NOLINT: the shared helpers of these tests

// ---- convTranspose2d ---------------------------------------------------------------------------

using TFilter = MLConvTranspose2dFilterOperandLayout;

// The filter shape of a convTranspose2d [in, out per group, h, w] in `layout`.
Dims transpose_filter_shape(TFilter layout, uint32_t in, uint32_t out, uint32_t h, uint32_t w) {
  const FilterAxes a = conv_transpose2d_filter_axes(layout);
  Dims s(4);
  s[a.in_channels] = in;
  s[a.out_channels] = out;
  s[a.height] = h;
  s[a.width] = w;
  return s;
}

// convTranspose2d [1, 4, 3, 3] * iohw [4, 3, 3, 3] in groups of 2 (Cout 6, no bias) ->
// batchNormalization: the filter element [ic, o, ky, kx] is scaled by the s of output channel
// (ic / 2) · 3 + o, and the bias is −mean · s + beta.
TEST(BatchNormFolding, ConvTransposeFiltersAreScaledPerGroupOutputChannel) {
  auto make = [](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 4, 3, 3}});
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{2, 2};
    o.groups = 2;
    MLOperand c = b.convTranspose2d(x, weights(b, {4, 3, 3, 3}, 21), o);
    return {{"y", batch_norm(b, c, norm_operands(b, 6, 210))}};
  };
  expect_folds(make, 1, OpType::kConvTranspose2d);
  const Graph g = source(make);
  bool changed = false;
  const Graph f = passes::fold_batch_norm(g, &changed);
  ASSERT_EQ(f.operations.size(), 1u);
  const Operation& conv = f.operations[0];
  ASSERT_EQ(conv.type, OpType::kConvTranspose2d);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(f.descriptor(conv.inputs[1]), (MLOperandDescriptor{kFloat32, {4, 3, 3, 3}}));
  EXPECT_EQ(f.descriptor(conv.inputs[2]), (MLOperandDescriptor{kFloat32, {6}}));
  const auto& o = attrs_of<OpType::kConvTranspose2d>(conv.attrs).options;
  EXPECT_EQ(o.groups, 2u);
  EXPECT_EQ(o.strides.value_or({1, 1}), (Dims{2, 2}));
  const std::vector<float> w = values(4 * 27, 21), mean = values(6, 210),
                           var = values(6, 211, 0.1f, 2.0f), scale = values(6, 212, -2.0f, 2.0f),
                           beta = values(6, 213);
  const std::vector<float> fw = constant_floats(f, conv.inputs[1]);
  const std::vector<float> fb = constant_floats(f, conv.inputs[2]);
  ASSERT_EQ(fw.size(), w.size());
  ASSERT_EQ(fb.size(), 6u);
  auto s_of = [&](size_t oc) {
    return double(scale[oc]) / std::sqrt(double(var[oc]) + double(float(1e-3)));
  };
  for (size_t oc = 0; oc < 6; ++oc)
    EXPECT_EQ(fb[oc], float(-double(mean[oc]) * s_of(oc) + beta[oc])) << oc;
  for (size_t ic = 0; ic < 4; ++ic)
    for (size_t oc_g = 0; oc_g < 3; ++oc_g)
      for (size_t k = 0; k < 9; ++k) {
        const size_t i = (ic * 3 + oc_g) * 9 + k;
        EXPECT_EQ(fw[i], float(double(w[i]) * s_of(ic / 2 * 3 + oc_g))) << ic << ", " << oc_g;
      }
}

// Every convTranspose2d filter layout, groups 1, 2 and 3, NCHW and NHWC, with and without a
// conv bias, strided with outputPadding.
TEST(BatchNormFolding, ConvTransposeEveryFilterLayoutGroupsAndInputLayout) {
  for (TFilter layout : {TFilter::kIohw, TFilter::kHwoi, TFilter::kOhwi})
    for (uint32_t groups : {1u, 2u, 3u})
      for (MLInputOperandLayout input : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc})
        for (bool with_bias : {false, true}) {
          SCOPED_TRACE("layout " + std::to_string(int(layout)) + " groups " +
                       std::to_string(groups) + " input " + std::to_string(int(input)) +
                       (with_bias ? " bias" : ""));
          expect_folds(
              [&](MLGraphBuilder& b) -> MLNamedOperands {
                const bool nchw = input == MLInputOperandLayout::kNchw;
                const uint32_t cout = 2 * groups;
                MLOperand x = b.input("x", {kFloat32, nchw ? Dims{2, 6, 4, 3} : Dims{2, 4, 3, 6}});
                MLConvTranspose2dOptions o;
                o.padding = std::vector<uint32_t>{1, 0, 0, 1};
                o.strides = std::vector<uint32_t>{2, 3};
                o.outputPadding = std::vector<uint32_t>{1, 0};
                o.groups = groups;
                o.inputLayout = input;
                o.filterLayout = layout;
                if (with_bias) o.bias = weights(b, {cout}, 220);
                MLOperand c = b.convTranspose2d(
                    x, weights(b, transpose_filter_shape(layout, 6, 2, 3, 2), 22), o);
                return {{"y", batch_norm(b, c, norm_operands(b, cout, 221, nchw ? 1 : 3))}};
              },
              1, OpType::kConvTranspose2d);
        }
}

// Per-channel mul, add and sub by constants after a grouped NHWC convTranspose2d (ohwi, as the
// layout pass leaves it) fold into it.
TEST(BatchNormFolding, ConvTransposeMulAddSubChainFolds) {
  for (TFilter layout : {TFilter::kIohw, TFilter::kHwoi, TFilter::kOhwi}) {
    SCOPED_TRACE("layout " + std::to_string(int(layout)));
    expect_folds(
        [&](MLGraphBuilder& b) -> MLNamedOperands {
          MLOperand x = b.input("x", {kFloat32, {1, 5, 5, 4}});
          MLConvTranspose2dOptions o;
          o.strides = std::vector<uint32_t>{2, 2};
          o.groups = 2;
          o.inputLayout = MLInputOperandLayout::kNhwc;
          o.filterLayout = layout;
          o.bias = weights(b, {6}, 230);
          MLOperand c =
              b.convTranspose2d(x, weights(b, transpose_filter_shape(layout, 4, 3, 2, 2), 23), o);
          MLOperand m = b.mul(weights(b, {6}, 231, -2.0f, 2.0f), c);
          MLOperand a = b.add(m, weights(b, {1, 1, 6}, 232));
          return {{"y", b.sub(a, weights(b, {1}, 233))}};
        },
        1, OpType::kConvTranspose2d, 3);
  }
}

// Two convTranspose2d -> batchNormalization -> relu in a row, as in PP-OCR's detection head.
TEST(BatchNormFolding, TwoConvTransposePairsInARow) {
  expect_folds(
      [](MLGraphBuilder& b) -> MLNamedOperands {
        MLOperand x = b.input("x", {kFloat32, {1, 4, 3, 3}});
        MLConvTranspose2dOptions o;
        o.strides = std::vector<uint32_t>{2, 2};
        o.bias = weights(b, {4}, 240);
        MLOperand c = b.convTranspose2d(x, weights(b, {4, 4, 2, 2}, 24), o);
        MLOperand r = b.relu(batch_norm(b, c, norm_operands(b, 4, 241)));
        o.bias = weights(b, {1}, 245);
        MLOperand d = b.convTranspose2d(r, weights(b, {4, 1, 2, 2}, 25), o);
        return {{"y", b.sigmoid(batch_norm(b, d, norm_operands(b, 1, 246)))}};
      },
      2, OpType::kConvTranspose2d);
}

TEST(BatchNormFolding, ConvTransposeWithFusedActivationsOrSecondReaderIsLeftAlone) {
  expect_unchanged([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 4, 4}});
    MLOperand c = b.convTranspose2d(x, weights(b, {3, 4, 3, 3}, 26));
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 260))}, {"z", b.relu(c)}};
  });
  Graph g = source([](MLGraphBuilder& b) -> MLNamedOperands {
    MLOperand x = b.input("x", {kFloat32, {1, 3, 4, 4}});
    MLOperand c = b.convTranspose2d(x, weights(b, {3, 4, 3, 3}, 27));
    return {{"y", batch_norm(b, c, norm_operands(b, 4, 270))}};
  });
  ASSERT_EQ(g.operations[0].type, OpType::kConvTranspose2d);
  FusedActivation relu;
  relu.type = OpType::kRelu;
  relu.attrs.emplace<static_cast<size_t>(OpType::kRelu)>();
  g.operations[0].activations.push_back(relu);
  bool changed = true;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(f.operations.size(), 2u);
}

// ---- left alone ------------------------------------------------------------------------------

}  // namespace
}  // namespace cppnn
