// The batch normalization folding pass (src/passes/batch_norm_folding.h): a float32 conv2d or
// convTranspose2d whose only reader is a batchNormalization (or per-channel mul/add/sub) over its
// channel axis, with constant filter, conv bias and batch-norm operands, becomes one conv with a
// bias; everything else is left as it was. The
// folded graph gives the original's values on the reference kernels within 1e-5 of the output's
// largest magnitude.
#include "src/passes/batch_norm_folding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/ops/convolution_params.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::to_bytes;
using Make = std::function<MLNamedOperands(MLGraphBuilder&)>;
using Filter = MLConv2dFilterOperandLayout;

std::vector<float> values(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

MLOperand weights(MLGraphBuilder& b, Dims shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  const std::vector<float> v = values(element_count(shape), seed, lo, hi);
  return b.constant({kFloat32, std::move(shape)}, to_bytes(v));
}

// The batch-norm operands of `channels` channels: mean, variance (positive), scale, bias.
struct Norm {
  MLOperand mean, variance;
  MLBatchNormalizationOptions options;
};

Norm norm_operands(MLGraphBuilder& b, uint32_t channels, uint32_t seed, uint32_t axis = 1) {
  Norm n{weights(b, {channels}, seed), weights(b, {channels}, seed + 1, 0.1f, 2.0f), {}};
  n.options.scale = weights(b, {channels}, seed + 2, -2.0f, 2.0f);
  n.options.bias = weights(b, {channels}, seed + 3);
  n.options.axis = axis;
  n.options.epsilon = 1e-3;
  return n;
}

MLOperand batch_norm(MLGraphBuilder& b, const MLOperand& x, const Norm& n) {
  return b.batchNormalization(x, n.mean, n.variance, n.options);
}

// The filter shape of a conv2d [out, in, h, w] in `layout`.
Dims filter_shape(Filter layout, uint32_t out, uint32_t in, uint32_t h, uint32_t w) {
  const FilterAxes a = conv2d_filter_axes(layout);
  Dims s(4);
  s[a.out_channels] = out;
  s[a.in_channels] = in;
  s[a.height] = h;
  s[a.width] = w;
  return s;
}

Graph source(const Make& make) {
  MLGraphBuilder b(testing::ref_context());
  return b.pruned_graph(make(b));
}

size_t count(const Graph& g, OpType type) {
  return size_t(std::count_if(g.operations.begin(), g.operations.end(),
                              [&](const Operation& op) { return op.type == type; }));
}

std::vector<float> constant_floats(const Graph& g, OperandId id) {
  const auto bytes = g.constant(id).bytes();
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

// Runs `g` as it is on the reference kernels with deterministic float32 inputs (the i-th input
// from seed 100 + i); the outputs by name.
std::map<std::string, std::vector<float>> run(const Graph& g) {
  auto plan = make_reference_plan(std::make_shared<const Graph>(g));
  std::vector<std::vector<float>> in, out;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.push_back(values(element_count(g.descriptor(g.inputs[i]).shape), uint32_t(100 + i)));
  for (const auto& [name, id] : g.outputs) out.emplace_back(element_count(g.descriptor(id).shape));
  std::vector<const std::byte*> in_ptrs;
  std::vector<std::byte*> out_ptrs;
  for (const auto& v : in) in_ptrs.push_back(reinterpret_cast<const std::byte*>(v.data()));
  for (auto& o : out) out_ptrs.push_back(reinterpret_cast<std::byte*>(o.data()));
  plan->execute(in_ptrs, out_ptrs);
  std::map<std::string, std::vector<float>> result;
  for (size_t i = 0; i < g.outputs.size(); ++i) result[g.outputs[i].first] = out[i];
  return result;
}

// `folded` gives `original`'s outputs within 1e-5 of each output's largest magnitude.
void expect_same_values(const Graph& original, const Graph& folded) {
  const auto want = run(original);
  const auto got = run(folded);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    SCOPED_TRACE("output " + name);
    const auto it = got.find(name);
    ASSERT_NE(it, got.end());
    ASSERT_EQ(it->second.size(), w.size());
    double largest = 0;
    for (float v : w) largest = std::max(largest, std::fabs(double(v)));
    size_t bad = 0;
    for (size_t i = 0; i < w.size(); ++i)
      if (!(std::fabs(double(it->second[i]) - w[i]) <= 1e-5 * largest + 1e-7) && bad++ < 5)
        ADD_FAILURE() << "element " << i << ": folded " << it->second[i] << ", original " << w[i]
                      << " (largest " << largest << ")";
  }
}

// The pass folds `make`'s graph into `convs` convolutions of `type` and no batchNormalization,
// each conv with a constant bias, `absorbed` operations gone (0: one per conv), and the values
// stay.
void expect_folds(const Make& make, size_t convs = 1, OpType type = OpType::kConv2d,
                  size_t absorbed = 0) {
  const Graph g = source(make);
  bool changed = false;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(count(f, OpType::kBatchNormalization), 0u);
  EXPECT_EQ(count(f, type), convs);
  EXPECT_EQ(f.operations.size(), g.operations.size() - (absorbed ? absorbed : convs));
  for (const Operation& op : f.operations) {
    if (op.type != type) continue;
    ASSERT_EQ(op.inputs.size(), 3u);
    ASSERT_TRUE(op.inputs[2].valid());
    EXPECT_EQ(f.operand(op.inputs[2]).kind, OperandKind::kConstant);
    EXPECT_EQ(f.operand(op.inputs[1]).kind, OperandKind::kConstant);
  }
  ASSERT_EQ(f.outputs.size(), g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    EXPECT_EQ(f.outputs[i].first, g.outputs[i].first);
    EXPECT_EQ(f.descriptor(f.outputs[i].second), g.descriptor(g.outputs[i].second));
  }
  EXPECT_EQ(f.inputs.size(), g.inputs.size());
  expect_same_values(g, f);
}

// The pass leaves `make`'s graph alone.
void expect_unchanged(const Make& make, bool run_it = true) {
  const Graph g = source(make);
  bool changed = true;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(f.operations.size(), g.operations.size());
  EXPECT_EQ(count(f, OpType::kBatchNormalization), count(g, OpType::kBatchNormalization));
  if (run_it) expect_same_values(g, f);
}

// conv2d [1, 3, 6, 6] * [4, 3, 3, 3] (padding 1, no bias) -> batchNormalization.
MLNamedOperands conv_bn(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 6, 6}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 1), {.padding = {1, 1, 1, 1}});
  return {{"y", batch_norm(b, c, norm_operands(b, 4, 10))}};
}

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
