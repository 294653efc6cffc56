// The layout pass (src/passes/layout.h): NCHW convolutions, pools, resample and normalizations are
// rewritten in NHWC for a backend that prefers it, with the transposes sunk so that a chain carries
// one at its input and one at its output; the rewritten graph gives the reference backend's values
// bit for bit.
#include "src/passes/layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/backends/selection.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::run_graph;
using testing::to_bytes;

// Every op native, NHWC preferred, the layout pass on.
BackendDescriptor nhwc_descriptor() {
  BackendDescriptor d = BackendDescriptor::with_all_ops("nhwc-test");
  d.preferred_layout = MLInputOperandLayout::kNhwc;
  d.passes.convert_layout = true;
  return d;
}

// The NHWC test backend on the reference kernels; it keeps the graph it compiled last (what the
// pipeline made of the built graph).
class NhwcBackend final : public Backend {
 public:
  explicit NhwcBackend(std::shared_ptr<const Graph>* last) : last_(last) {}
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = nhwc_descriptor();
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    *last_ = graph;
    return make_reference_plan(std::move(graph));
  }

 private:
  std::shared_ptr<const Graph>* last_;
};

// Records a graph on a builder and names its outputs.
using Make = std::function<MLNamedOperands(MLGraphBuilder&)>;

// Deterministic float32 values in [-1, 1).
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

uint64_t count_of(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

// A float32 constant of `shape` with values(seed).
MLOperand weights(MLGraphBuilder& b, std::vector<uint32_t> shape, uint32_t seed) {
  const std::vector<float> v = values(count_of(shape), seed);
  return b.constant({kFloat32, std::move(shape)}, to_bytes(v));
}

size_t count(const Graph& g, OpType t) {
  size_t n = 0;
  for (const Operation& op : g.operations) n += op.type == t;
  return n;
}

const Operation& first(const Graph& g, OpType t) {
  for (const Operation& op : g.operations)
    if (op.type == t) return op;
  throw std::runtime_error("no such operation");
}

class LayoutPass : public ::testing::Test {
 protected:
  LayoutPass()
      : registered_("nhwc-test", [this](const MLContextOptions&) {
          return std::make_unique<NhwcBackend>(&last_compiled_);
        }) {}

  // The graph `make` records, as build() hands it to the passes.
  static Graph source(const Make& make) {
    MLGraphBuilder b(testing::ref_context());
    return b.pruned_graph(make(b));
  }
  // The layout pass's result on `make`'s graph; expects it to have changed the graph.
  static Graph converted(const Make& make) {
    bool changed = false;
    Graph g = passes::convert_layout(source(make), nhwc_descriptor(), &changed);
    EXPECT_TRUE(changed);
    return g;
  }

  // Builds `make` on `backend` and runs it on deterministic inputs: every output's bytes.
  static std::map<std::string, std::vector<std::byte>> run_on(const std::string& backend,
                                                              const Make& make) {
    MLContext context = MLContext::create({.backend = backend});
    MLGraphBuilder b(context);
    MLGraph graph = b.build(make(b));
    std::map<std::string, std::vector<std::byte>> inputs;
    uint32_t seed = 100;
    for (const auto& [name, desc] : graph.inputs()) {
      const std::vector<float> v = values(count_of(desc.shape), ++seed);
      inputs[name] = desc.dataType == kFloat16 ? to_bytes(testing::half_bits(v)) : to_bytes(v);
    }
    return run_graph(context, graph, inputs);
  }

  // The NHWC backend's outputs equal the reference backend's bit for bit; returns the graph the
  // NHWC backend compiled.
  Graph expect_same_values(const Make& make) {
    const auto expected = run_on("reference", make);
    const auto got = run_on("nhwc-test", make);
    EXPECT_EQ(got.size(), expected.size());
    for (const auto& [name, bytes] : expected) {
      const auto it = got.find(name);
      EXPECT_NE(it, got.end()) << name;
      if (it != got.end()) {
        EXPECT_EQ(it->second, bytes) << "output " << name << " differs";
      }
    }
    return *last_compiled_;
  }

  std::shared_ptr<const Graph> last_compiled_;
  ScopedTestBackend registered_;
};

// conv2d -> add(bias) -> relu -> conv2d -> maxPool2d, all NCHW.
MLNamedOperands conv_chain(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 8, 8}});
  MLOperand c1 = b.conv2d(x, weights(b, {4, 3, 3, 3}, 1), {.padding = {1, 1, 1, 1}});
  MLOperand biased = b.add(c1, weights(b, {4, 1, 1}, 2));
  MLOperand r = b.relu(biased);
  MLOperand c2 = b.conv2d(r, weights(b, {5, 4, 3, 3}, 3), {.padding = {1, 1, 1, 1}});
  MLOperand p = b.maxPool2d(c2, {.windowDimensions = {2, 2}, .strides = {2, 2}});
  return {{"y", p}};
}

