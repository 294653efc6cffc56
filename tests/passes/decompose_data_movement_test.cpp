// The data_movement and gather_scatter decompositions (src/passes/decompose/data_movement.cpp,
// gather_scatter.cpp): each graph runs on the minimal backend, which has no native form of these
// ops (its compile() throws if one is left), and on the reference backend; the output bytes must
// be identical for every data type, option and index type (negative and out-of-range indices,
// duplicate scatter targets, NaN and -0 data).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;
using testing::as;
using testing::half_bits;
using testing::run_graph;
using testing::to_bytes;

using Bytes = std::vector<std::byte>;
using Outputs = std::map<std::string, Bytes>;

// One graph input: its descriptor and bytes.
struct Input {
  MLOperandDescriptor desc;
  Bytes bytes;
};

// Records the graph under test on the inputs (named in0, in1, ...) and names its outputs.
using BuildFn = std::function<MLNamedOperands(MLGraphBuilder&, const std::vector<MLOperand>&)>;

// Builds and runs the graph on `backend`.
Outputs run_on(const std::string& backend, const std::vector<Input>& inputs, const BuildFn& f) {
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder b(context);
  std::vector<MLOperand> operands;
  std::map<std::string, Bytes> bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    operands.push_back(b.input(name, inputs[i].desc));
    bytes.emplace(name, inputs[i].bytes);
  }
  MLGraph graph = b.build(f(b, operands));
  return run_graph(context, graph, bytes);
}

// The minimal backend (decomposed) gives exactly the reference backend's bytes; returns them.
Outputs expect_same(const std::vector<Input>& inputs, const BuildFn& f) {
  const Outputs reference = run_on("reference", inputs, f);
  const Outputs minimal = run_on("minimal", inputs, f);
  EXPECT_EQ(minimal, reference);
  return minimal;
}

// A one-output graph of one input.
Outputs expect_same_unary(const Input& in, std::function<MLOperand(MLGraphBuilder&, MLOperand)> f) {
  return expect_same({in}, [&](MLGraphBuilder& b, const std::vector<MLOperand>& x) {
    return MLNamedOperands{{"out", f(b, x[0])}};
  });
}

template <class T>
Input input(MLOperandDataType type, std::vector<uint32_t> shape, const std::vector<T>& values) {
  return {{type, std::move(shape)}, to_bytes(values)};
}

// 0, 1, ..., n-1 with NaN at 1 and -0 at 2 (float data that must move bit for bit).
std::vector<float> floats(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 1.5f - 3.0f;
  if (n > 2) {
    v[1] = std::numeric_limits<float>::quiet_NaN();
    v[2] = -0.0f;
  }
  return v;
}

template <class T>
std::vector<T> counting(size_t n, T first = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(first + static_cast<T>(i));
  return v;
}

TEST(DecomposeDataMovement, ExpandBroadcastsEveryType) {
  const Outputs out = expect_same_unary(input(kFloat32, {3, 1}, floats(3)), [](auto& b, auto x) {
    return b.expand(x, {2, 3, 4});
  });
  EXPECT_TRUE(std::isnan(as<float>(out.at("out"))[4]));
  EXPECT_TRUE(std::signbit(as<float>(out.at("out"))[8]));
  expect_same_unary(input(kInt64, {}, std::vector<int64_t>{-1234567890123}), [](auto& b, auto x) {
    return b.expand(x, {2, 2});
  });
  expect_same_unary(input(kUint8, {1, 2}, std::vector<uint8_t>{7, 255}), [](auto& b, auto x) {
    return b.expand(x, {3, 2});
  });
}

TEST(DecomposeDataMovement, PadConstantEdgeAndReflection) {
  const Input x = input(kFloat32, {2, 3}, floats(6));
  const Outputs out = expect_same_unary(x, [](auto& b, auto v) {
    return b.pad(v, {1, 2}, {2, 1}, {.value = -0.0});
  });
  EXPECT_EQ(as<float>(out.at("out")).size(), 30u);
  EXPECT_TRUE(std::signbit(as<float>(out.at("out"))[0]));
  expect_same_unary(x, [](auto& b, auto v) {
    return b.pad(v, {1, 2}, {2, 1}, {.mode = MLPaddingMode::kEdge});
  });
  expect_same_unary(input(kFloat32, {3, 4}, floats(12)), [](auto& b, auto v) {
    return b.pad(v, {2, 3}, {1, 2}, {.mode = MLPaddingMode::kReflection});
  });
  expect_same_unary(input(kFloat16, {2, 3}, half_bits({1, 2, 3, 4, 5, 6})), [](auto& b, auto v) {
    return b.pad(v, {0, 1}, {1, 0}, {.value = 0.1});
  });
  expect_same_unary(input(kInt32, {}, std::vector<int32_t>{5}),
                    [](auto& b, auto v) { return b.pad(v, {}, {}, {.value = 3}); });
}

