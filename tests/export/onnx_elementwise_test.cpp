// The ONNX lowering shapes of the elementwise and activation families
// (src/export/onnx/lower_elementwise_{binary,unary}.cpp, lower_activations.cpp): graphs built
// through MLGraphBuilder, converted with convert_graph, and the emitted node types and attributes
// checked so that a regression (an extra Cast, a lost guard) is caught. Where ONNX Runtime is
// built in, the edge cases the lowerings exist for (integer division by 0 and INT_MIN / -1,
// saturating float -> integer casts, integer types ORT's kernels lack, NaN through sign, relu,
// max and clamp, float16 IsInf) also run on the ORT backend and must match the reference backend
// bit for bit. (ORT's sign, relu and where do not keep the sign of a zero: no -0 goes to them.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "src/export/onnx/convert.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::to_bytes;
using DT = MLOperandDataType;

// The ops of the model's nodes, in order.
std::vector<std::string> node_types(const onnx::ModelProto& model) {
  std::vector<std::string> types;
  for (const auto& n : model.graph().node()) types.push_back(n.op_type());
  return types;
}

// The attribute `name` of node `n`, or nullptr.
const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Builds the graph of `make`'s outputs on `context`.
template <class F>
MLGraph build(MLContext& context, F make) {
  MLGraphBuilder builder(context);
  MLNamedOperands outputs = make(builder);
  return builder.build(outputs);
}

// Builds the graph of `make`'s outputs, runs the ONNX checker on it and converts it.
template <class F>
onnx::ModelProto convert(F make) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraph graph = build(context, make);
  EXPECT_NO_THROW(check_onnx(graph.graph()));
  return onnx_export::convert_graph(graph.graph(), {}).model;
}

MLOperandDescriptor desc(DT type, std::vector<uint32_t> shape) {
  return {type, std::move(shape)};
}

TEST(OnnxLowerElementwise, Float32BinaryAndUnaryOpsAreOneNodeEach) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {2, 3}));
    auto y = b.input("y", desc(DT::kFloat32, {3}));
    return MLNamedOperands{{"sub", b.sub(x, y)}, {"div", b.div(x, y)}, {"max", b.max(x, y)},
                           {"pow", b.pow(x, y)}, {"exp", b.exp(x)},    {"round", b.roundEven(x)},
                           {"neg", b.neg(x)},    {"id", b.identity(x)}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"Sub", "Div", "Max", "Pow", "Exp", "Round",
                                                         "Neg", "Identity"}));
}

TEST(OnnxLowerElementwise, ComparisonsAndLogicalOpsProduceUint8) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    auto y = b.input("y", desc(DT::kFloat32, {4}));
    return MLNamedOperands{{"ne", b.notEqual(x, y)}};
  });
  ASSERT_EQ(node_types(model), (std::vector<std::string>{"Equal", "Not", "Cast"}));
  EXPECT_EQ(attr(model.graph().node(2), "to")->i(), onnx::TensorProto::UINT8);

  model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kUint8, {4}));
    auto y = b.input("y", desc(DT::kUint8, {4}));
    return MLNamedOperands{{"and", b.logicalAnd(x, y)}, {"not", b.logicalNot(x)}};
  });
  EXPECT_EQ(node_types(model),
            (std::vector<std::string>{"Cast", "Cast", "And", "Cast", "Equal", "Cast"}));
  EXPECT_EQ(attr(model.graph().node(0), "to")->i(), onnx::TensorProto::BOOL);
}

TEST(OnnxLowerElementwise, IntegerDivisionGuardsZeroAndMinusOne) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kInt32, {4}));
    auto y = b.input("y", desc(DT::kInt32, {4}));
    return MLNamedOperands{{"q", b.div(x, y)}};
  });
  const auto types = node_types(model);
  EXPECT_EQ(std::count(types.begin(), types.end(), "Div"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "Equal"), 2);  // y == 0, y == -1
  EXPECT_EQ(std::count(types.begin(), types.end(), "Where"), 3);
}

