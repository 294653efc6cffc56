// Memory planning by liveness (src/passes/memory_plan.h): intermediates whose lifetimes overlap
// never share bytes, outputs never share with inputs, offsets are aligned, a chain needs two
// buffers, and the reference backend computes the same results on the planned arena as with no
// intermediate at all.
#include "src/passes/memory_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/backends/selection.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using passes::MemoryPlan;
using passes::plan_memory;
using testing::as;
using testing::ref_context;
using testing::run_graph;
using testing::to_bytes;
using enum MLOperandDataType;

uint64_t align_up(uint64_t n, uint64_t a) {
  return (n + a - 1) / a * a;
}

// The lifetime of every operand as the planner must see it, computed independently: [producer,
// last reader] for operation results (a fused activation runs within its producer).
struct Lifetime {
  bool intermediate = false;
  size_t first = 0, last = 0;
};
std::vector<Lifetime> lifetimes(const Graph& g) {
  std::vector<Lifetime> life(g.operands.size());
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const OperandInfo& info = g.operands[i];
    life[i].intermediate = info.kind == OperandKind::kOperationResult;
    life[i].first = life[i].last = info.producer;
  }
  for (const auto& [name, id] : g.outputs) life[id.value].intermediate = false;
  for (size_t k = 0; k < g.operations.size(); ++k)
    for (OperandId in : g.operations[k].inputs)
      if (in.valid()) life[in.value].last = std::max(life[in.value].last, k);
  return life;
}

// Checks every rule of a plan of `g`: exactly the intermediates are planned, aligned, inside the
// arena; a view is the output of a reshape or identity of an intermediate, at its storage's
// offset; two intermediates of different storage alive at the same operation (a storage lives as
// long as any of its views) are disjoint in bytes; the sums add up. Returns the number of
// intermediates.
size_t check_plan(const Graph& g, const MemoryPlan& plan, uint64_t alignment) {
  std::vector<Lifetime> life = lifetimes(g);
  EXPECT_EQ(plan.storage.size(), g.operands.size());
  EXPECT_EQ(plan.is_view.size(), g.operations.size());
  for (size_t i = 0; i < g.operands.size(); ++i) {
    if (plan.storage[i] == i) continue;
    const Operation& op = g.operations[g.operands[i].producer];
    EXPECT_TRUE(plan.is_view[g.operands[i].producer]) << "operand " << i;
    EXPECT_TRUE(op.type == OpType::kReshape || op.type == OpType::kIdentity) << "operand " << i;
    EXPECT_TRUE(life[i].intermediate && life[op.inputs[0].value].intermediate) << "operand " << i;
    EXPECT_EQ(plan.storage[op.inputs[0].value], plan.storage[i]) << "operand " << i;
    EXPECT_EQ(plan.offsets[i], plan.offsets[plan.storage[i]]) << "operand " << i;
  }
  for (size_t i = 0; i < g.operands.size(); ++i) {  // a storage lives as long as its views
    Lifetime& root = life[plan.storage[i]];
    root.first = std::min(root.first, life[i].first);
    root.last = std::max(root.last, life[i].last);
  }
  for (size_t i = 0; i < g.operands.size(); ++i)
    life[i] = {life[i].intermediate, life[plan.storage[i]].first, life[plan.storage[i]].last};
  EXPECT_EQ(plan.offsets.size(), g.operands.size());
  uint64_t unplanned = 0;
  std::vector<size_t> planned;
  for (size_t i = 0; i < g.operands.size(); ++i) {
    if (!life[i].intermediate) {
      EXPECT_EQ(plan.offsets[i], MemoryPlan::kNotPlanned) << "operand " << i;
      continue;
    }
    planned.push_back(i);
    const uint64_t bytes =
        align_up(std::max<uint64_t>(byte_length(g.operands[i].descriptor), 1), alignment);
    unplanned += bytes;
    EXPECT_NE(plan.offsets[i], MemoryPlan::kNotPlanned) << "operand " << i;
    EXPECT_EQ(plan.offsets[i] % alignment, 0u) << "operand " << i;
    EXPECT_LE(plan.offsets[i] + bytes, plan.arena_bytes) << "operand " << i;
  }
  EXPECT_EQ(plan.unplanned_bytes, unplanned);
  EXPECT_LE(plan.arena_bytes, plan.unplanned_bytes);
  for (size_t a : planned) {
    for (size_t b : planned) {
      if (a >= b || plan.storage[a] == plan.storage[b] || life[a].first > life[b].last ||
          life[b].first > life[a].last)
        continue;
      const uint64_t ea = plan.offsets[a] + byte_length(g.operands[a].descriptor);
      const uint64_t eb = plan.offsets[b] + byte_length(g.operands[b].descriptor);
      EXPECT_TRUE(ea <= plan.offsets[b] || eb <= plan.offsets[a])
          << "operands " << a << " [" << life[a].first << ", " << life[a].last << "] and " << b
          << " [" << life[b].first << ", " << life[b].last << "] overlap in bytes";
    }
  }
  return planned.size();
}

