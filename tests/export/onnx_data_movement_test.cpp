// The ONNX lowering of the data movement, gather/scatter and quantization families
// (src/export/onnx/lower_{data_movement,gather_scatter,quantization}.cpp): the emitted node types
// and attributes of the main cases, the ONNX checker on each, and, when the ONNX Runtime backend
// is compiled in, the results on ORT against the reference backend for the types and index
// ranges the corpus does not cover (out-of-range indices, integer types, blockwise scales).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "src/export/onnx/convert.h"
#include "tests/backends/run_util.h"
#include "tests/export/onnx_test_util.h"

namespace cppnn::testing {
namespace {

using DT = MLOperandDataType;
using Dims = std::vector<uint32_t>;
using I = std::vector<int64_t>;
using S = std::vector<std::string>;

// Builds one graph on a reference context and converts it.
class OnnxLowerDataMovement : public ::testing::Test {
 protected:
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder b{context};

  MLOperand x(DT type, Dims shape) { return b.input("x", {type, std::move(shape)}); }
  // Converts the graph of output `y` (and runs the ONNX checker on it).
  onnx::GraphProto convert(const MLOperand& y) {
    MLGraph graph = b.build({{"y", y}});
    EXPECT_NO_THROW(check_onnx(graph.graph()));
    return onnx_export::convert_graph(graph.graph(), {}).model.graph();
  }
};

using testing::attr;
using testing::has_attr;
using testing::ints;
using testing::op_types;

// The int64 values of initializer `name`.
I initializer_i64(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer()) {
    if (t.name() != name) continue;
    EXPECT_EQ(t.data_type(), onnx::TensorProto::INT64);
    I v(t.raw_data().size() / 8);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 8);
    return v;
  }
  ADD_FAILURE() << "no initializer " << name;
  return {};
}

TEST_F(OnnxLowerDataMovement, Float32OpsAreOneNodeEach) {
  auto in = x(DT::kFloat32, {2, 3, 4});
  auto c = b.concat({in, in}, 1);
  auto t = b.transpose(c, {.permutation = {{2, 0, 1}}});
  auto r = b.reshape(t, {4, 12});
  auto e = b.expand(b.reshape(r, {1, 48}), {2, 48});
  auto s = b.slice(e, {0, 3}, {2, 20}, {.strides = {{1, 2}}});
  auto p = b.pad(s, {1, 0}, {0, 2}, {.mode = MLPaddingMode::kReflection});
  auto tl = b.tile(p, {2, 1});
  auto g = convert(tl);
  EXPECT_EQ(op_types(g),
            (S{"Concat", "Transpose", "Reshape", "Reshape", "Expand", "Slice", "Pad", "Tile"}));
  EXPECT_EQ(attr(g.node(0), "axis").i(), 1);
  EXPECT_EQ(ints(attr(g.node(1), "perm")), (I{2, 0, 1}));
  // The slice keeps axis 0 (whole) out of the lists; ends are exclusive.
  const auto& slice = g.node(5);
  EXPECT_EQ(initializer_i64(g, slice.input(1)), (I{3}));
  EXPECT_EQ(initializer_i64(g, slice.input(2)), (I{23}));
  EXPECT_EQ(initializer_i64(g, slice.input(3)), (I{1}));
  EXPECT_EQ(initializer_i64(g, slice.input(4)), (I{2}));
  EXPECT_EQ(attr(g.node(6), "mode").s(), "reflect");
  EXPECT_EQ(initializer_i64(g, g.node(6).input(1)), (I{1, 0, 0, 2}));
}

TEST_F(OnnxLowerDataMovement, NoOpMovesBecomeIdentity) {
  auto in = x(DT::kFloat32, {2, 3});
  auto y = b.reverse(b.slice(b.pad(in, {0, 0}, {0, 0}), {0, 0}, {2, 3}),
                     {.axes = std::vector<uint32_t>{}});
  EXPECT_EQ(op_types(convert(y)), (S{"Identity", "Identity", "Identity"}));
}

