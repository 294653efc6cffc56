// The ONNX importer's core: operator coverage check, free dimensions, folding of shape chains
// (including empty intermediate tensors), names, and malformed models.
#include "cppnn/onnx_import.h"

#include <gtest/gtest.h>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

std::span<const std::byte> span_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(OnnxImport, ListsEveryUnsupportedOperatorWithItsCount) {
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.node("Foo", {"x"}, {"a"});
  m.node("Bar", {"a"}, {"b"});
  m.node("Foo", {"b"}, {"c"});
  m.node("Fused", {"c"}, {"d"}, "com.example");
  m.node("Identity", {"d"}, {"y"});
  m.output("y");
  const std::string bytes = m.bytes();
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  try {
    import_onnx_bytes(builder, span_of(bytes));
    FAIL() << "no error";
  } catch (const NotSupportedError& e) {
    EXPECT_STREQ(e.what(),
                 "unsupported ONNX operators (3): Bar (1), Foo (2), com.example.Fused (1)");
  }
}

TEST(OnnxImport, FreeDimensionsNeedOverridesOrBatchDefaults) {
  OnnxModelBuilder m;
  m.input("x", kFloat, {-1, -1, 3}, {"batch", "height"});
  m.node("Identity", {"x"}, {"y"});
  m.output("y");
  EXPECT_EQ(import_error(m),
            "Dynamic dimensions require explicit overrides:\n"
            " - input 'x' dim 'height': --override-dim height=<value>");
  auto ok = import_model(m, {.freeDimensions = {{"height", 5}}});
  EXPECT_EQ(ok->result.outputs.at("y").shape(), (std::vector<uint32_t>{1, 5, 3}));
  auto lower = import_model(m, {.freeDimensions = {{"batch", 4}, {"height", 2}}});
  EXPECT_EQ(lower->result.outputs.at("y").shape(), (std::vector<uint32_t>{4, 2, 3}));
  auto shaped = import_model(m, {.inputShapes = {{"x", {7, 1, 3}}}});
  EXPECT_EQ(shaped->result.outputs.at("y").shape(), (std::vector<uint32_t>{7, 1, 3}));
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape becomes one static reshape.
TEST(OnnxImport, FoldsShapeChainsIntoStaticSizes) {
  OnnxModelBuilder m(11);
  m.input("x", kFloat, {-1, 3, 4}, {"batch"});
  m.initializer_i64("zero", {0}, {});
  m.initializer_i64("minus_one", {-1}, {1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"});
  OnnxModelBuilder::attr_ints(m.node("Unsqueeze", {"n"}, {"n1"}), "axes", {0});
  m.node("Concat", {"n1", "minus_one"}, {"target"}).add_attribute()->set_name("axis");
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y");
  auto r = import_model(m, {.freeDimensions = {{"batch", 2}}});
  MLOperand y = r->result.outputs.at("y");
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 12}));
  Graph g = r->builder.pruned_graph(r->result.outputs);
  ASSERT_EQ(g.operations.size(), 1u);
  EXPECT_EQ(g.operations[0].type, OpType::kReshape);
  // And it computes.
  MLGraph graph = r->builder.build(r->result.outputs);
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  auto out = run_graph(r->context, graph, {{"x", to_bytes(x)}});
  EXPECT_EQ(as<float>(out.at("y")), x);
}

// An empty slice of a shape takes part in a Concat (empty tensors stay on the host).
TEST(OnnxImport, FoldsEmptyIntermediateTensors) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {2, 6});
  m.initializer_i64("start", {1}, {1});
  m.initializer_i64("end", {1}, {1});
  m.initializer_i64("rest", {3, -1}, {2});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "start", "end"}, {"empty"});
  OnnxModelBuilder::attr_int(m.node("Concat", {"empty", "rest"}, {"target"}), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y");
  auto r = import_model(m);
  EXPECT_EQ(r->result.outputs.at("y").shape(), (std::vector<uint32_t>{3, 4}));
}

