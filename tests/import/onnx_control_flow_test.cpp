// ONNX control flow in the importer (ops_control.cpp, subgraph.cpp): If with a known condition
// inlined, with a run-time condition selected by where, Loop and Scan unrolled with carried values
// and scan outputs, the unroll limit, outer-scope reads and shared subgraph initializers.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

void attr_graph(onnx::NodeProto& n, const std::string& name, OnnxModelBuilder& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  *a->mutable_g() = g.model().graph();
}

// A bool scalar initializer of the model's graph.
void bool_initializer(OnnxModelBuilder& m, const std::string& name, bool value) {
  auto* t = m.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(kBool);
  t->add_int32_data(value ? 1 : 0);
}

// Runs an imported model; returns every output's bytes by ONNX name.
Bytes run(Imported& im, const Bytes& inputs) {
  MLGraph graph = im.builder.build(im.result.outputs);
  Bytes by_webnn = run_graph(im.context, graph, inputs);
  Bytes out;
  for (const auto& [onnx_name, name] : im.result.outputNames) out[onnx_name] = by_webnn.at(name);
  return out;
}

// Operations of `type` and constants named after `onnx_name` ("w", "w_1" ...) in the graph.
size_t count_ops(const Imported& im, OpType type) {
  const Graph g = im.builder.pruned_graph(im.result.outputs);
  return static_cast<size_t>(std::count_if(g.operations.begin(), g.operations.end(),
                                           [&](const Operation& o) { return o.type == type; }));
}
size_t count_constants(const Imported& im, const std::string& onnx_name) {
  const Graph g = im.builder.pruned_graph(im.result.outputs);
  size_t n = 0;
  for (const OperandInfo& o : g.operands)
    if (o.kind == OperandKind::kConstant &&
        (o.name == onnx_name || o.name.rfind(onnx_name + "_", 0) == 0))
      ++n;
  return n;
}

// y = If(c) then x + x else x * x, both branches reading the outer x.
OnnxModelBuilder if_model(const std::string& else_op = "Mul") {
  OnnxModelBuilder then_b, else_b;
  then_b.node("Add", {"x", "x"}, {"t"});
  then_b.output("t");
  auto& e = else_b.node(else_op, {"x", "x"}, {"e"});
  if (else_op == "Concat") OnnxModelBuilder::attr_int(e, "axis", 0);
  else_b.output("e");
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.input("c", kBool, {});
  auto& n = m.node("If", {"c"}, {"y"});
  n.set_name("choose");
  attr_graph(n, "then_branch", then_b);
  attr_graph(n, "else_branch", else_b);
  m.output("y");
  return m;
}

TEST(OnnxControlFlow, IfWithAFixedConditionInlinesTheTakenBranch) {
  for (const std::string& backend : import_backends()) {
    for (bool c : {true, false}) {
      OnnxImportOptions o;
      o.inputValues["c"] = {{MLOperandDataType::kUint8, {}}, to_bytes(std::vector<uint8_t>{c})};
      auto im = import_model(if_model(), backend, o);
      EXPECT_EQ(count_ops(*im, OpType::kWhere), 0u);
      const auto y = as<float>(run(*im, {{"x", to_bytes(std::vector<float>{1, 3})}}).at("y"));
      EXPECT_EQ(y, (c ? std::vector<float>{2, 6} : std::vector<float>{1, 9})) << backend;
    }
  }
}

TEST(OnnxControlFlow, IfWithARunTimeConditionSelectsWithWhere) {
  for (const std::string& backend : import_backends()) {
    auto im = import_model(if_model(), backend);
    EXPECT_EQ(count_ops(*im, OpType::kWhere), 1u);
    MLGraph graph = im->builder.build(im->result.outputs);
    for (uint8_t c : {uint8_t{1}, uint8_t{0}}) {
      const auto out = run_graph(
          im->context, graph,
          {{"x", to_bytes(std::vector<float>{1, 3})}, {"c", to_bytes(std::vector<uint8_t>{c})}});
      EXPECT_EQ(as<float>(out.at("y")), (c ? std::vector<float>{2, 6} : std::vector<float>{1, 9}))
          << backend;
    }
  }
}