TEST(DecomposeDataMovement, ReverseAxes) {
  const Input x = input(kInt32, {2, 3, 4}, counting<int32_t>(24, -5));
  expect_same_unary(x, [](auto& b, auto v) { return b.reverse(v); });
  expect_same_unary(x, [](auto& b, auto v) { return b.reverse(v, {.axes = {1}}); });
  expect_same_unary(x, [](auto& b, auto v) { return b.reverse(v, {.axes = {2, 0}}); });
  expect_same_unary(
      x, [](auto& b, auto v) { return b.reverse(v, {.axes = std::vector<uint32_t>{}}); });
  const Outputs out = expect_same_unary(input(kUint64, {3}, std::vector<uint64_t>{1, 2, ~0ull}),
                                        [](auto& b, auto v) { return b.reverse(v); });
  EXPECT_EQ(as<uint64_t>(out.at("out")), (std::vector<uint64_t>{~0ull, 2, 1}));
}

TEST(DecomposeDataMovement, SplitByCountAndSizes) {
  const Input x = input(kFloat32, {4, 6}, floats(24));
  expect_same({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    const std::vector<MLOperand> parts = b.split(in[0], 3u, {.axis = 1});
    return MLNamedOperands{{"a", parts[0]}, {"b", parts[1]}, {"c", parts[2]}};
  });
  const Outputs out = expect_same({x}, [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    const std::vector<MLOperand> parts = b.split(in[0], std::vector<uint32_t>{1, 3});
    return MLNamedOperands{{"a", parts[0]}, {"b", parts[1]}};
  });
  EXPECT_EQ(as<float>(out.at("b")).size(), 18u);
}

TEST(DecomposeDataMovement, TileRepeats) {
  expect_same_unary(input(kInt8, {2, 3}, std::vector<int8_t>{-128, -1, 0, 1, 2, 127}),
                    [](auto& b, auto v) {
                      return b.tile(v, {2, 3});
                    });
  const Outputs out = expect_same_unary(input(kFloat32, {3}, floats(3)),
                                        [](auto& b, auto v) { return b.tile(v, {2}); });
  EXPECT_TRUE(std::isnan(as<float>(out.at("out"))[4]));
}