TEST_F(OnnxLowerDataMovement, ReverseIsANegativeStepSlice) {
  auto y = b.reverse(x(DT::kInt32, {1, 3, 4}));  // all axes; the size-1 axis is skipped
  auto g = convert(y);
  ASSERT_EQ(op_types(g), (S{"Slice"}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(1)), (I{-1, -1}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(2)),
            (I{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(3)), (I{1, 2}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(4)), (I{-1, -1}));
}

TEST_F(OnnxLowerDataMovement, SplitAndTriangular) {
  auto parts = b.split(x(DT::kFloat32, {6, 4}), std::vector<uint32_t>{1, 5}, {.axis = 0});
  auto tri = b.triangular(parts[1], {.upper = false, .diagonal = -1});
  auto g = convert(tri);
  ASSERT_EQ(op_types(g), (S{"Split", "Trilu"}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(1)), (I{1, 5}));
  EXPECT_EQ(attr(g.node(1), "upper").i(), 0);
}

TEST_F(OnnxLowerDataMovement, Int32TriangularComputesInInt64) {
  auto g = convert(b.triangular(x(DT::kInt32, {3, 3})));
  ASSERT_EQ(op_types(g), (S{"Cast", "Trilu", "Cast"}));
  EXPECT_EQ(attr(g.node(0), "to").i(), onnx::TensorProto::INT64);
  EXPECT_EQ(attr(g.node(2), "to").i(), onnx::TensorProto::INT32);
}

TEST_F(OnnxLowerDataMovement, ConstantIndicesAreResolvedAtConversion) {
  // Index 7 on a dim of 3 clamps to 2; -7 clamps to -3 and wraps to 0; -1 wraps to 2.
  auto idx = b.constant({DT::kInt32, {4}}, to_bytes(std::vector<int32_t>{7, -7, -1, 1}));
  auto g = convert(b.gather(x(DT::kFloat32, {2, 3}), idx, {.axis = 1}));
  ASSERT_EQ(op_types(g), (S{"Gather"}));
  EXPECT_EQ(attr(g.node(0), "axis").i(), 1);
  EXPECT_EQ(initializer_i64(g, g.node(0).input(1)), (I{2, 0, 2, 1}));
}

TEST_F(OnnxLowerDataMovement, InputIndicesAreClamped) {
  auto data = x(DT::kFloat16, {4, 5});
  auto i32 = b.input("i", {DT::kInt32, {2}});
  auto nd = b.input("n", {DT::kUint32, {3, 2}});
  auto g = convert(b.gatherND(b.gather(data, i32), nd));
  EXPECT_EQ(op_types(g), (S{"Clip", "Gather", "Cast", "Min", "Max", "GatherND"}));
  EXPECT_EQ(attr(g.node(2), "to").i(), onnx::TensorProto::INT64);
  EXPECT_EQ(initializer_i64(g, g.node(3).input(1)), (I{1, 4}));    // d - 1 per column
  EXPECT_EQ(initializer_i64(g, g.node(4).input(1)), (I{-2, -5}));  // -d per column
}

TEST_F(OnnxLowerDataMovement, PerAxisQuantizationIsOneNode) {
  auto scale = b.constant({DT::kFloat32, {3, 1}}, to_bytes(std::vector<float>{0.5f, 1.f, 2.f}));
  auto zp = b.constant({DT::kUint8, {3, 1}}, to_bytes(std::vector<uint8_t>{1, 2, 3}));
  auto q = b.quantizeLinear(x(DT::kFloat32, {2, 3, 1}), scale, zp);
  auto y = b.dequantizeLinear(q, scale, zp);
  auto g = convert(y);
  // The [3, 1] constant scale and zeroPoint become 1-D initializers (no Reshape node).
  ASSERT_EQ(op_types(g), (S{"QuantizeLinear", "DequantizeLinear"}));
  EXPECT_EQ(attr(g.node(0), "axis").i(), 1);
  EXPECT_EQ(attr(g.node(1), "axis").i(), 1);
  for (const auto& t : g.initializer()) {
    if (t.name() == g.node(0).input(1)) {
      EXPECT_EQ(t.dims_size(), 1);
    }
  }
}

TEST_F(OnnxLowerDataMovement, PerTensorDequantizeHasNoAxis) {
  auto scale = b.constant({DT::kFloat32, {1}}, to_bytes(std::vector<float>{0.5f}));
  auto zp = b.constant({DT::kInt8, {1}}, to_bytes(std::vector<int8_t>{-3}));
  auto g = convert(b.dequantizeLinear(b.input("q", {DT::kInt8, {4, 2}}), scale, zp));
  ASSERT_EQ(op_types(g), (S{"DequantizeLinear"}));
  EXPECT_FALSE(has_attr(g.node(0), "axis"));
}

TEST_F(OnnxLowerDataMovement, BlockwiseDequantizeSplitsTheBlockedAxis) {
  // Input [4, 6] with scale [2, 6]: blocks of 2 rows. Computed as [2, 2, 6] * [2, 1, 6].
  auto scale = b.constant({DT::kFloat32, {2, 6}}, to_bytes(std::vector<float>(12, 0.25f)));
  auto zp = b.constant({DT::kUint4, {2, 6}}, std::vector<std::byte>(6, std::byte{0x21}));
  auto w = b.constant({DT::kUint4, {4, 6}}, std::vector<std::byte>(12, std::byte{0x93}));
  auto g = convert(b.dequantizeLinear(w, scale, zp));
  EXPECT_EQ(op_types(g),
            (S{"Reshape", "Reshape", "Reshape", "Cast", "Cast", "Sub", "Mul", "Reshape"}));
  EXPECT_EQ(initializer_i64(g, g.node(0).input(1)), (I{2, 2, 6}));
  EXPECT_EQ(initializer_i64(g, g.node(1).input(1)), (I{2, 1, 6}));
  EXPECT_EQ(initializer_i64(g, g.node(7).input(1)), (I{4, 6}));
}

// ---- ORT against the reference backend (skipped when ORT is not compiled in) ----

// Deterministic input bytes of `desc`; index inputs (name starting with "i") get values in
// −3d..3d so that many are out of range (d = `index_range`).
std::vector<std::byte> random_bytes(const MLOperandDescriptor& desc, std::mt19937& rng,
                                    int64_t index_range) {
  size_t count = 1;
  for (uint32_t d : desc.shape) count *= d;
  std::vector<std::byte> bytes(count * (data_type_bits(desc.dataType) / 8));
  std::uniform_real_distribution<double> real(-10, 10);
  std::uniform_int_distribution<int64_t> index(-3 * index_range, 3 * index_range);
  for (size_t i = 0; i < count; ++i) {
    auto put = [&](auto v) { std::memcpy(bytes.data() + i * sizeof(v), &v, sizeof(v)); };
    switch (desc.dataType) {
      case DT::kFloat32:
        put(static_cast<float>(real(rng)));
        break;
      case DT::kFloat16:
        put(float_to_half_bits(static_cast<float>(real(rng))));
        break;
      case DT::kInt8:
      case DT::kUint8:
        put(static_cast<uint8_t>(rng()));
        break;
      case DT::kInt32:
        put(index_range ? static_cast<int32_t>(index(rng)) : static_cast<int32_t>(rng()));
        break;
      case DT::kUint32:
        put(index_range ? static_cast<uint32_t>(std::abs(index(rng)))
                        : static_cast<uint32_t>(rng()));
        break;
      case DT::kInt64:
        put(index_range ? index(rng) : static_cast<int64_t>((uint64_t{rng()} << 32) | rng()));
        break;
      case DT::kUint64:
        put((uint64_t{rng()} << 32) | rng());
        break;
      default:
        ADD_FAILURE() << "no random data for this type";
    }
  }
  return bytes;
}

// The graph of one case: inputs by descriptor (the second one, when `index_range` > 0, is the
// indices), and the op applied to them.
struct Case {
  std::string name;
  std::vector<MLOperandDescriptor> inputs;
  std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)> op;
  int64_t index_range = 0;
};

