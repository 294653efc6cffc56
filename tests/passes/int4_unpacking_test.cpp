// The int4/uint4 unpacking pass (src/passes/int4_unpacking.h): on the minimal backend (no native
// int4/uint4) packed constants become int8/uint8 constants once at build, dequantizeLinear and
// quantizeLinear run on the wider types and give the reference backend's values; a packed graph
// input is left (no native form: NotSupportedError); a backend with native int4 keeps the graph.
#include "src/passes/int4_unpacking.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cppnn/int4.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "src/backends/reference/reference_backend.h"
#include "src/passes/pipeline.h"
#include "tests/backends/run_util.h"

namespace cppnn::passes {
namespace {

using enum MLOperandDataType;
using testing::as;
using testing::to_bytes;

// The minimal backend of a fresh context.
struct Minimal {
  MLContext context = MLContext::create({.backend = "minimal"});
  Backend& backend() { return *context.state()->backend; }
};

// Runs a compiled graph model; inputs and outputs in graph order.
std::vector<std::vector<std::byte>> execute(CompiledGraph& plan, const Graph& g,
                                            const std::vector<std::vector<std::byte>>& inputs) {
  std::vector<const std::byte*> in;
  for (const auto& bytes : inputs) in.push_back(bytes.data());
  std::vector<std::vector<std::byte>> outs;
  for (const auto& [name, id] : g.outputs) outs.emplace_back(byte_length(g.descriptor(id)));
  std::vector<std::byte*> out;
  for (auto& bytes : outs) out.push_back(bytes.data());
  plan.execute(in, out);
  return outs;
}

// `g` on the reference kernels as it is.
std::vector<std::vector<std::byte>> run_reference(const Graph& g,
                                                  const std::vector<std::vector<std::byte>>& in) {
  auto plan = make_reference_plan(std::make_shared<const Graph>(g));
  return execute(*plan, g, in);
}

// `g` through the minimal backend's pipeline and compile() (which rejects any op without a
// native form).
std::vector<std::vector<std::byte>> run_minimal(const Graph& g,
                                                const std::vector<std::vector<std::byte>>& in) {
  Minimal m;
  auto prepared = prepare_graph(m.backend().descriptor(), std::make_shared<const Graph>(g));
  for (const OperandInfo& info : prepared->operands) {
    EXPECT_NE(info.descriptor.dataType, kInt4);
    EXPECT_NE(info.descriptor.dataType, kUint4);
  }
  auto plan = m.backend().compile(prepared);
  return execute(*plan, *prepared, in);
}

MLOperand int4_constant(MLGraphBuilder& b, MLOperandDataType type,
                        const std::vector<uint32_t>& shape, const std::vector<int> values) {
  std::vector<std::byte> packed;
  if (type == kInt4) {
    packed = pack_int4(std::vector<int8_t>(values.begin(), values.end()));
  } else {
    packed = pack_uint4(std::vector<uint8_t>(values.begin(), values.end()));
  }
  return b.constant({type, shape}, packed);
}

MLOperand floats(MLGraphBuilder& b, const std::vector<uint32_t>& shape,
                 const std::vector<float>& v) {
  return b.constant({kFloat32, shape}, to_bytes(v));
}

TEST(Int4Unpacking, DequantizeOfAnInt4ConstantOnMinimalEqualsTheReference) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = int4_constant(b, kInt4, {2, 4}, {-8, -3, 0, 7, 1, 2, -1, 5});
  MLOperand scale = floats(b, {2, 1}, {0.5f, -1.25f});
  MLOperand zp = int4_constant(b, kInt4, {2, 1}, {-2, 3});
  MLOperand y = b.dequantizeLinear(x, scale, zp);
  MLOperand in = b.input("in", {kFloat32, {2, 4}});
  const Graph g = b.pruned_graph({{"y", y}, {"z", b.add(in, y)}});
  const auto input = to_bytes(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  const auto want = run_reference(g, {input});
  EXPECT_EQ(as<float>(want[0]), (std::vector<float>{-3, -0.5f, 1, 4.5f, 2.5f, 1.25f, 5, -2.5f}));
  EXPECT_EQ(run_minimal(g, {input}), want);
}

TEST(Int4Unpacking, Uint4WithAnOddCountAndFloat16Scale) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = int4_constant(b, kUint4, {5}, {0, 15, 7, 8, 3});
  const std::vector<uint16_t> s = testing::half_bits({0.25f});
  MLOperand scale = b.constant({kFloat16, {1}}, to_bytes(s));
  MLOperand zp = int4_constant(b, kUint4, {1}, {8});
  const Graph g = b.pruned_graph({{"y", b.dequantizeLinear(x, scale, zp)}});
  const auto want = run_reference(g, {});
  EXPECT_EQ(run_minimal(g, {}), want);
}

TEST(Int4Unpacking, ConstantsBecomeInt8AndTheOpReadsThem) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = int4_constant(b, kInt4, {3}, {-8, 7, -1});
  MLOperand zp = int4_constant(b, kInt4, {}, {1});
  const Graph g = b.pruned_graph({{"y", b.dequantizeLinear(x, floats(b, {}, {2.0f}), zp)}});
  Minimal m;
  bool changed = false;
  const Graph out = unpack_int4(g, m.backend().descriptor(), &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(out.operations.size(), 1u);
  const Operation& op = out.operations[0];
  EXPECT_EQ(op.type, OpType::kDequantizeLinear);
  EXPECT_EQ(out.descriptor(op.inputs[0]), (MLOperandDescriptor{kInt8, {3}}));
  EXPECT_EQ(out.descriptor(op.inputs[2]), (MLOperandDescriptor{kInt8, {}}));
  const ConstantData& data = out.constant(op.inputs[0]);
  const auto* v = reinterpret_cast<const int8_t*>(data.data());
  EXPECT_EQ(std::vector<int8_t>(v, v + 3), (std::vector<int8_t>{-8, 7, -1}));
}

TEST(Int4Unpacking, QuantizeToInt4ThenDequantizeSaturatesToFourBits) {
  for (MLOperandDataType type : {kInt4, kUint4}) {
    MLGraphBuilder b(testing::ref_context());
    MLOperand in = b.input("in", {kFloat32, {6}});
    MLOperand scale = floats(b, {}, {0.5f});
    MLOperand zp = int4_constant(b, type, {}, {type == kInt4 ? -1 : 3});
    MLOperand q = b.quantizeLinear(in, scale, zp);
    const Graph g = b.pruned_graph({{"y", b.dequantizeLinear(q, scale, zp)}});
    const auto input = to_bytes(std::vector<float>{-100.0f, -1.3f, 0.2f, 1.75f, 3.0f, 100.0f});
    const auto want = run_reference(g, {input});
    EXPECT_EQ(run_minimal(g, {input}), want) << data_type_name(type);
  }
}

TEST(Int4Unpacking, APackedGraphInputIsLeftAndHasNoNativeForm) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = b.input("x", {kInt4, {4}});
  MLOperand zp = int4_constant(b, kInt4, {1}, {0});
  const Graph g = b.pruned_graph({{"y", b.dequantizeLinear(x, floats(b, {1}, {1.0f}), zp)}});
  Minimal m;
  bool changed = true;
  const Graph out = unpack_int4(g, m.backend().descriptor(), &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(out.content_hash(), g.content_hash());
  EXPECT_THROW(prepare_graph(m.backend().descriptor(), std::make_shared<const Graph>(g)),
               NotSupportedError);
}

TEST(Int4Unpacking, ABackendWithNativeInt4KeepsTheGraph) {
  MLGraphBuilder b(testing::ref_context());
  MLOperand x = int4_constant(b, kInt4, {2}, {1, 2});
  MLOperand zp = int4_constant(b, kInt4, {1}, {0});
  const Graph g = b.pruned_graph({{"y", b.dequantizeLinear(x, floats(b, {1}, {1.0f}), zp)}});
  bool changed = true;
  const Graph out = unpack_int4(g, BackendDescriptor::with_all_ops("all"), &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(out.content_hash(), g.content_hash());
}

}  // namespace
}  // namespace cppnn::passes