TEST(DecomposeDataMovement, TriangularUpperLowerDiagonals) {
  const Input x = input(kFloat32, {2, 3, 4}, floats(24));
  expect_same_unary(x, [](auto& b, auto v) { return b.triangular(v); });
  expect_same_unary(
      x, [](auto& b, auto v) { return b.triangular(v, {.upper = false, .diagonal = -1}); });
  expect_same_unary(x, [](auto& b, auto v) { return b.triangular(v, {.diagonal = 2}); });
  const Outputs out = expect_same_unary(
      input(kFloat16, {3, 3}, half_bits({1, 2, 3, 4, 5, 6, 7, 8, 9})),
      [](auto& b, auto v) { return b.triangular(v, {.upper = false, .diagonal = 5}); });
  EXPECT_EQ(as<uint16_t>(out.at("out")), half_bits({1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// A graph of data, indices (and updates) inputs calling `op`.
Outputs expect_same_indexed(
    const std::vector<Input>& inputs,
    std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)> op) {
  return expect_same(inputs, [&](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return MLNamedOperands{{"out", op(b, in)}};
  });
}

TEST(DecomposeGatherScatter, GatherElementsResolvesIndices) {
  const Input data = input(kFloat32, {3, 4}, floats(12));
  const Input i64 = input(kInt64, {3, 2}, std::vector<int64_t>{0, -1, 3, 9, -9, 2});
  const Outputs out = expect_same_indexed({data, i64}, [](auto& b, const auto& in) {
    return b.gatherElements(in[0], in[1], {.axis = 1});
  });
  EXPECT_EQ(as<float>(out.at("out"))[3], 7.5f);  // index 9 clamps to 3: data[1][3]
  const Input u32 = input(kUint32, {2, 4}, std::vector<uint32_t>{0, 1, 2, 4000000000u, 2, 2, 0, 1});
  expect_same_indexed({data, u32},
                      [](auto& b, const auto& in) { return b.gatherElements(in[0], in[1]); });
  const Input ints = input(kInt32, {2, 2, 3}, counting<int32_t>(12, 100));
  const Input i32 = input(kInt32, {2, 1, 3}, std::vector<int32_t>{1, 0, -1, -2, 1, 0});
  expect_same_indexed({ints, i32}, [](auto& b, const auto& in) {
    return b.gatherElements(in[0], in[1], {.axis = 1});
  });
}

TEST(DecomposeGatherScatter, GatherNdTuplesAndSlices) {
  const Input data = input(kInt8, {2, 3, 2}, counting<int8_t>(12, -6));
  const Input pairs = input(kInt32, {2, 2}, std::vector<int32_t>{1, -1, 0, 7});
  expect_same_indexed({data, pairs},
                      [](auto& b, const auto& in) { return b.gatherND(in[0], in[1]); });
  const Input full = input(kInt64, {3}, std::vector<int64_t>{-1, 1, 1});
  const Outputs out = expect_same_indexed(
      {data, full}, [](auto& b, const auto& in) { return b.gatherND(in[0], in[1]); });
  EXPECT_EQ(as<int8_t>(out.at("out")), std::vector<int8_t>{3});
  const Input wide = input(kUint64, {4, 2}, std::vector<uint64_t>{1, 2, 3, 4, 5, 6, ~0ull, 8});
  const Input rows = input(kUint32, {2, 1, 1}, std::vector<uint32_t>{3, 0});
  expect_same_indexed({wide, rows},
                      [](auto& b, const auto& in) { return b.gatherND(in[0], in[1]); });
}

TEST(DecomposeGatherScatter, ScatterElementsLastDuplicateWins) {
  const Input data = input(kFloat16, {2, 4}, half_bits({1, 2, 3, 4, 5, 6, 7, 8}));
  const Input idx = input(kInt32, {2, 3}, std::vector<int32_t>{1, -3, 3, 0, 9, -1});
  const Input upd = input(kFloat16, {2, 3}, half_bits({10, 20, 30, 40, 50, 60}));
  const Outputs out = expect_same_indexed({data, idx, upd}, [](auto& b, const auto& in) {
    return b.scatterElements(in[0], in[1], in[2], {.axis = 1});
  });
  EXPECT_EQ(as<uint16_t>(out.at("out")), half_bits({1, 20, 3, 30, 40, 6, 7, 60}));
  const Input d2 = input(kInt32, {3, 2}, counting<int32_t>(6));
  const Input i2 = input(kInt64, {2, 2}, std::vector<int64_t>{2, 0, -1, 1});
  const Input u2 = input(kInt32, {2, 2}, std::vector<int32_t>{-7, -8, -9, -10});
  expect_same_indexed(
      {d2, i2, u2}, [](auto& b, const auto& in) { return b.scatterElements(in[0], in[1], in[2]); });
  const Input d3 = input(kUint8, {2, 4, 3}, counting<uint8_t>(24));
  const Input i3 =
      input(kUint32, {2, 2, 3}, std::vector<uint32_t>{3, 0, 1, 3, 2, 9, 0, 0, 1, 1, 0, 1});
  const Input u3 = input(kUint8, {2, 2, 3}, counting<uint8_t>(12, 200));
  expect_same_indexed({d3, i3, u3}, [](auto& b, const auto& in) {
    return b.scatterElements(in[0], in[1], in[2], {.axis = 1});
  });
}

TEST(DecomposeGatherScatter, ScatterNdRowsAndElements) {
  const Input data = input(kFloat32, {4, 3}, floats(12));
  const Input idx = input(kUint32, {3, 1}, std::vector<uint32_t>{2, 0, 2});
  const Input upd = input(kFloat32, {3, 3}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, -0.0f});
  const Outputs out = expect_same_indexed(
      {data, idx, upd}, [](auto& b, const auto& in) { return b.scatterND(in[0], in[1], in[2]); });
  EXPECT_EQ(as<float>(out.at("out"))[6], 7.0f);  // the second update of row 2 wins
  const Input point = input(kInt64, {2}, std::vector<int64_t>{-1, 5});
  const Input one = input(kFloat32, {}, std::vector<float>{42});
  expect_same_indexed({data, point, one},
                      [](auto& b, const auto& in) { return b.scatterND(in[0], in[1], in[2]); });
  const Input i64data = input(kInt64, {2, 2, 2}, counting<int64_t>(8, 1ll << 40));
  const Input pts = input(kInt32, {2, 2}, std::vector<int32_t>{1, 0, 0, 1});
  const Input rows = input(kInt64, {2, 2}, std::vector<int64_t>{-1, -2, -3, -4});
  expect_same_indexed({i64data, pts, rows},
                      [](auto& b, const auto& in) { return b.scatterND(in[0], in[1], in[2]); });
}

}  // namespace
}  // namespace cppnn