TEST_F(LayoutPass, ConvChainCarriesOneTransposeAtEachEnd) {
  EXPECT_EQ(count(source(conv_chain), OpType::kTranspose), 0u);
  const Graph g = converted(conv_chain);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  EXPECT_EQ(count(g, OpType::kReshape), 0u);  // the bias constant is re-shaped, not the data
  for (const Operation& op : g.operations) {
    if (op.type != OpType::kConv2d) continue;
    const auto& o = attrs_of<OpType::kConv2d>(op.attrs).options;
    EXPECT_EQ(o.inputLayout, MLInputOperandLayout::kNhwc);
    EXPECT_EQ(o.filterLayout, MLConv2dFilterOperandLayout::kOhwi);
    // The filter is a permuted constant: [O, H, W, I].
    EXPECT_EQ(g.operand(op.inputs[1]).kind, OperandKind::kConstant);
  }
  EXPECT_EQ(attrs_of<OpType::kMaxPool2d>(first(g, OpType::kMaxPool2d).attrs).options.layout,
            MLInputOperandLayout::kNhwc);
  // The graph's inputs and outputs are the source's.
  const Graph s = source(conv_chain);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.descriptor(g.inputs[0]), s.descriptor(s.inputs[0]));
  EXPECT_EQ(g.descriptor(g.outputs.at(0).second), s.descriptor(s.outputs.at(0).second));
  const Graph compiled = expect_same_values(conv_chain);
  EXPECT_EQ(count(compiled, OpType::kTranspose), 2u);
}

TEST_F(LayoutPass, FilterLayoutIsAParameter) {
  bool changed = false;
  const Graph g =
      passes::convert_layout(source(conv_chain), nhwc_descriptor(),
                             {.conv2d_filter = MLConv2dFilterOperandLayout::kHwio}, &changed);
  ASSERT_TRUE(changed);
  const Operation& conv = first(g, OpType::kConv2d);
  EXPECT_EQ(attrs_of<OpType::kConv2d>(conv.attrs).options.filterLayout,
            MLConv2dFilterOperandLayout::kHwio);
  EXPECT_EQ(g.descriptor(conv.inputs[1]).shape, (std::vector<uint32_t>{3, 3, 3, 4}));
}

// Two conv2d branches of one input added (a residual join).
MLNamedOperands residual(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 6, 6}});
  MLOperand a = b.conv2d(x, weights(b, {4, 3, 3, 3}, 4), {.padding = {1, 1, 1, 1}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 1, 1}, 5));
  return {{"y", b.relu(b.add(a, c))}};
}

TEST_F(LayoutPass, ResidualAddOfTwoConvBranches) {
  const Graph g = converted(residual);
  // One transpose of x shared by both branches, one at the output.
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  EXPECT_EQ(count(expect_same_values(residual), OpType::kTranspose), 2u);
}

// conv -> relu whose result feeds both a second conv and the add after it.
MLNamedOperands skip_connection(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 4, 5, 5}});
  MLOperand r = b.relu(b.conv2d(x, weights(b, {4, 4, 3, 3}, 6), {.padding = {1, 1, 1, 1}}));
  MLOperand s = b.conv2d(r, weights(b, {4, 4, 3, 3}, 7), {.padding = {1, 1, 1, 1}});
  return {{"y", b.add(r, s)}};
}

TEST_F(LayoutPass, SkipConnection) {
  EXPECT_EQ(count(converted(skip_connection), OpType::kTranspose), 2u);
  expect_same_values(skip_connection);
}

// Two conv2d branches concatenated along the channels.
MLNamedOperands channel_concat(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
  MLOperand a = b.conv2d(x, weights(b, {2, 3, 3, 3}, 8), {.padding = {1, 1, 1, 1}});
  MLOperand c = b.conv2d(x, weights(b, {3, 3, 1, 1}, 9));
  return {{"y", b.concat({a, c}, 1)}};
}

TEST_F(LayoutPass, ConcatAlongChannels) {
  const Graph g = converted(channel_concat);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  EXPECT_EQ(attrs_of<OpType::kConcat>(first(g, OpType::kConcat).attrs).params.axis, 3u);
  expect_same_values(channel_concat);
}