// Runs `c` on the reference and ORT backends with the same random inputs and expects the same
// bytes (every op here is exact).
void expect_ort_matches_reference(const Case& c) {
  SCOPED_TRACE(c.name);
  std::optional<MLContext> ort;
  try {
    ort = MLContext::create({.backend = "ort"});
  } catch (const Error&) {
    GTEST_SKIP() << "the ONNX Runtime backend is not compiled in";
  }
  MLContext ref = MLContext::create({.backend = "reference"});
  std::mt19937 rng(7);
  std::map<std::string, std::vector<std::byte>> data;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    data["x" + std::to_string(i)] = random_bytes(c.inputs[i], rng, i == 1 ? c.index_range : 0);
  std::map<std::string, std::vector<std::byte>> results[2];
  for (int k = 0; k < 2; ++k) {
    MLContext& ctx = k == 0 ? ref : *ort;
    MLGraphBuilder builder(ctx);
    std::vector<MLOperand> in;
    for (size_t i = 0; i < c.inputs.size(); ++i)
      in.push_back(builder.input("x" + std::to_string(i), c.inputs[i]));
    MLGraph graph = builder.build({{"y", c.op(builder, in)}});
    if (k == 1) {
      EXPECT_NO_THROW(check_onnx(graph.graph()));
    }
    results[k] = run_graph(ctx, graph, data);
  }
  EXPECT_EQ(results[0].at("y"), results[1].at("y"));
}

