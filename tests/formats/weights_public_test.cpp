// The public external-weights API (include/cppnn/weights.h): opening, loading, constants through
// the builder without a copy, writing archives and saving a Graph's constants.
#include <gtest/gtest.h>

#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::TempDir;
using T = MLOperandDataType;

const MLOperandDescriptor kW{T::kFloat32, {2}};

TEST(WeightsPublicApi, OpensLoadsAndWrites) {
  TempDir dir;
  auto bytes = testing::le_bytes<float>({0.5f, -0.5f});
  std::vector<NamedWeight> w = {{"layer.weight", kW, bytes}};
  cppnn::write_safetensors(dir / "m.safetensors", w);
  ExternalWeights ew = ExternalWeights::open(dir / "m.safetensors");
  EXPECT_EQ(ew.names(), std::vector<std::string>{"layer.weight"});
  ConstantData c = ew.load("layer_weight", kW);
  EXPECT_EQ(std::memcmp(c.data(), bytes.data(), 8), 0);
  EXPECT_THROW(ew.load("layer_weight", {T::kFloat32, {3}}), DataError);
  EXPECT_THROW(ExternalWeights::open(dir / "none.safetensors"), DataError);
  EXPECT_THROW(ExternalWeights::for_graph(dir / "other.webnn"), DataError);
  EXPECT_EQ(ExternalWeights::for_graph(dir / "model.webnn", std::filesystem::path("m.safetensors"))
                .path(),
            dir / "m.safetensors");
  std::vector<NamedWeight> bad = {{"x", kW, std::span(bytes).first(4)}};
  EXPECT_THROW(cppnn::write_safetensors(dir / "bad.safetensors", bad), DataError);
}

// Weights become builder constants without a copy, run on the reference backend, and a built
// graph's constants save to an archive that reads back bit-exactly (4-bit included).
TEST(WeightsPublicApi, ConstantsAreViewsAndGraphWeightsRoundTrip) {
  TempDir dir;
  auto w = testing::le_bytes<float>({1.5f, -2.0f, 0.25f, 4.0f});
  const std::vector<std::byte> q = {std::byte{0x21}, std::byte{0x03}};  // uint4 1, 2, 3
  std::vector<NamedWeight> weights = {{"w", {T::kFloat32, {2, 2}}, w}, {"q", {T::kUint4, {3}}, q}};
  cppnn::write_safetensors(dir / "m.safetensors", weights);
  ExternalWeights ew = ExternalWeights::open(dir / "m.safetensors");

  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {T::kFloat32, {1, 2}});
  MLOperand wc = ew.constant(builder, "w", {T::kFloat32, {2, 2}});
  MLOperand qc = ew.constant(builder, "q", {T::kUint4, {3}});
  MLOperand y = builder.matmul(x, wc);
  const auto ones3 = testing::le_bytes<float>({1.0f, 1.0f, 1.0f});
  const std::vector<std::byte> zeros = {std::byte{0}, std::byte{0}};
  MLOperand dq = builder.dequantizeLinear(qc, builder.constant({T::kFloat32, {3}}, ones3),
                                          builder.constant({T::kUint4, {3}}, zeros));
  MLGraph graph = builder.build({{"y", y}, {"dq", dq}});

  // The graph's constant bytes are the mapped archive's bytes (no copy).
  const Graph& g = graph.graph();
  std::vector<std::pair<OperandId, std::string>> names;
  for (uint32_t i = 0; i < g.operands.size(); ++i) {
    const OperandInfo& info = g.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const ConstantData& c = g.constants[info.producer];
    if (info.descriptor == MLOperandDescriptor{T::kFloat32, {2, 2}}) {
      EXPECT_EQ(c.data(), ew.load("w", {T::kFloat32, {2, 2}}).data());
      names.push_back({OperandId{i}, "layer.w"});
    } else if (c.data() == ew.load("q", {T::kUint4, {3}}).data()) {
      names.push_back({OperandId{i}, "q"});
    }
  }
  ASSERT_EQ(names.size(), 2u);

  MLTensor xt = context.createTensor({.dataType = T::kFloat32, .shape = {1, 2}, .writable = true});
  MLTensor yt = context.createTensor({.dataType = T::kFloat32, .shape = {1, 2}, .readable = true});
  MLTensor dqt = context.createTensor({.dataType = T::kFloat32, .shape = {3}, .readable = true});
  const std::vector<float> ones = {1.0f, 1.0f};
  context.writeTensor(xt, std::as_bytes(std::span(ones)));
  context.dispatch(graph, {{"x", xt}}, {{"y", yt}, {"dq", dqt}});
  EXPECT_EQ(context.readTensor<float>(yt), (std::vector<float>{1.75f, 2.0f}));
  EXPECT_EQ(context.readTensor<float>(dqt), (std::vector<float>{1.0f, 2.0f, 3.0f}));

  cppnn::save_graph_weights(g, names, dir / "saved.safetensors");
  ExternalWeights saved = ExternalWeights::open(dir / "saved.safetensors");
  EXPECT_EQ(saved.names(), (std::vector<std::string>{"layer.w", "q"}));
  ConstantData sw = saved.load("layer_w", {T::kFloat32, {2, 2}});
  ConstantData sq = saved.load("q", {T::kUint4, {3}});
  EXPECT_EQ(std::memcmp(sw.data(), w.data(), w.size()), 0);
  EXPECT_EQ(std::memcmp(sq.data(), q.data(), q.size()), 0);
  // Not a constant of the graph.
  std::vector<std::pair<OperandId, std::string>> input = {{g.inputs[0], "x"}};
  EXPECT_THROW(cppnn::save_graph_weights(g, input, dir / "bad.safetensors"), TypeError);
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.safetensors"));
}

}  // namespace
}  // namespace cppnn::formats