TEST(OnnxControlFlow, IfWithBranchesOfDifferentShapesNamesTheNode) {
  const std::string e = import_error(if_model("Concat"));
  EXPECT_NE(e.find("ONNX node 'choose' (If): output 0 ('y'): then_branch gives float32[2] and "
                   "else_branch float32[4]"),
            std::string::npos)
      << e;
}

TEST(OnnxControlFlow, OperatorsInsideSubgraphsAreListedUpFront) {
  OnnxModelBuilder then_b, else_b;
  then_b.node("Foo", {"x"}, {"t"});
  then_b.output("t");
  else_b.node("Identity", {"x"}, {"e"});
  else_b.output("e");
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.input("c", kBool, {});
  auto& n = m.node("If", {"c"}, {"y"});
  attr_graph(n, "then_branch", then_b);
  attr_graph(n, "else_branch", else_b);
  m.output("y");
  EXPECT_EQ(import_error(m), "unsupported ONNX operators (1): Foo (1)");
}

// y, s = Loop(M, cond, x): acc += w (a body initializer) per iteration, s stacks acc * acc.
OnnxModelBuilder loop_model(int64_t trip, const std::string& cond_out_op) {
  OnnxModelBuilder body;
  body.input("i", kInt64, {});
  body.input("c_in", kBool, {});
  body.input("acc", kFloat, {2});
  body.initializer_f32("w", {1, 2}, {2});
  body.initializer_i64("limit", {1}, {});
  if (cond_out_op == "Identity") {
    body.node("Identity", {"c_in"}, {"c_out"});
  } else if (cond_out_op == "Less") {
    body.node("Less", {"i", "limit"}, {"c_out"});  // stops after iteration 1
  } else {                                         // a condition from the run-time acc
    body.node("ReduceSum", {"acc"}, {"sum"});
    body.node("Less", {"sum", "sum"}, {"c_out"});
  }
  body.node("Add", {"acc", "w"}, {"acc_out"});
  body.node("Mul", {"acc_out", "acc_out"}, {"sq"});
  body.output("c_out");
  body.output("acc_out");
  body.output("sq");
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.initializer_i64("M", {trip}, {});
  bool_initializer(m, "cond", true);
  auto& n = m.node("Loop", {"M", "cond", "x"}, {"y", "s"});
  n.set_name("loop");
  attr_graph(n, "body", body);
  m.output("y");
  m.output("s");
  return m;
}

TEST(OnnxControlFlow, LoopUnrollsCarriedValuesAndScanOutputs) {
  for (const std::string& backend : import_backends()) {
    auto im = import_model(loop_model(3, "Identity"), backend);
    // The body initializer w, used by 3 iterations, is one constant.
    EXPECT_EQ(count_constants(*im, "w"), 1u) << backend;
    const auto out = run(*im, {{"x", to_bytes(std::vector<float>{1, 3})}});
    EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{4, 9})) << backend;
    EXPECT_EQ(as<float>(out.at("s")), (std::vector<float>{4, 25, 9, 49, 16, 81})) << backend;
    EXPECT_EQ(im->result.outputs.at("s").shape(), (std::vector<uint32_t>{3, 2}));
  }
}

TEST(OnnxControlFlow, LoopStopsWhereItsConditionFoldsToFalse) {
  auto im = import_model(loop_model(100, "Less"));
  const auto out = run(*im, {{"x", to_bytes(std::vector<float>{0, 0})}});
  EXPECT_EQ(as<float>(out.at("y")), (std::vector<float>{2, 4}));  // iterations 0 and 1
  EXPECT_EQ(im->result.outputs.at("s").shape(), (std::vector<uint32_t>{2, 2}));
}