// An op on known inputs (a Transpose of an initializer) is folded on the reference backend.
TEST(OnnxImport, FoldsOperationsOnConstants) {
  OnnxModelBuilder m;
  m.initializer_f32("w", {1, 2, 3, 4, 5, 6}, {2, 3});
  m.node("Transpose", {"w"}, {"y"});
  m.output("y");
  auto r = import_model(m);
  Graph g = r->builder.pruned_graph(r->result.outputs);
  ASSERT_EQ(g.operations.size(), 1u);
  EXPECT_EQ(g.operations[0].type, OpType::kIdentity);  // the output of a known value
  MLGraph graph = r->builder.build(r->result.outputs);
  auto out = run_graph(r->context, graph, {});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(OnnxImport, SliceWithNegativeStepsOnOperands) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {5});
  m.initializer_i64("starts", {-1}, {1});
  m.initializer_i64("ends", {INT64_MIN}, {1});
  m.initializer_i64("axes", {0}, {1});
  m.initializer_i64("steps", {-2}, {1});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  m.output("y");
  auto r = import_model(m);
  MLGraph graph = r->builder.build(r->result.outputs);
  auto out = run_graph(r->context, graph, {{"x", to_bytes<float>({0, 1, 2, 3, 4})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{4, 2, 0}));
}

TEST(OnnxImport, SanitizesNamesAndWrapsInputsUsedAsOutputs) {
  EXPECT_EQ(sanitize_onnx_name("a::b:c.d-e/f"), "a__b_c_d_e/f");
  EXPECT_EQ(sanitize_onnx_name("0x"), "_0x");
  OnnxModelBuilder m;
  m.input("in:0", kFloat, {2});
  m.output("in:0");
  auto r = import_model(m);
  ASSERT_EQ(r->result.inputNames.size(), 1u);
  EXPECT_EQ(r->result.inputNames[0].second, "in_0");
  ASSERT_EQ(r->result.outputNames.size(), 1u);
  EXPECT_NE(r->result.outputNames[0].second, "in_0");  // inputs and outputs are distinct names
  MLGraph graph = r->builder.build(r->result.outputs);
  auto out = run_graph(r->context, graph, {{"in_0", to_bytes<float>({1, 2})}});
  EXPECT_EQ(as<float>(out.at(r->result.outputNames[0].second)), (std::vector<float>{1, 2}));
}

TEST(OnnxImport, RangeAndConstantOfShape) {
  OnnxModelBuilder m(11);
  m.input("x", kFloat, {2, 3});
  m.initializer_i64("start", {1}, {});
  m.initializer_i64("limit", {10}, {});
  m.initializer_i64("delta", {3}, {});
  m.initializer_i64("two", {2}, {1});
  m.node("Range", {"start", "limit", "delta"}, {"r"});  // [1, 4, 7]
  m.node("Shape", {"x"}, {"s"});
  m.node("ConstantOfShape", {"s"}, {"zeros"});
  m.node("Shape", {"r"}, {"rs"});
  m.node("Concat", {"rs", "two"}, {"t"}).add_attribute()->set_name("axis");
  m.node("Reshape", {"zeros", "t"}, {"unused"});
  m.node("Cast", {"r"}, {"y"});
  OnnxModelBuilder::attr_int(m.model().mutable_graph()->mutable_node(6)[0], "to", kFloat);
  m.output("y");
  auto r = import_model(m);
  MLGraph graph = r->builder.build(r->result.outputs);
  auto out = run_graph(r->context, graph, {});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{1, 4, 7}));
}

TEST(OnnxImport, MalformedModelsGiveClearErrors) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  const std::string garbage = "not a model at all \x01\x02";
  EXPECT_THROW(import_onnx_bytes(builder, span_of(garbage)), DataError);
  EXPECT_THROW(import_onnx(builder, "/nonexistent/model.onnx"), DataError);

  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.node("Identity", {"missing"}, {"y"}).set_name("id");
  m.output("y");
  EXPECT_EQ(import_error(m),
            "ONNX node 'id' (Identity): input 'missing' is not produced by an earlier node, an "
            "input or an initializer");

  OnnxModelBuilder bad_reshape;
  bad_reshape.input("x", kFloat, {2, 3});
  bad_reshape.initializer_i64("t", {4, -1}, {2});
  bad_reshape.node("Reshape", {"x", "t"}, {"y"});
  bad_reshape.output("y");
  EXPECT_NE(import_error(bad_reshape).find("Reshape#0"), std::string::npos);

  OnnxModelBuilder f64;
  f64.input("x", onnx::TensorProto_DataType_DOUBLE, {2});
  f64.node("Identity", {"x"}, {"y"});
  f64.output("y");
  EXPECT_EQ(import_error(f64), "input 'x': element type DOUBLE cannot be expressed in WebNN");
}

}  // namespace
}  // namespace cppnn