// An NHWC image transposed to NCHW for a conv whose result is transposed back: both cancel.
MLNamedOperands nhwc_wrapped(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 6, 6, 3}});
  MLOperand nchw = b.transpose(x, {.permutation = {0, 3, 1, 2}});
  MLOperand c = b.conv2d(nchw, weights(b, {4, 3, 3, 3}, 10));
  return {{"y", b.transpose(b.sigmoid(c), {.permutation = {0, 2, 3, 1}})}};
}

TEST_F(LayoutPass, InverseTransposesCancel) {
  EXPECT_EQ(count(source(nhwc_wrapped), OpType::kTranspose), 2u);
  EXPECT_EQ(count(converted(nhwc_wrapped), OpType::kTranspose), 0u);
  EXPECT_EQ(count(expect_same_values(nhwc_wrapped), OpType::kTranspose), 0u);
}

// A transposed constant added to an input.
MLNamedOperands transposed_constant(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 4}});
  MLOperand c = b.transpose(weights(b, {4, 2, 3}, 11), {.permutation = {1, 2, 0}});
  return {{"y", b.add(x, c)}};
}

TEST_F(LayoutPass, TransposeOfAConstantIsAPermutedConstant) {
  const Graph g = converted(transposed_constant);
  EXPECT_EQ(count(g, OpType::kTranspose), 0u);
  EXPECT_EQ(g.operations.size(), 1u);
  expect_same_values(transposed_constant);
}

// A transpose read by two elementwise ops that are graph outputs: sinking it would take two.
MLNamedOperands shared_transpose(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 4}});
  MLOperand t = b.transpose(x);
  return {{"a", b.relu(t)}, {"b", b.exp(t)}};
}

TEST_F(LayoutPass, SinkingNeverAddsTransposes) {
  bool changed = true;
  const Graph g = passes::convert_layout(source(shared_transpose), nhwc_descriptor(), &changed);
  EXPECT_EQ(count(g, OpType::kTranspose), 1u);
  EXPECT_FALSE(changed);
}

// A conv whose bias add reads a graph input broadcast per channel: a reshape, no transpose.
MLNamedOperands input_bias(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 4}});
  MLOperand bias = b.input("bias", {kFloat32, {3, 1, 1}});
  MLOperand c = b.conv2d(x, weights(b, {3, 2, 3, 3}, 12));
  MLOperand y = b.conv2d(b.tanh(b.add(c, bias)), weights(b, {2, 3, 1, 1}, 13));
  return {{"y", y}};
}

TEST_F(LayoutPass, BroadcastOperandIsReshapedNotTransposed) {
  const Graph g = converted(input_bias);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  EXPECT_EQ(count(g, OpType::kReshape), 1u);
  expect_same_values(input_bias);
}

// convTranspose2d, batchNormalization, resample2d, instanceNormalization, the three pools and a
// grouped conv2d in one NCHW chain.
MLNamedOperands layout_ops(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 4, 5, 5}});
  MLOperand t = b.convTranspose2d(x, weights(b, {4, 2, 3, 3}, 14), {.strides = {2, 2}});
  MLOperand n = b.batchNormalization(
      t, weights(b, {2}, 15), b.constant({kFloat32, {2}}, to_bytes(std::vector<float>{1.5f, 2})),
      {.scale = weights(b, {2}, 16), .bias = weights(b, {2}, 17)});
  MLOperand r = b.resample2d(n, {.mode = MLInterpolationMode::kLinear, .scales = {1.5f, 1.5f}});
  MLOperand i = b.instanceNormalization(r, {.scale = weights(b, {2}, 18)});
  MLOperand a = b.averagePool2d(i, {.windowDimensions = {3, 3}, .padding = {1, 1, 1, 1}});
  MLOperand l = b.l2Pool2d(a, {.windowDimensions = {2, 2}});
  MLOperand g = b.conv2d(b.maxPool2d(l, {.windowDimensions = {2, 2}}), weights(b, {2, 1, 2, 2}, 19),
                         {.groups = 2});
  return {{"y", g}};
}

