// The ONNX Runtime backend (src/backends/ort): selection, bindings reused and replaced across
// dispatches, outputs that alias inputs or each other, large constants, thread options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "src/export/onnx/convert.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::to_bytes;

bool have_ort() {
  const auto names = compiled_backends();
  return std::find(names.begin(), names.end(), "ort") != names.end();
}

class OrtBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_ort()) GTEST_SKIP() << "built without ONNX Runtime";
    context_ = MLContext::create({.backend = "ort", .numThreads = 1});
  }
  MLContext context_ = testing::ref_context();  // replaced by an ORT context in SetUp
};

TEST_F(OrtBackend, IsTheDefaultBackendWhenBuiltIn) {
  const char* env = std::getenv("CPPNN_BACKEND");
  if (env && *env) GTEST_SKIP() << "CPPNN_BACKEND is set";
  EXPECT_EQ(MLContext::create({}).backend(), "ort");
  EXPECT_EQ(context_.backend(), "ort");
}

TEST_F(OrtBackend, RebindsOtherTensorsBetweenDispatches) {
  MLGraphBuilder b(context_);
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {4}};
  MLOperand x = b.input("x", d), y = b.input("y", d);
  MLGraph g = b.build({{"s", b.add(x, y)}});
  auto tensor = [&](std::vector<float> v) {
    MLTensor t = context_.createTensor(MLTensorDescriptor::of(d, true, true));
    context_.writeTensor(t, to_bytes(v));
    return t;
  };
  MLTensor a = tensor({1, 2, 3, 4}), c = tensor({10, 20, 30, 40}), e = tensor({0, 0, 0, 0});
  MLTensor out1 = tensor({0, 0, 0, 0}), out2 = tensor({0, 0, 0, 0});
  context_.dispatch(g, {{"x", a}, {"y", c}}, {{"s", out1}});
  EXPECT_EQ(as<float>(context_.readTensor(out1)), (std::vector<float>{11, 22, 33, 44}));
  // Other tensors for the same names, and new data in a tensor bound before.
  context_.writeTensor(a, to_bytes(std::vector<float>{5, 5, 5, 5}));
  context_.dispatch(g, {{"x", e}, {"y", a}}, {{"s", out2}});
  EXPECT_EQ(as<float>(context_.readTensor(out2)), (std::vector<float>{5, 5, 5, 5}));
  context_.dispatch(g, {{"x", a}, {"y", c}}, {{"s", out1}});
  EXPECT_EQ(as<float>(context_.readTensor(out1)), (std::vector<float>{15, 25, 35, 45}));
  // An output tensor reused as an input of the next dispatch.
  context_.dispatch(g, {{"x", out1}, {"y", c}}, {{"s", out2}});
  EXPECT_EQ(as<float>(context_.readTensor(out2)), (std::vector<float>{25, 45, 65, 85}));
}

TEST_F(OrtBackend, AnOperandNamedByTwoOutputsFillsBoth) {
  MLGraphBuilder b(context_);
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {3}};
  MLOperand r = b.relu(b.input("x", d));
  MLGraph g = b.build({{"a", r}, {"b", r}, {"c", b.add(r, r)}});
  auto out = testing::run_graph(context_, g, {{"x", to_bytes(std::vector<float>{-1, 0, 7})}});
  EXPECT_EQ(as<float>(out["a"]), (std::vector<float>{0, 0, 7}));
  EXPECT_EQ(as<float>(out["b"]), (std::vector<float>{0, 0, 7}));
  EXPECT_EQ(as<float>(out["c"]), (std::vector<float>{0, 0, 14}));
}

TEST_F(OrtBackend, LargeConstantsMatchTheReferenceBackend) {
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {64, 64}};
  std::vector<float> w(64 * 64), x(64 * 64);
  std::iota(w.begin(), w.end(), -2000.0f);
  std::iota(x.begin(), x.end(), 0.5f);
  auto build = [&](MLContext& c) {
    MLGraphBuilder b(c);
    return b.build({{"y", b.add(b.input("x", d), b.constant(d, to_bytes(w)))}});
  };
  MLContext ref = testing::ref_context();
  MLGraph gr = build(ref), go = build(context_);
  auto expected = testing::run_graph(ref, gr, {{"x", to_bytes(x)}});
  auto got = testing::run_graph(context_, go, {{"x", to_bytes(x)}});
  EXPECT_EQ(got["y"], expected["y"]);
}