TEST(OnnxControlFlow, LoopWithARunTimeConditionIsAClearError) {
  const std::string e = import_error(loop_model(3, "ReduceSum"));
  EXPECT_NE(e.find("ONNX node 'loop' (Loop): body iteration 0: the loop condition 'c_out' is "
                   "computed from run-time values"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("cannot be unrolled"), std::string::npos) << e;
}

TEST(OnnxControlFlow, UnrollingPastTheLimitIsAClearError) {
  OnnxModelBuilder body;
  body.input("i", kInt64, {});
  body.input("c_in", kBool, {});
  body.input("acc", kFloat, {2});
  body.node("Identity", {"c_in"}, {"c_out"});
  body.node("Neg", {"acc"}, {"acc_out"});
  body.output("c_out");
  body.output("acc_out");
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.initializer_i64("M", {60000}, {});
  auto& n = m.node("Loop", {"M", "", "x"}, {"y"});
  n.set_name("long");
  attr_graph(n, "body", body);
  m.output("y");
  const std::string e = import_error(m);
  EXPECT_NE(e.find("ONNX node 'long' (Loop): unrolling 60000 iteration(s) of a body of 2 node(s) "
                   "exceeds the unroll limit of 100000 nodes per model (kMaxUnrolledNodes"),
            std::string::npos)
      << e;
}

TEST(OnnxControlFlow, MalformedSubgraphsAreDataErrorsNamingTheNode) {
  OnnxModelBuilder then_b;
  then_b.node("Identity", {"x"}, {"t"});
  then_b.output("t");
  OnnxModelBuilder no_else;
  no_else.input("x", kFloat, {2});
  bool_initializer(no_else, "c", true);
  auto& n = no_else.node("If", {"c"}, {"y"});
  n.set_name("half");
  attr_graph(n, "then_branch", then_b);
  no_else.output("y");
  EXPECT_EQ(import_error(no_else),
            "ONNX node 'half' (If): attribute 'else_branch' must be a graph");

  OnnxModelBuilder body;  // two inputs where the Loop binds three
  body.input("i", kInt64, {});
  body.input("c_in", kBool, {});
  body.node("Identity", {"c_in"}, {"c_out"});
  body.output("c_out");
  OnnxModelBuilder m;
  m.input("x", kFloat, {2});
  m.initializer_i64("M", {2}, {});
  auto& loop = m.node("Loop", {"M", "", "x"}, {"y"});
  loop.set_name("bad");
  attr_graph(loop, "body", body);
  m.output("y");
  try {
    import_model(m);
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("ONNX node 'bad' (Loop): the body has 2 inputs", 0), 0u)
        << e.what();
  }
}

TEST(OnnxControlFlow, ScanUnrollsAxesAndDirections) {
  // state s (2) += column of x (2 x 3), read along axis 1 backwards; the running sums are
  // stacked along output axis 1 (forward) and output axis 0 (reversed).
  OnnxModelBuilder body;
  body.input("s_in", kFloat, {2});
  body.input("col", kFloat, {2});
  body.initializer_f32("bias", {10, 20}, {2});
  body.node("Add", {"s_in", "col"}, {"s_out"});
  body.node("Add", {"s_out", "bias"}, {"biased"});
  body.node("Identity", {"s_out"}, {"sums"});
  body.output("s_out");
  body.output("sums");
  body.output("biased");
  OnnxModelBuilder m(11);
  m.input("s0", kFloat, {2});
  m.input("x", kFloat, {2, 3});
  auto& n = m.node("Scan", {"s0", "x"}, {"s", "by_col", "by_row"});
  attr_graph(n, "body", body);
  OnnxModelBuilder::attr_int(n, "num_scan_inputs", 1);
  OnnxModelBuilder::attr_ints(n, "scan_input_axes", {-1});
  OnnxModelBuilder::attr_ints(n, "scan_input_directions", {1});
  OnnxModelBuilder::attr_ints(n, "scan_output_axes", {1, 0});
  OnnxModelBuilder::attr_ints(n, "scan_output_directions", {0, 1});
  m.output("s");
  m.output("by_col");
  m.output("by_row");
  for (const std::string& backend : import_backends()) {
    auto im = import_model(m, backend);
    EXPECT_EQ(count_constants(*im, "bias"), 1u);
    const auto out = run(*im, {{"s0", to_bytes(std::vector<float>{0, 100})},
                               {"x", to_bytes(std::vector<float>{1, 2, 3, 4, 5, 6})}});
    // Steps read columns 2, 1, 0: sums [3,106], [5,111], [6,115].
    EXPECT_EQ(as<float>(out.at("s")), (std::vector<float>{6, 115})) << backend;
    EXPECT_EQ(as<float>(out.at("by_col")), (std::vector<float>{3, 5, 6, 106, 111, 115}));
    EXPECT_EQ(as<float>(out.at("by_row")), (std::vector<float>{16, 135, 15, 131, 13, 126}));
  }
}

}  // namespace
}  // namespace cppnn
