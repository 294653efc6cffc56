// Helpers of the batch-norm folding tests (batch_norm_folding_test.cpp for conv2d,
// batch_norm_folding_conv_transpose_test.cpp for convTranspose2d): deterministic weights and
// batch-norm operands, graphs from builder calls, running them on the reference kernels, and the
// checks that the pass folded (values within 1e-5 of the largest magnitude) or left a graph alone.
#pragma once

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
#include "src/passes/batch_norm_folding.h"
#include "tests/backends/run_util.h"

namespace cppnn::bn_folding_testing {

using enum MLOperandDataType;
using testing::to_bytes;
using Make = std::function<MLNamedOperands(MLGraphBuilder&)>;
using Filter = MLConv2dFilterOperandLayout;

inline std::vector<float> values(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline MLOperand weights(MLGraphBuilder& b, Dims shape, uint32_t seed, float lo = -1.0f,
                         float hi = 1.0f) {
  const std::vector<float> v = values(element_count(shape), seed, lo, hi);
  return b.constant({kFloat32, std::move(shape)}, to_bytes(v));
}

// The batch-norm operands of `channels` channels: mean, variance (positive), scale, bias.
struct Norm {
  MLOperand mean, variance;
  MLBatchNormalizationOptions options;
};

inline Norm norm_operands(MLGraphBuilder& b, uint32_t channels, uint32_t seed, uint32_t axis = 1) {
  Norm n{weights(b, {channels}, seed), weights(b, {channels}, seed + 1, 0.1f, 2.0f), {}};
  n.options.scale = weights(b, {channels}, seed + 2, -2.0f, 2.0f);
  n.options.bias = weights(b, {channels}, seed + 3);
  n.options.axis = axis;
  n.options.epsilon = 1e-3;
  return n;
}

inline MLOperand batch_norm(MLGraphBuilder& b, const MLOperand& x, const Norm& n) {
  return b.batchNormalization(x, n.mean, n.variance, n.options);
}

// The filter shape of a conv2d [out, in, h, w] in `layout`.
inline Dims filter_shape(Filter layout, uint32_t out, uint32_t in, uint32_t h, uint32_t w) {
  const FilterAxes a = conv2d_filter_axes(layout);
  Dims s(4);
  s[a.out_channels] = out;
  s[a.in_channels] = in;
  s[a.height] = h;
  s[a.width] = w;
  return s;
}

inline Graph source(const Make& make) {
  MLGraphBuilder b(testing::ref_context());
  return b.pruned_graph(make(b));
}

inline size_t count(const Graph& g, OpType type) {
  return size_t(std::count_if(g.operations.begin(), g.operations.end(),
                              [&](const Operation& op) { return op.type == type; }));
}

inline std::vector<float> constant_floats(const Graph& g, OperandId id) {
  const auto bytes = g.constant(id).bytes();
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

// Runs `g` as it is on the reference kernels with deterministic float32 inputs (the i-th input
// from seed 100 + i); the outputs by name.
inline std::map<std::string, std::vector<float>> run(const Graph& g) {
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
inline void expect_same_values(const Graph& original, const Graph& folded) {
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
inline void expect_folds(const Make& make, size_t convs = 1, OpType type = OpType::kConv2d,
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
inline void expect_unchanged(const Make& make, bool run_it = true) {
  const Graph g = source(make);
  bool changed = true;
  const Graph f = passes::fold_batch_norm(g, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(f.operations.size(), g.operations.size());
  EXPECT_EQ(count(f, OpType::kBatchNormalization), count(g, OpType::kBatchNormalization));
  if (run_it) expect_same_values(g, f);
}

// conv2d [1, 3, 6, 6] * [4, 3, 3, 3] (padding 1, no bias) -> batchNormalization.
inline MLNamedOperands conv_bn(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 6, 6}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 1), {.padding = {1, 1, 1, 1}});
  return {{"y", batch_norm(b, c, norm_operands(b, 4, 10))}};
}

}  // namespace cppnn::bn_folding_testing