TEST(OnnxLowerElementwise, CastShapes) {
  // float -> float and integer -> anything: one Cast.
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    auto i = b.input("i", desc(DT::kInt64, {4}));
    return MLNamedOperands{{"h", b.cast(x, DT::kFloat16)}, {"u", b.cast(i, DT::kUint8)}};
  });
  ASSERT_EQ(node_types(model), (std::vector<std::string>{"Cast", "Cast"}));
  EXPECT_EQ(attr(model.graph().node(0), "to")->i(), onnx::TensorProto::FLOAT16);
  // float32 -> int8: NaN to 0, clip to [-128, 127], cast.
  model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    return MLNamedOperands{{"y", b.cast(x, DT::kInt8)}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"IsNaN", "Where", "Clip", "Cast"}));
  // float32 -> int32: INT32_MAX is no float32, so inputs >= 2^31 are fixed after the cast.
  model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    return MLNamedOperands{{"y", b.cast(x, DT::kInt32)}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"IsNaN", "Where", "Clip", "Cast",
                                                         "GreaterOrEqual", "Where"}));
}

TEST(OnnxLowerElementwise, ClampPassesInfiniteBoundsExplicitly) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    auto i = b.input("i", desc(DT::kInt32, {4}));
    return MLNamedOperands{{"relu6", b.clamp(x, {.minValue = 0.0, .maxValue = 6.0})},
                           {"low", b.clamp(x, {.maxValue = 1.0})},
                           {"int", b.clamp(i, {.minValue = -3})},
                           {"none", b.clamp(x)}};
  });
  ASSERT_EQ(node_types(model), (std::vector<std::string>{"Clip", "Clip", "Clip", "Identity"}));
  // ONNX Runtime's default lower bound is -FLT_MAX, which would clip -Inf: -Inf is explicit.
  ASSERT_EQ(model.graph().node(1).input_size(), 3);
  const std::string& lower = model.graph().node(1).input(1);
  bool found = false;
  for (const auto& t : model.graph().initializer()) {
    if (t.name() != lower) continue;
    found = true;
    float v = 0;
    ASSERT_EQ(t.raw_data().size(), sizeof v);
    std::memcpy(&v, t.raw_data().data(), sizeof v);
    EXPECT_EQ(v, -std::numeric_limits<float>::infinity());
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(model.graph().node(2).input_size(), 3);  // integer bounds are the type's range
}

TEST(OnnxLowerElementwise, WhereSelectsUint64InInt64) {
  auto model = convert([](MLGraphBuilder& b) {
    auto c = b.input("c", desc(DT::kUint8, {4}));
    auto x = b.input("x", desc(DT::kUint64, {4}));
    auto y = b.input("y", desc(DT::kUint64, {4}));
    auto f = b.input("f", desc(DT::kFloat32, {4}));
    return MLNamedOperands{{"u", b.where(c, x, y)}, {"f", b.where(c, f, f)}};
  });
  EXPECT_EQ(node_types(model),
            (std::vector<std::string>{"Cast", "Cast", "Cast", "Where", "Cast", "Cast", "Where"}));
}

TEST(OnnxLowerActivations, OneNodeWithOptionsCastToTheInputType) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat16, {2, 3}));
    return MLNamedOperands{{"elu", b.elu(x, {.alpha = 0.1})},
                           {"hs", b.hardSigmoid(x, {.alpha = 0.3, .beta = 0.4})},
                           {"sm", b.softmax(x, 1)},
                           {"relu", b.relu(x)}};
  });
  ASSERT_EQ(node_types(model), (std::vector<std::string>{"Elu", "HardSigmoid", "Softmax", "Relu"}));
  // 0.1 as float16 is 0.0999755859375.
  EXPECT_EQ(attr(model.graph().node(0), "alpha")->f(), 0.0999755859375f);
  EXPECT_EQ(attr(model.graph().node(2), "axis")->i(), 1);
}

TEST(OnnxLowerActivations, GeluIsTheFusableErfPattern) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {8}));
    return MLNamedOperands{{"y", b.gelu(x)}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"Div", "Erf", "Add", "Mul", "Mul"}));
}

TEST(OnnxLowerActivations, PreluExpandsAnInputSmallerThanTheOutput) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {1, 3, 4}));
    auto s = b.input("s", desc(DT::kFloat32, {3, 1}));
    auto big = b.input("big", desc(DT::kFloat32, {2, 1, 4}));
    return MLNamedOperands{{"same", b.prelu(x, s)}, {"expanded", b.prelu(x, big)}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"PRelu", "Expand", "PRelu"}));
}