// The same plan every time, checked with `alignment`; returns it.
MemoryPlan checked_plan(const Graph& g, uint64_t alignment = 64) {
  const MemoryPlan plan = plan_memory(g, alignment);
  check_plan(g, plan, alignment);
  const MemoryPlan again = plan_memory(g, alignment);
  EXPECT_EQ(plan.offsets, again.offsets);
  EXPECT_EQ(plan.arena_bytes, again.arena_bytes);
  return plan;
}

std::vector<float> ramp(size_t n, float scale = 0.1f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(int(i % 17) - 8);
  return v;
}

MLOperand constant(MLGraphBuilder& b, std::vector<uint32_t> shape, unsigned seed) {
  size_t n = 1;
  for (uint32_t s : shape) n *= s;
  std::vector<float> v = ramp(n + seed, 0.05f);
  v.erase(v.begin(), v.begin() + seed);
  return b.constant({kFloat32, shape}, std::as_bytes(std::span(v)));
}

// N unary ops of the same size in a chain: every intermediate lives for two operations, so two
// buffers hold them all.
TEST(MemoryPlan, ChainOfSameSizeOpsNeedsTwoBuffers) {
  MLContext context = ref_context();
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kFloat32, {1000}});
  for (int i = 0; i < 12; ++i) x = i % 2 ? b.relu(x) : b.sigmoid(x);
  const MLGraph graph = b.build({{"y", x}});
  const MemoryPlan plan = checked_plan(graph.graph());
  EXPECT_EQ(plan.arena_bytes, 2 * align_up(4000, 64));
  EXPECT_EQ(plan.unplanned_bytes, 11 * align_up(4000, 64));
}

// Offsets are multiples of the alignment, also for odd sizes and alignments other than 64.
TEST(MemoryPlan, OffsetsAreAligned) {
  MLContext context = ref_context();
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kFloat32, {3}});
  MLOperand a = b.relu(x), c = b.sigmoid(a), d = b.add(a, c), e = b.mul(d, c);
  const MLGraph graph = b.build({{"y", b.add(e, a)}});
  for (uint64_t alignment : {1u, 16u, 64u, 256u, 4096u}) {
    const MemoryPlan plan = checked_plan(graph.graph(), alignment);
    EXPECT_EQ(plan.arena_bytes % alignment, 0u);
  }
}