TEST_F(LayoutPass, EveryLayoutOpIsRewrittenInNhwc) {
  const Graph g = converted(layout_ops);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  EXPECT_EQ(attrs_of<OpType::kBatchNormalization>(first(g, OpType::kBatchNormalization).attrs)
                .options.axis,
            3u);
  EXPECT_EQ(*attrs_of<OpType::kResample2d>(first(g, OpType::kResample2d).attrs).options.axes,
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(attrs_of<OpType::kConvTranspose2d>(first(g, OpType::kConvTranspose2d).attrs)
                .options.filterLayout,
            MLConvTranspose2dFilterOperandLayout::kOhwi);
  expect_same_values(layout_ops);
}

// resample2d over axes [3, 2] (scales in that order) after a conv.
MLNamedOperands reversed_resample(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 4, 5}});
  MLOperand c = b.conv2d(x, weights(b, {3, 2, 1, 1}, 20));
  return {{"y",
           b.resample2d(
               c, {.mode = MLInterpolationMode::kLinear, .scales = {2.0f, 1.5f}, .axes = {3, 2}})}};
}

TEST_F(LayoutPass, ResampleAxesAreMappedWithTheirScales) {
  const Graph g = converted(reversed_resample);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  const auto& o = attrs_of<OpType::kResample2d>(first(g, OpType::kResample2d).attrs).options;
  EXPECT_EQ(*o.axes, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(*o.scales, (std::vector<float>{1.5f, 2.0f}));
  expect_same_values(reversed_resample);
}

// A float16 conv -> add(bias) -> sigmoid -> conv chain (2-byte elements permuted).
MLNamedOperands float16_chain(MLGraphBuilder& b) {
  auto half = [&](std::vector<uint32_t> shape, uint32_t seed) {
    return b.constant({kFloat16, shape},
                      to_bytes(testing::half_bits(values(count_of(shape), seed))));
  };
  MLOperand x = b.input("x", {kFloat16, {1, 2, 4, 4}});
  MLOperand c = b.conv2d(x, half({3, 2, 3, 3}, 21), {.padding = {1, 1, 1, 1}});
  MLOperand s = b.sigmoid(b.add(c, half({3, 1, 1}, 22)));
  return {{"y", b.conv2d(s, half({2, 3, 2, 2}, 23))}};
}

TEST_F(LayoutPass, Float16) {
  EXPECT_EQ(count(converted(float16_chain), OpType::kTranspose), 2u);
  expect_same_values(float16_chain);
}

// An int32 constant of `shape` holding `v`.
MLOperand indices(MLGraphBuilder& b, std::vector<uint32_t> shape, const std::vector<int32_t>& v) {
  return b.constant({kInt32, std::move(shape)}, to_bytes(v));
}

// ONNX's nearest Resize by 2 as two gathers (height, then width) between two convs, added to a
// conv branch of the same size (the top-down merge of a feature pyramid).
MLNamedOperands gather_upsample(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 3, 4}});
  MLOperand c = b.conv2d(x, weights(b, {2, 3, 1, 1}, 24));
  MLOperand up = b.gather(b.gather(c, indices(b, {6}, {0, 0, 1, 1, 2, 2}), {.axis = 2}),
                          indices(b, {8}, {0, 0, 1, 1, 2, 2, 3, 3}), {.axis = 3});
  MLOperand side = b.input("side", {kFloat32, {1, 3, 6, 8}});
  MLOperand s = b.conv2d(side, weights(b, {2, 3, 1, 1}, 25));
  return {{"y", b.conv2d(b.add(s, up), weights(b, {2, 2, 3, 3}, 26))}};
}

TEST_F(LayoutPass, GathersAlongTheMappedAxes) {
  const Graph g = converted(gather_upsample);
  // One transpose per input, one at the output: the gathers run in NHWC.
  EXPECT_EQ(count(g, OpType::kTranspose), 3u);
  std::vector<uint32_t> axes;
  for (const Operation& op : g.operations)
    if (op.type == OpType::kGather)
      axes.push_back(attrs_of<OpType::kGather>(op.attrs).options.axis);
  EXPECT_EQ(axes, (std::vector<uint32_t>{1, 2}));
  expect_same_values(gather_upsample);
}

// Gathers that change the rank, each the only reader of a conv's result: 2-D indices along the
// channels, a scalar index along the height.
MLNamedOperands gather_ranks(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 2, 3, 4}});
  MLOperand c = b.conv2d(x, weights(b, {3, 2, 1, 1}, 27));
  MLOperand d = b.conv2d(x, weights(b, {3, 2, 1, 1}, 34));
  MLOperand grid = b.gather(c, indices(b, {2, 1}, {2, 0}), {.axis = 1});
  MLOperand row =
      b.gather(d, b.constant({kInt32, {}}, to_bytes(std::vector<int32_t>{1})), {.axis = 2});
  return {{"grid", b.sigmoid(grid)}, {"row", b.exp(row)}};
}