using B = MLGraphBuilder;
using Ops = const std::vector<MLOperand>&;

TEST(OnnxLowerDataMovementOrt, IntegerTypesMoveExactly) {
  for (DT t :
       {DT::kInt8, DT::kUint8, DT::kInt32, DT::kUint32, DT::kInt64, DT::kUint64, DT::kFloat16}) {
    expect_ort_matches_reference({"triangular", {{t, {2, 3, 4}}}, [](B& b, Ops x) {
                                    return b.triangular(x[0], {.upper = false, .diagonal = 1});
                                  }});
    expect_ort_matches_reference(
        {"pad edge", {{t, {3, 4}}}, [](B& b, Ops x) {
           return b.pad(x[0], {1, 2}, {2, 0}, {.mode = MLPaddingMode::kEdge});
         }});
    expect_ort_matches_reference({"pad constant", {{t, {3, 4}}}, [](B& b, Ops x) {
                                    return b.pad(x[0], {1, 0}, {0, 3}, {.value = 3.75});
                                  }});
    expect_ort_matches_reference({"tile reverse", {{t, {2, 3}}}, [](B& b, Ops x) {
                                    return b.reverse(b.tile(x[0], {2, 3}), {.axes = {{1}}});
                                  }});
    expect_ort_matches_reference({"expand slice", {{t, {3, 1}}}, [](B& b, Ops x) {
                                    return b.slice(b.expand(x[0], {2, 3, 5}), {1, 0, 1}, {1, 3, 4},
                                                   {.strides = {{1, 2, 3}}});
                                  }});
  }
}