// split's outputs are alive together from the split on; an output named twice and an output read
// by later operations are not planned; a result nobody reads still gets bytes of its own.
TEST(MemoryPlan, SplitOutputsAndOutputsNamedTwice) {
  MLContext context = ref_context();
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kFloat32, {4, 6}});
  std::vector<MLOperand> s = b.split(b.relu(x), 3, {.axis = 1});
  MLOperand a = b.sigmoid(s[0]);
  MLOperand c = b.add(s[1], a);  // also a graph output, read by mul below
  MLOperand d = b.mul(s[2], c);
  MLOperand e = b.concat({a, d, s[0]}, 1);
  std::vector<MLOperand> unused = b.split(e, 2, {.axis = 0});  // unused[1] has no reader
  MLOperand f = b.relu(unused[0]);
  const MLGraph graph = b.build({{"c", c}, {"f", f}, {"f2", f}});
  const Graph& g = graph.graph();
  const MemoryPlan plan = checked_plan(g);
  // relu, 3 split outputs, a, d, e, 2 split outputs (c and f are graph outputs).
  EXPECT_EQ(check_plan(g, plan, 64), 9u);
  // The three outputs of the first split are planned apart from each other.
  std::vector<uint64_t> split_offsets;
  for (const Operation& op : g.operations)
    if (op.type == OpType::kSplit && split_offsets.empty())
      for (OperandId o : op.outputs) split_offsets.push_back(plan.offsets[o.value]);
  ASSERT_EQ(split_offsets.size(), 3u);
  std::sort(split_offsets.begin(), split_offsets.end());
  EXPECT_LT(split_offsets[0], split_offsets[1]);
  EXPECT_LT(split_offsets[1], split_offsets[2]);
}

// A reshape (or identity) of an intermediate into an intermediate is a view: it shares the bytes
// of what it reshapes, whose buffer then lives until the view's last reader, and runs nothing;
// reshapes of a graph input or into a graph output stay copies. The reference backend's results
// are those of the graph without views.
TEST(MemoryPlan, ReshapesOfIntermediatesAreViews) {
  MLContext context = ref_context();
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kFloat32, {4, 6}});
  MLOperand from_input = b.reshape(x, {24});       // a copy: x is bound per dispatch
  MLOperand a = b.relu(x);                         // [4, 6]
  MLOperand v1 = b.reshape(a, {2, 12});            // a view of a
  MLOperand v2 = b.identity(b.reshape(v1, {24}));  // views of a, through a chain
  MLOperand c = b.sigmoid(from_input);             // written while a is alive
  MLOperand d = b.add(v2, c);                      // a's bytes read here
  MLOperand out = b.reshape(b.mul(d, d), {6, 4});  // a copy into the graph output
  const MLGraph graph = b.build({{"y", out}, {"z", b.add(v1, b.reshape(d, {2, 12}))}});
  const Graph& g = graph.graph();
  const MemoryPlan plan = checked_plan(g);
  size_t views = 0;
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const Operation& op = g.operations[k];
    if (op.type != OpType::kReshape && op.type != OpType::kIdentity) continue;
    const bool from_intermediate =
        g.operands[op.inputs[0].value].kind == OperandKind::kOperationResult;
    bool to_output = false;
    for (const auto& [name, id] : g.outputs) to_output = to_output || id == op.outputs[0];
    EXPECT_EQ(plan.is_view[k], from_intermediate && !to_output) << "operation " << k;
    views += plan.is_view[k];
  }
  EXPECT_EQ(views, 4u);  // v1, reshape(v1), its identity, reshape(d)
  EXPECT_EQ(plan.storage[v2.id().value], plan.storage[a.id().value]);
  const std::vector<float> in = ramp(24);
  const auto got = run_graph(context, graph, {{"x", to_bytes(in)}});
  std::vector<float> y(24), z(24);
  for (size_t i = 0; i < 24; ++i) {
    const float ai = in[i] < 0 ? 0.0f : in[i];
    const float di = ai + 1.0f / (1.0f + std::exp(-in[i]));
    y[i] = di * di;
    z[i] = ai + di;
  }
  const std::vector<float> got_y = as<float>(got.at("y")), got_z = as<float>(got.at("z"));
  for (size_t i = 0; i < 24; ++i) {
    EXPECT_NEAR(got_y[i], y[i], 1e-5f) << i;
    EXPECT_NEAR(got_z[i], z[i], 1e-5f) << i;
  }
}