TEST_F(LayoutPass, GatherIndicesOfAnyRank) {
  const Graph g = converted(gather_ranks);
  // x's transpose, one at each output.
  EXPECT_EQ(count(g, OpType::kTranspose), 3u);
  std::vector<uint32_t> axes;
  for (const Operation& op : g.operations)
    if (op.type == OpType::kGather)
      axes.push_back(attrs_of<OpType::kGather>(op.attrs).options.axis);
  EXPECT_EQ(axes, (std::vector<uint32_t>{3, 1}));  // NHWC's channels, height
  expect_same_values(gather_ranks);
}

// A squeeze-excite block: the global mean per channel scales the channels through two 1x1 convs.
MLNamedOperands squeeze_excite(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {1, 3, 5, 5}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 3, 3}, 28), {.padding = {1, 1, 1, 1}});
  MLOperand m = b.reduceMean(c, {.axes = {2, 3}, .keepDimensions = true});
  MLOperand s =
      b.conv2d(b.relu(b.conv2d(m, weights(b, {2, 4, 1, 1}, 29))), weights(b, {4, 2, 1, 1}, 30));
  MLOperand y = b.mul(c, b.hardSigmoid(s));
  return {{"y", b.conv2d(y, weights(b, {2, 4, 1, 1}, 31))}};
}

TEST_F(LayoutPass, ReductionOverTheMappedAxes) {
  const Graph g = converted(squeeze_excite);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);
  const auto& o = attrs_of<OpType::kReduceMean>(first(g, OpType::kReduceMean).attrs).options;
  EXPECT_EQ(*o.axes, (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(o.keepDimensions);
  EXPECT_EQ(count(expect_same_values(squeeze_excite), OpType::kTranspose), 2u);
}

// Reductions of a conv's result: over the spatial axes ([N, C] left, in order), over the channels
// by argMax ([N, H, W]) and by reduceMax keeping them ([N, 1, H, W]: a reshape away from NHWC).
MLNamedOperands dropped_axes(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 4, 5}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 1, 1}, 32));
  return {{"pooled", b.reduceSum(c, {.axes = {3, 2}})},
          {"label", b.argMax(c, 1)},
          {"extreme", b.reduceMax(c, {.axes = {1}, .keepDimensions = true})}};
}

TEST_F(LayoutPass, ReductionsWithoutKeptDimensions) {
  const Graph g = converted(dropped_axes);
  EXPECT_EQ(count(g, OpType::kTranspose), 1u);  // the input's
  EXPECT_EQ(count(g, OpType::kReshape), 1u);    // reduceMax's result
  EXPECT_EQ(*attrs_of<OpType::kReduceSum>(first(g, OpType::kReduceSum).attrs).options.axes,
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(attrs_of<OpType::kArgMax>(first(g, OpType::kArgMax).attrs).params.axis, 3u);
  EXPECT_EQ(*attrs_of<OpType::kReduceMax>(first(g, OpType::kReduceMax).attrs).options.axes,
            (std::vector<uint32_t>{3}));
  expect_same_values(dropped_axes);
}

// A reduction over the channels and the height, which NHWC holds out of order (H before C).
MLNamedOperands out_of_order(MLGraphBuilder& b) {
  MLOperand x = b.input("x", {kFloat32, {2, 3, 4, 5}});
  MLOperand c = b.conv2d(x, weights(b, {4, 3, 1, 1}, 33));
  return {{"y", b.reduceSum(c, {.axes = {1, 2}})}};
}

TEST_F(LayoutPass, ReductionMeetsItsElementsInOrder) {
  const Graph g = converted(out_of_order);
  EXPECT_EQ(count(g, OpType::kTranspose), 2u);  // the conv's result comes back to NCHW
  EXPECT_EQ(*attrs_of<OpType::kReduceSum>(first(g, OpType::kReduceSum).attrs).options.axes,
            (std::vector<uint32_t>{1, 2}));
  expect_same_values(out_of_order);
}

TEST_F(LayoutPass, NchwBackendsAreLeftAlone) {
  BackendDescriptor d = nhwc_descriptor();
  d.preferred_layout = MLInputOperandLayout::kNchw;
  bool changed = true;
  const Graph g = passes::convert_layout(source(conv_chain), d, &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(count(g, OpType::kTranspose), 0u);
}

}  // namespace
}  // namespace cppnn