TEST(OnnxLowerActivations, LinearDropsIdentityTerms) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(DT::kFloat32, {4}));
    return MLNamedOperands{{"scale", b.linear(x, {.alpha = 2.0})},
                           {"full", b.linear(x, {.alpha = 2.0, .beta = 1.0})},
                           {"shift", b.linear(x, {.beta = 1.0})}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"Mul", "Mul", "Add", "Add"}));
}

// ---- ORT against the reference backend on the edge cases ---------------------------------------

bool have_ort() {
  const auto names = compiled_backends();
  return std::find(names.begin(), names.end(), "ort") != names.end();
}

// Runs the graph of `make` on the reference and ORT backends with `inputs` and expects equal
// output bytes.
template <class F>
void expect_ort_matches_reference(F make,
                                  const std::map<std::string, std::vector<std::byte>>& inputs) {
  if (!have_ort()) GTEST_SKIP() << "built without ONNX Runtime";
  MLContext ref = MLContext::create({.backend = "reference"});
  MLContext ort = MLContext::create({.backend = "ort", .numThreads = 1});
  auto expected = testing::run_graph(ref, build(ref, make), inputs);
  auto actual = testing::run_graph(ort, build(ort, make), inputs);
  for (const auto& [name, bytes] : expected) EXPECT_EQ(actual.at(name), bytes) << name;
}

TEST(OnnxLowerElementwise, OrtIntegerDivisionMatchesReference) {
  const std::vector<int32_t> a{7, -7, 5, std::numeric_limits<int32_t>::lowest(), 9, -9};
  const std::vector<int32_t> b{2, 2, 0, -1, -1, 0};
  std::vector<int8_t> a8(a.begin(), a.end() - 2), b8(b.begin(), b.end() - 2);
  a8[3] = -128;
  std::vector<uint32_t> au{7, 0xffffffffu, 3, 0}, bu{2, 0, 0xffffffffu, 0};
  expect_ort_matches_reference(
      [](MLGraphBuilder& g) {
        return MLNamedOperands{
            {"i32",
             g.div(g.input("a", desc(DT::kInt32, {6})), g.input("b", desc(DT::kInt32, {6})))},
            {"i8", g.div(g.input("a8", desc(DT::kInt8, {4})), g.input("b8", desc(DT::kInt8, {4})))},
            {"u32",
             g.div(g.input("au", desc(DT::kUint32, {4})), g.input("bu", desc(DT::kUint32, {4})))}};
      },
      {{"a", to_bytes(a)},
       {"b", to_bytes(b)},
       {"a8", to_bytes(a8)},
       {"b8", to_bytes(b8)},
       {"au", to_bytes(au)},
       {"bu", to_bytes(bu)}});
}

TEST(OnnxLowerElementwise, OrtFloatToIntegerCastMatchesReference) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{1.9f, -1.9f, NAN, inf, -inf, 3e9f, -3e9f, 2147483520.0f, 1e20f, -0.5f};
  expect_ort_matches_reference(
      [](MLGraphBuilder& g) {
        auto v = g.input("x", desc(DT::kFloat32, {10}));
        return MLNamedOperands{{"i8", g.cast(v, DT::kInt8)},   {"u8", g.cast(v, DT::kUint8)},
                               {"i32", g.cast(v, DT::kInt32)}, {"u32", g.cast(v, DT::kUint32)},
                               {"i64", g.cast(v, DT::kInt64)}, {"u64", g.cast(v, DT::kUint64)}};
      },
      {{"x", to_bytes(x)}});
}

TEST(OnnxLowerElementwise, OrtWhereSignAndIntegerOpsMatchReference) {
  const std::vector<uint8_t> c{0, 1, 2, 0};
  const std::vector<uint64_t> x{1, 0xffffffffffffffffull, 3, 4}, y{5, 6, 7, 0x8000000000000000ull};
  const std::vector<int8_t> i8{-128, -3, 0, 127};
  const std::vector<float> f{-0.0f, NAN, -2.5f, 3.0f};
  expect_ort_matches_reference(
      [](MLGraphBuilder& g) {
        auto cond = g.input("c", desc(DT::kUint8, {4}));
        auto i = g.input("i8", desc(DT::kInt8, {4}));
        auto v = g.input("f", desc(DT::kFloat32, {4}));
        // ORT does not keep the sign of a zero through sign and relu: their input has no -0.
        auto sv = g.input("s", desc(DT::kFloat32, {4}));
        return MLNamedOperands{{"where", g.where(cond, g.input("x", desc(DT::kUint64, {4})),
                                                 g.input("y", desc(DT::kUint64, {4})))},
                               {"where8", g.where(cond, i, g.neg(i))},
                               {"relu8", g.relu(i)},
                               {"prelu8", g.prelu(i, g.constant(DT::kInt8, 3))},
                               {"pow8", g.pow(i, g.constant(DT::kInt8, 2))},
                               {"sign", g.sign(sv)},
                               {"clamp8", g.clamp(i, {.minValue = -5, .maxValue = 100})},
                               {"clampf", g.clamp(v, {.minValue = -1.0, .maxValue = 1.0})},
                               {"relu", g.relu(sv)},
                               {"max", g.max(v, g.reverse(v))},
                               {"min", g.min(v, g.reverse(v))}};
      },
      {{"c", to_bytes(c)},
       {"x", to_bytes(x)},
       {"y", to_bytes(y)},
       {"i8", to_bytes(i8)},
       {"f", to_bytes(f)},
       {"s", to_bytes(std::vector<float>{0.0f, NAN, -2.5f, 3.0f})}});
}