// An operation's outputs never share bytes with its inputs, even when the input dies there.
TEST(MemoryPlan, OutputsNeverShareWithInputs) {
  MLContext context = ref_context();
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {kFloat32, {256}});
  MLOperand a = b.relu(x), c = b.sigmoid(a), d = b.relu(c);
  const MLGraph graph = b.build({{"y", b.sigmoid(d)}});
  const Graph& g = graph.graph();
  const MemoryPlan plan = checked_plan(g);
  for (const Operation& op : g.operations) {
    for (OperandId in : op.inputs) {
      for (OperandId out : op.outputs) {
        if (plan.offsets[in.value] != MemoryPlan::kNotPlanned &&
            plan.offsets[out.value] != MemoryPlan::kNotPlanned) {
          EXPECT_NE(plan.offsets[in.value], plan.offsets[out.value]);
        }
      }
    }
  }
}

// A residual conv net: conv2d (with bias) + relu blocks, a skip connection read several operations
// later, pooling, resampling, split and concat.
MLNamedOperands conv_net(MLGraphBuilder& b, std::vector<MLOperand>* intermediates) {
  auto keep = [&](MLOperand o) {
    if (intermediates) intermediates->push_back(o);
    return o;
  };
  unsigned seed = 1;
  auto conv = [&](MLOperand x, uint32_t in, uint32_t out) {
    MLOperand y = keep(b.conv2d(
        x, constant(b, {out, in, 3, 3}, seed++),
        {.padding = std::vector<uint32_t>{1, 1, 1, 1}, .bias = constant(b, {out}, seed++)}));
    return keep(b.relu(y));
  };
  MLOperand x = b.input("x", {kFloat32, {1, 3, 16, 16}});
  MLOperand skip = conv(x, 3, 8);
  MLOperand y = conv(skip, 8, 8);
  y = conv(y, 8, 8);
  y = keep(b.add(y, skip));
  y = keep(b.add(y, constant(b, {1, 8, 1, 1}, seed++)));
  y = keep(b.maxPool2d(y, {.windowDimensions = std::vector<uint32_t>{2, 2},
                           .strides = std::vector<uint32_t>{2, 2}}));
  std::vector<MLOperand> halves = b.split(y, 2, {.axis = 1});
  for (MLOperand h : halves) keep(h);
  MLOperand top = conv(halves[0], 4, 4);
  y = keep(b.concat({top, keep(b.sigmoid(halves[1]))}, 1));
  y = keep(b.resample2d(
      y, {.mode = MLInterpolationMode::kLinear, .sizes = std::vector<uint32_t>{16, 16}}));
  return {{"y", b.mul(y, skip)}};
}

// Bytes of output "y" of the conv net on `context`, with every intermediate also a graph output
// (nothing planned) or not.
std::vector<float> run_conv_net(MLContext& context, bool expose_intermediates,
                                const Graph** graph_out = nullptr,
                                std::shared_ptr<MLGraph>* keep_graph = nullptr) {
  MLGraphBuilder b(context);
  std::vector<MLOperand> inner;
  MLNamedOperands outputs = conv_net(b, &inner);
  if (expose_intermediates)
    for (size_t i = 0; i < inner.size(); ++i) outputs.emplace("t" + std::to_string(i), inner[i]);
  auto graph = std::make_shared<MLGraph>(b.build(outputs));
  if (graph_out) *graph_out = &graph->graph();
  if (keep_graph) *keep_graph = graph;
  const auto result = run_graph(context, *graph, {{"x", to_bytes(ramp(3 * 16 * 16))}});
  return as<float>(result.at("y"));
}