// A gather with large constant int32 indices: the lowering casts them to an int64 initializer and
// the original one, now unused, is dropped with its external data (ONNX Runtime would reject
// external data for an initializer it removed).
TEST_F(OrtBackend, LargeConstantGatherIndicesAreConverted) {
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {16, 3}};
  std::vector<float> x(16 * 3);
  std::iota(x.begin(), x.end(), 0.25f);
  std::vector<int32_t> idx(300);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>((i * 7) % 16);
  auto build = [&](MLContext& c) {
    MLGraphBuilder b(c);
    MLOperand i = b.constant({MLOperandDataType::kInt32, {300}}, to_bytes(idx));
    return b.build({{"y", b.gather(b.input("x", d), i)}});
  };
  MLContext ref = testing::ref_context();
  MLGraph gr = build(ref), go = build(context_);
  auto expected = testing::run_graph(ref, gr, {{"x", to_bytes(x)}});
  auto got = testing::run_graph(context_, go, {{"x", to_bytes(x)}});
  EXPECT_EQ(got["y"], expected["y"]);
}

// lstm/lstmCell with peepholes: the output gate reads the previous cell state (WebNN), not the
// new one (ONNX's LSTM node); with a nonzero initial cell state the two differ by ~1e-2.
TEST_F(OrtBackend, LstmPeepholesReadThePreviousCellState) {
  const auto f32 = MLOperandDataType::kFloat32;
  const uint32_t T = 3, B = 2, I = 3, H = 4;
  auto values = [](size_t n, float scale, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.7f * static_cast<float>(i) + seed);
    return to_bytes(v);
  };
  for (MLRecurrentNetworkDirection dir :
       {MLRecurrentNetworkDirection::kForward, MLRecurrentNetworkDirection::kBoth}) {
    const uint32_t D = dir == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
    auto build = [&](MLContext& c) {
      MLGraphBuilder b(c);
      MLLstmOptions o;
      o.peepholeWeight = b.constant({f32, {D, 3 * H}}, values(D * 3 * H, 0.8f, 4));
      o.initialCellState = b.constant({f32, {D, B, H}}, values(D * B * H, 1.0f, 5));
      o.bias = b.constant({f32, {D, 4 * H}}, values(D * 4 * H, 0.3f, 6));
      o.returnSequence = true;
      o.direction = dir;
      auto outs = b.lstm(b.input("x", {f32, {T, B, I}}),
                         b.constant({f32, {D, 4 * H, I}}, values(D * 4 * H * I, 0.5f, 2)),
                         b.constant({f32, {D, 4 * H, H}}, values(D * 4 * H * H, 0.5f, 3)), T, H, o);
      MLLstmCellOptions co;
      co.peepholeWeight = b.constant({f32, {3 * H}}, values(3 * H, 0.8f, 7));
      auto cell = b.lstmCell(b.input("xc", {f32, {B, I}}),
                             b.constant({f32, {4 * H, I}}, values(4 * H * I, 0.5f, 8)),
                             b.constant({f32, {4 * H, H}}, values(4 * H * H, 0.5f, 9)),
                             b.constant({f32, {B, H}}, values(B * H, 0.5f, 10)),
                             b.constant({f32, {B, H}}, values(B * H, 1.0f, 11)), H, co);
      return b.build(
          {{"h", outs[0]}, {"c", outs[1]}, {"y", outs[2]}, {"ch", cell[0]}, {"cc", cell[1]}});
    };
    MLContext ref = testing::ref_context();
    MLGraph gr = build(ref), go = build(context_);
    const std::map<std::string, std::vector<std::byte>> inputs{{"x", values(T * B * I, 1.0f, 1)},
                                                               {"xc", values(B * I, 1.0f, 12)}};
    auto expected = testing::run_graph(ref, gr, inputs);
    auto got = testing::run_graph(context_, go, inputs);
    for (const auto& [name, bytes] : expected) {
      const auto want = as<float>(bytes), have = as<float>(got.at(name));
      ASSERT_EQ(want.size(), have.size()) << name;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(have[i], want[i], 1e-5) << name << "[" << i << "] direction " << D;
    }
  }
}

TEST_F(OrtBackend, ManyThreadsGiveTheSameResult) {
  MLContext threaded = MLContext::create({.backend = "ort", .numThreads = 2});
  MLGraphBuilder b(threaded);
  const MLOperandDescriptor d{MLOperandDataType::kFloat32, {1000}};
  MLGraph g = b.build({{"y", b.relu(b.input("x", d))}});
  std::vector<float> x(1000);
  std::iota(x.begin(), x.end(), -500.0f);
  auto out = testing::run_graph(threaded, g, {{"x", to_bytes(x)}});
  for (float& v : x) v = std::max(v, 0.0f);
  EXPECT_EQ(as<float>(out["y"]), x);
}

TEST(OnnxNodeNames, MapBackToTheWebnnOperation) {
  EXPECT_EQ(onnx_export::operation_of_node("conv2d#3"), 3);
  EXPECT_EQ(onnx_export::operation_of_node("gru#12.4"), 12);
  EXPECT_EQ(onnx_export::operation_of_node("output:y"), -1);
  EXPECT_EQ(onnx_export::operation_of_node("relu#"), -1);
}

}  // namespace
}  // namespace cppnn