TEST(OnnxLowerDataMovementOrt, OutOfRangeIndicesAreClamped) {
  for (DT it : {DT::kInt32, DT::kUint32, DT::kInt64}) {
    for (DT t : {DT::kFloat32, DT::kInt8, DT::kUint64}) {
      expect_ort_matches_reference({"gather",
                                    {{t, {3, 4}}, {it, {2, 5}}},
                                    [](B& b, Ops x) { return b.gather(x[0], x[1], {.axis = 1}); },
                                    4});
      expect_ort_matches_reference(
          {"gatherElements",
           {{t, {3, 4}}, {it, {5, 4}}},
           [](B& b, Ops x) { return b.gatherElements(x[0], x[1], {.axis = 0}); },
           3});
      expect_ort_matches_reference({"gatherND",
                                    {{t, {3, 4, 2}}, {it, {5, 2}}},
                                    [](B& b, Ops x) { return b.gatherND(x[0], x[1]); },
                                    4});
      // Scatters with distinct in-range-after-clamping positions are deterministic anyway;
      // duplicates take the last update on both backends.
      expect_ort_matches_reference(
          {"scatterElements",
           {{t, {3, 4}}, {it, {2, 4}}, {t, {2, 4}}},
           [](B& b, Ops x) { return b.scatterElements(x[0], x[1], x[2], {.axis = 0}); },
           3});
      expect_ort_matches_reference({"scatterND",
                                    {{t, {3, 4}}, {it, {2, 1}}, {t, {2, 4}}},
                                    [](B& b, Ops x) { return b.scatterND(x[0], x[1], x[2]); },
                                    3});
    }
  }
}

TEST(OnnxLowerDataMovementOrt, QuantizationShapesAndTypes) {
  auto make_dq = [](DT q, DT s, Dims in, Dims scale) {
    return Case{"dequantizeLinear", {{q, in}, {s, scale}, {q, scale}}, [](B& b, Ops x) {
                  return b.dequantizeLinear(x[0], x[1], x[2]);
                }};
  };
  auto make_q = [](DT f, DT q, Dims in, Dims scale) {
    return Case{"quantizeLinear", {{f, in}, {f, scale}, {q, scale}}, [](B& b, Ops x) {
                  return b.quantizeLinear(x[0], x[1], x[2]);
                }};
  };
  for (DT s : {DT::kFloat32, DT::kFloat16}) {
    for (DT q : {DT::kInt8, DT::kUint8, DT::kInt32, DT::kUint32}) {
      expect_ort_matches_reference(make_dq(q, s, {4, 6}, {}));
      expect_ort_matches_reference(make_dq(q, s, {4, 6}, {6}));
      expect_ort_matches_reference(make_dq(q, s, {4, 6}, {2, 3}));
      expect_ort_matches_reference(make_dq(q, s, {4, 6}, {4, 6}));
      expect_ort_matches_reference(make_q(s, q, {4, 6}, {1}));
      expect_ort_matches_reference(make_q(s, q, {4, 6}, {4, 1}));
      expect_ort_matches_reference(make_q(s, q, {4, 6}, {2, 6}));
    }
  }
}

TEST(OnnxLowerDataMovementOrt, Int4QuantizeDequantizeRoundTrip) {
  // int4/uint4 cannot be graph inputs or outputs on ORT (opset 17 has no 4-bit type): the
  // quantized values stay inside the graph, with constant 4-bit zero points.
  for (DT q : {DT::kInt4, DT::kUint4}) {
    for (Dims scale : {Dims{}, Dims{4, 1}, Dims{2, 3}, Dims{1, 6}}) {
      expect_ort_matches_reference(
          {"int4 round trip",
           {{DT::kFloat32, {4, 6}}, {DT::kFloat32, scale}},
           [q, scale](B& b, Ops x) {
             uint32_t count = 1;
             for (uint32_t d : scale) count *= d;
             // Zero points 1, -2, 3, ... (int4) or 1, 14, 3, ... (uint4), packed two per byte.
             std::vector<std::byte> packed((count + 1) / 2);
             for (uint32_t i = 0; i < count; ++i) {
               const int v = i % 2 ? (q == DT::kInt4 ? -2 : 14) : 1 + int(i % 5);
               packed[i / 2] |= std::byte(static_cast<uint8_t>((v & 0xF) << (4 * (i % 2))));
             }
             auto zp = b.constant({q, scale}, packed);
             auto s = b.abs(x[1]);
             return b.dequantizeLinear(b.quantizeLinear(x[0], s, zp), s, zp);
           }});
    }
  }
}

}  // namespace
}  // namespace cppnn::testing