// The planned arena shares bytes, and the results are bit-identical to a run in which every
// intermediate has its own tensor.
TEST(MemoryPlan, ReferenceBackendSameResultsOnPlannedArena) {
  MLContext context = ref_context();
  const Graph* g = nullptr;
  std::shared_ptr<MLGraph> keep;
  const std::vector<float> planned = run_conv_net(context, false, &g, &keep);
  const MemoryPlan plan = checked_plan(*g);
  EXPECT_LT(plan.arena_bytes, plan.unplanned_bytes / 2);
  const std::vector<float> separate = run_conv_net(context, true);
  ASSERT_EQ(planned.size(), separate.size());
  EXPECT_EQ(to_bytes(planned), to_bytes(separate));
  // Running twice on the same plan gives the same again (no state left in the arena).
  const auto again = run_graph(context, *keep, {{"x", to_bytes(ramp(3 * 16 * 16))}});
  EXPECT_EQ(to_bytes(planned), again.at("y"));
}

// `g` with every relu whose input is a conv2d result read only by it fused into the conv2d as an
// activation (Operation::activations, run in place on the conv's output), as a fusing backend
// compiles it.
Graph fuse_relus(const Graph& g) {
  Graph f = g;
  std::vector<size_t> uses(f.operands.size(), 0);
  for (const Operation& op : f.operations)
    for (OperandId in : op.inputs)
      if (in.valid()) ++uses[in.value];
  for (const auto& [name, id] : f.outputs) ++uses[id.value];
  std::vector<OperandId> replaced(f.operands.size(), kNoOperand);
  for (Operation& op : f.operations) {
    for (OperandId& in : op.inputs)
      if (in.valid() && replaced[in.value].valid()) in = replaced[in.value];
    if (op.type != OpType::kRelu) continue;
    const OperandInfo& x = f.operand(op.inputs[0]);
    if (x.kind != OperandKind::kOperationResult || uses[op.inputs[0].value] != 1) continue;
    Operation& producer = f.operations[x.producer];
    if (producer.type != OpType::kConv2d) continue;
    producer.activations.push_back({op.type, op.attrs});
    replaced[op.outputs[0].value] = op.inputs[0];
  }
  for (auto& [name, id] : f.outputs)
    if (replaced[id.value].valid()) id = replaced[id.value];
  return f.pruned(true);  // drops the fused relus
}

// A backend on the reference kernels that compiles the graph with its relus fused (recorded for
// the test).
class FusingBackend final : public Backend {
 public:
  explicit FusingBackend(std::shared_ptr<const Graph>* seen)
      : d_(BackendDescriptor::with_all_ops("memory-plan-fusing")), seen_(seen) {}
  const BackendDescriptor& descriptor() const override { return d_; }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    *seen_ = std::make_shared<const Graph>(fuse_relus(*graph));
    return make_reference_plan(*seen_);
  }

 private:
  BackendDescriptor d_;
  std::shared_ptr<const Graph>* seen_;
};

// A fused activation runs within its producer on the producer's output: the plan of the fused
// graph holds the rules, and the results match the unfused reference run bit for bit.
TEST(MemoryPlan, FusedActivationsOnThePlannedArena) {
  std::shared_ptr<const Graph> fused;
  ScopedTestBackend scoped("memory-plan-fusing", [&fused](const MLContextOptions&) {
    return std::make_unique<FusingBackend>(&fused);
  });
  MLContext context = MLContext::create({.backend = "memory-plan-fusing"});
  const std::vector<float> y = run_conv_net(context, false);
  ASSERT_TRUE(fused);
  size_t with_activation = 0;
  for (const Operation& op : fused->operations) with_activation += !op.activations.empty();
  EXPECT_EQ(with_activation, 4u);
  const MemoryPlan plan = checked_plan(*fused);
  EXPECT_LT(plan.arena_bytes, plan.unplanned_bytes / 2);
  MLContext reference = ref_context();
  EXPECT_EQ(to_bytes(y), to_bytes(run_conv_net(reference, true)));
}

}  // namespace
}  // namespace cppnn