TEST(OnnxLowerElementwise, OrtIntegerTypesMatchReference) {
  // Every elementwise op that accepts integers, on the types ONNX Runtime's kernels cover least.
  const std::vector<uint8_t> u8{0, 1, 200, 255};
  const std::vector<int8_t> i8{-128, -1, 100, 127};
  const std::vector<uint32_t> u32{0, 1, 0x80000000u, 0xffffffffu};
  const std::vector<uint64_t> u64{0, 1, 0x8000000000000000ull, 0xffffffffffffffffull};
  auto ops = [](MLGraphBuilder& g, const char* name, DT type, MLNamedOperands& out) {
    auto a = g.input(name, desc(type, {4}));
    auto b = g.reverse(a);
    const std::string n = name;
    out.emplace(n + "add", g.add(a, b));
    out.emplace(n + "sub", g.sub(a, b));
    out.emplace(n + "mul", g.mul(a, b));
    out.emplace(n + "max", g.max(a, b));
    out.emplace(n + "min", g.min(a, b));
    out.emplace(n + "gt", g.greater(a, b));
    out.emplace(n + "le", g.lesserOrEqual(a, b));
    out.emplace(n + "eq", g.equal(a, b));
    out.emplace(n + "where", g.where(g.greater(a, b), a, b));
    out.emplace(n + "clamp", g.clamp(a, {.minValue = 1, .maxValue = 200}));
    out.emplace(n + "cast", g.cast(a, DT::kFloat16));
  };
  expect_ort_matches_reference(
      [&](MLGraphBuilder& g) {
        MLNamedOperands out;
        ops(g, "u8", DT::kUint8, out);
        ops(g, "i8", DT::kInt8, out);
        ops(g, "u32", DT::kUint32, out);
        ops(g, "u64", DT::kUint64, out);
        auto i = g.input("j8", desc(DT::kInt8, {4}));
        out.emplace("i8abs", g.abs(i));
        out.emplace("i8neg", g.neg(i));
        out.emplace("i8sign", g.sign(i));
        return out;
      },
      {{"u8", to_bytes(u8)},
       {"i8", to_bytes(i8)},
       {"u32", to_bytes(u32)},
       {"u64", to_bytes(u64)},
       {"j8", to_bytes(i8)}});
}

TEST(OnnxLowerElementwise, OrtFloat16SpecialValuesMatchReference) {
  const std::vector<uint16_t> h =
      testing::half_bits({-0.0f, NAN, INFINITY, -INFINITY, 2.5f, -3.5f, 65504.0f, 1.0f});
  expect_ort_matches_reference(
      [](MLGraphBuilder& g) {
        auto x = g.input("x", desc(DT::kFloat16, {8}));
        return MLNamedOperands{{"inf", g.isInfinite(x)},
                               {"nan", g.isNaN(x)},
                               {"round", g.roundEven(x)},
                               {"sign", g.sign(g.input("s", desc(DT::kFloat16, {4})))},
                               {"i32", g.cast(x, DT::kInt32)},
                               {"u8", g.cast(x, DT::kUint8)},
                               {"where", g.where(g.isNaN(x), x, g.neg(x))}};
      },
      {{"x", to_bytes(h)}, {"s", to_bytes(testing::half_bits({0.0f, NAN, -INFINITY, 0.5f}))}});
}

}  // namespace
}  // namespace cppnn
