// Round trips (webnn-graph-format.md §5.3, §10 row 43): the §3.5 examples parse, serialize and
// parse again identically; a graph for each of the 95 ops of ops.def goes text -> graph -> text
// and JSON -> graph -> JSON byte-identically; graphs recorded through the API print and load.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/formats/graph_validate.h"
#include "tests/formats/formats_test_util.h"

namespace cppnn::formats {
namespace {

using testing::build_doc;
using testing::parse_ok;

const char* const kExamples[] = {
    R"(webnn_graph "resnet_head" v1 {
  inputs {
    x: f32[1, 2048];
  }
  consts {
    W: f32[2048, 1000] @weights("W");
    b: f32[1000]       @weights("b");
  }
  nodes {
    logits0 = matmul(x, W);
    logits  = add(logits0, b);
    probs   = softmax(logits, axis=1);
  }
  outputs { probs; }
}
)",
    R"(# Maintained syntax example
webnn_graph "format_reference" v2 @quantized {
  inputs {
    input: f32[dyn("batch", 8), 4];
  }
  consts {
    bias: f32[] @scalar(0.5);
    inline_mask: u8[4] @bytes([1, 1, 0, 0]);
    external_weight: f32[4, 4] @weights("encoder.weight");
  }
  nodes {
    sum = add(input, bias, metadata={kind: "reference", axes: [1], enabled: true});
    [left, right] = split(sum, splits=[2, 2], axis=1);
    result = concat(left, right, axis=1);
  }
  outputs { result; }
}
)",
    R"(webnn_graph "misc" v2 {          # header
  consts { k: i64[2]; }          # same as @weights("k")
  inputs { a: f16[2, 3]; b: f16[2, 3]; }
  nodes {
    c = concat([a, b], axis=0);  # inputs ["a","b"]
    [p, q] = split(c, splits=2, axis=0);
  }
  outputs { p q }
}
)",
    R"(webnn_graph "tiny" v2 @quantized {
  inputs { x: f32[2]; }
  consts { s: f32[1] @scalar(2); q: u4[3] @bytes([33, 3]); }
  nodes { y = mul(x, s); }
  outputs { y; }
}
)"};

// Row 43: examples A-D parse, serialize and parse again to the identical GraphJson.
TEST(FormatsRoundTrip, Row43ExamplesParseSerializeParse) {
  for (const char* example : kExamples) {
    GraphDoc first = parse_ok(example);
    EXPECT_EQ(validate_graph_doc(first).ok(), true) << example;
    const std::string json = print_graph_json(first);
    Result<std::string> text = print_webnn_text(first);
    ASSERT_TRUE(text) << text.error().message;
    GraphDoc second = parse_ok(*text);
    EXPECT_EQ(print_graph_json(second), json) << *text;
    EXPECT_EQ(second, first);
    // The public API gives the same.
    EXPECT_EQ(webnn_text_to_json(example), json);
    EXPECT_EQ(graph_json_to_webnn_text(json), *text);
  }
  // Example A's values, per §4.2's compact rendering.
  GraphDoc a = parse_ok(kExamples[0]);
  EXPECT_EQ(a.consts.at("W").init.ref, "W");
  EXPECT_EQ(a.nodes[2].options, (DocValue::Object{{"axis", DocValue::integer(1)}}));
  GraphDoc b = parse_ok(kExamples[1]);
  EXPECT_EQ(b.nodes[1].id, "left");
  EXPECT_EQ(b.consts.at("external_weight").init.ref, "encoder.weight");
  EXPECT_NE(
      print_webnn_text(b)->find("metadata={\"axes\":[1],\"enabled\":true,\"kind\":\"reference\"}"),
      std::string::npos);
}

// Examples A and D also load into the builder (C's i64 constant has no consumer op).
TEST(FormatsRoundTrip, ExamplesLoadThroughTheBuilder) {
  for (int i : {0, 3}) {
    Graph g = build_doc(parse_ok(kExamples[i]));
    EXPECT_FALSE(g.operations.empty());
  }
  // Example B's `metadata` option is not an add option: it parses (the syntax example), but
  // loading it is an error naming the node, the key and add's keys (never silently ignored).
  try {
    build_doc(parse_ok(kExamples[1]));
    ADD_FAILURE() << "example B loaded with an unknown option";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'sum': unknown option 'metadata' for add (known: "
                                         "label)"),
              std::string::npos)
        << e.what();
  }
}

// One canonical file per op: inputs, consts and nodes as the printer writes them.
struct OpSample {
  std::string inputs;  // declaration lines, sorted by name
  std::string consts;
  std::string nodes;
  std::string outputs = "y";
};

std::map<std::string, OpSample> op_samples() {
  std::map<std::string, OpSample> s;
  const std::string x23 = "a: f32[2, 3];";
  const std::string ab23 = "a: f32[2, 3];\nb: f32[2, 3];";
  for (const char* op : {"add", "sub", "mul", "div", "max", "min", "pow", "equal", "notEqual",
                         "greater", "greaterOrEqual", "lesser", "lesserOrEqual"})
    s[op] = {ab23, "", "y = " + std::string(op) + "(a, b);"};
  s["add"] = {x23, "b: f32[] @scalar(2.0);", "y = add(a, b);"};
  s["mul"] = {x23, "b: f32[3] @weights(\"mul.weight\");", "y = mul(a, b);"};
  for (const char* op : {"logicalAnd", "logicalOr", "logicalXor"})
    s[op] = {"a: u8[2, 3];\nb: u8[2, 3];", "", "y = " + std::string(op) + "(a, b);"};
  s["logicalNot"] = {"a: u8[2, 3];", "", "y = logicalNot(a);"};
  for (const char* op :
       {"isNaN",     "isInfinite", "abs",      "ceil",     "cos",      "erf",
        "exp",       "floor",      "identity", "log",      "neg",      "reciprocal",
        "roundEven", "sin",        "sign",     "sqrt",     "tan",      "gelu",
        "hardSwish", "relu",       "sigmoid",  "softplus", "softsign", "tanh"})
    s[op] = {x23, "", "y = " + std::string(op) + "(a);"};
  s["relu"] = {x23, "", "y = relu(a, label=\"act\");"};
  s["argMin"] = {x23, "", "y = argMin(a, axis=1, keepDimensions=true);"};
  s["argMax"] = {x23, "", "y = argMax(a, axis=0);"};
  s["batchNormalization"] = {
      "a: f32[2, 3, 4, 4];\nb: f32[3];\nc: f32[3];\nd: f32[3];\ne: f32[3];", "",
      "y = batchNormalization(a, b, c, bias=\"d\", epsilon=0.001, scale=\"e\");"};
  s["cast"] = {x23, "", "y = cast(a, dataType=\"int32\");"};
  s["clamp"] = {x23, "", "y = clamp(a, maxValue=6, minValue=-0.5);"};
  s["concat"] = {ab23, "", "y = concat(a, b, axis=0);"};
  s["conv2d"] = {"a: f32[1, 2, 5, 5];",
                 "b: f32[3, 2, 3, 3] @weights(\"conv.w\");\nc: f32[3] @scalar(0.25);",
                 "y = conv2d(a, b, bias=\"c\", padding=[1, 1, 1, 1], strides=[2, 2]);"};
  s["convTranspose2d"] = {"a: f32[1, 2, 3, 3];\nb: f32[2, 3, 3, 3];", "",
                          "y = convTranspose2d(a, b, outputPadding=[1, 1], strides=[2, 2]);"};
  s["cumulativeSum"] = {x23, "", "y = cumulativeSum(a, axis=1, exclusive=true);"};
  s["dequantizeLinear"] = {"a: i8[2, 3];\nb: f32[2, 3];\nc: i8[2, 3];", "",
                           "y = dequantizeLinear(a, b, c);"};
  s["quantizeLinear"] = {"a: f32[2, 3];\nb: f32[2, 3];\nc: u8[2, 3];", "",
                         "y = quantizeLinear(a, b, c);"};
  s["elu"] = {x23, "", "y = elu(a, alpha=0.5);"};
  s["expand"] = {"a: f32[1, 3];", "", "y = expand(a, newShape=[2, 3]);"};
  s["gather"] = {"a: f32[3, 4];", "b: i32[2] @bytes([0, 0, 0, 0, 2, 0, 0, 0]);",
                 "y = gather(a, b, axis=1);"};
  s["gatherElements"] = {"a: f32[3, 4];\nb: i32[2, 4];", "", "y = gatherElements(a, b);"};
  s["gatherND"] = {"a: f32[3, 4];\nb: i32[2, 1];", "", "y = gatherND(a, b);"};
  s["gemm"] = {"a: f32[2, 3];\nb: f32[3, 4];\nc: f32[4];", "",
               "y = gemm(a, b, alpha=0.5, c=\"c\");"};
  s["gru"] = {"a: f32[2, 1, 3];\nb: f32[1, 12, 3];\nc: f32[1, 12, 4];", "",
              "[y, z] = gru(a, b, c, direction=\"backward\", hiddenSize=4, returnSequence=true, "
              "steps=2);",
              "y z"};
  s["gruCell"] = {"a: f32[1, 3];\nb: f32[12, 3];\nc: f32[12, 4];\nd: f32[1, 4];", "",
                  "y = gruCell(a, b, c, d, activations=[\"relu\", \"tanh\"], hiddenSize=4);"};
  s["hardSigmoid"] = {x23, "", "y = hardSigmoid(a, alpha=0.1);"};
  s["instanceNormalization"] = {"a: f32[1, 2, 3, 3];", "",
                                "y = instanceNormalization(a, epsilon=0.0001);"};
  s["layerNormalization"] = {x23, "", "y = layerNormalization(a, axes=[1]);"};
  s["leakyRelu"] = {x23, "", "y = leakyRelu(a, alpha=0.2);"};
  s["linear"] = {x23, "", "y = linear(a, alpha=2.0, beta=1.0);"};
  s["lstm"] = {"a: f32[2, 1, 3];\nb: f32[1, 16, 3];\nc: f32[1, 16, 4];", "",
               "[y, z] = lstm(a, b, c, hiddenSize=4, steps=2);", "y z"};
  s["lstmCell"] = {"a: f32[1, 3];\nb: f32[16, 3];\nc: f32[16, 4];\nd: f32[1, 4];\ne: f32[1, 4];",
                   "", "[y, z] = lstmCell(a, b, c, d, e, hiddenSize=4, layout=\"ifgo\");", "y z"};
  s["matmul"] = {"a: f32[2, 3];\nb: f32[3, 4];", "", "y = matmul(a, b);"};
  s["pad"] = {x23, "", "y = pad(a, beginningPadding=[1, 0], endingPadding=[0, 1], mode=\"edge\");"};
  s["averagePool2d"] = {"a: f32[1, 2, 4, 4];", "",
                        "y = averagePool2d(a, windowDimensions=[2, 2]);"};
  s["l2Pool2d"] = {"a: f32[1, 2, 4, 4];", "", "y = l2Pool2d(a);"};
  s["maxPool2d"] = {"a: f32[1, 2, 4, 4];", "",
                    "y = maxPool2d(a, layout=\"nhwc\", strides=[2, 2], windowDimensions=[2, 2]);"};
  s["prelu"] = {x23, "b: f32[3] @bytes([0, 0, 128, 62, 0, 0, 0, 63, 0, 0, 64, 63]);",
                "y = prelu(a, b);"};
  for (const char* op :
       {"reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean",
        "reduceMin", "reduceProduct", "reduceSum", "reduceSumSquare"})
    s[op] = {x23, "", "y = " + std::string(op) + "(a, axes=[1], keepDimensions=true);"};
  s["reduceMax"].nodes = "y = reduceMax(a);";
  s["resample2d"] = {"a: f32[1, 1, 2, 2];", "",
                     "y = resample2d(a, mode=\"linear\", scales=[2.0, 1.5]);"};
  s["reshape"] = {x23, "", "y = reshape(a, newShape=[3, 2]);"};
  s["reverse"] = {x23, "", "y = reverse(a, axes=[0]);"};
  s["scatterElements"] = {"a: f32[3, 4];\nb: i32[2, 4];\nc: f32[2, 4];", "",
                          "y = scatterElements(a, b, c);"};
  s["scatterND"] = {"a: f32[3, 4];\nb: i32[2, 1];\nc: f32[2, 4];", "", "y = scatterND(a, b, c);"};
  s["slice"] = {"a: f32[4, 4];", "", "y = slice(a, sizes=[2, 2], starts=[1, 1], strides=[1, 2]);"};
  s["softmax"] = {x23, "", "y = softmax(a, axis=1);"};
  s["split"] = {"a: f32[4, 3];", "", "[y, z] = split(a, axis=1, splits=[1, 2]);", "y z"};
  s["tile"] = {x23, "", "y = tile(a, repetitions=[2, 1]);"};
  s["transpose"] = {x23, "", "y = transpose(a, permutation=[1, 0]);"};
  s["triangular"] = {x23, "", "y = triangular(a, diagonal=-1, upper=false);"};
  s["where"] = {"a: u8[2, 3];\nb: f32[2, 3];\nc: f32[2, 3];", "", "y = where(a, b, c);"};
  return s;
}

std::string indent_lines(const std::string& lines) {
  std::string out;
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    out += "    " + lines.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string canonical_file(const std::string& name, const OpSample& s) {
  std::string f = "webnn_graph \"" + name + "\" v1 {\n";
  if (!s.inputs.empty()) f += "  inputs {\n" + indent_lines(s.inputs) + "  }\n\n";
  if (!s.consts.empty()) f += "  consts {\n" + indent_lines(s.consts) + "  }\n\n";
  f += "  nodes {\n" + indent_lines(s.nodes) + "  }\n\n  outputs {";
  size_t start = 0;
  while (start < s.outputs.size()) {
    size_t end = s.outputs.find(' ', start);
    if (end == std::string::npos) end = s.outputs.size();
    f += " " + s.outputs.substr(start, end - start) + ";";
    start = end + 1;
  }
  return f + " }\n}\n";
}

// Every op of ops.def: text -> graph -> text and JSON -> graph -> JSON are byte-identical.
TEST(FormatsRoundTrip, AllOpsTextAndJsonThroughTheGraph) {
  const auto samples = op_samples();
  size_t covered = 0;
  for (size_t i = 0; i < kOpCount; ++i) {
    const std::string op(op_name(static_cast<OpType>(i)));
    auto it = samples.find(op);
    ASSERT_NE(it, samples.end()) << "no round-trip sample for " << op;
    const std::string text = canonical_file(op, it->second);
    SCOPED_TRACE(text);
    GraphDoc doc = parse_ok(text);
    // The sample itself is canonical.
    Result<std::string> printed = print_webnn_text(doc);
    ASSERT_TRUE(printed) << printed.error().message;
    ASSERT_EQ(*printed, text);
    Graph g;
    try {
      g = build_doc(doc);
    } catch (const std::exception& e) {
      FAIL() << op << ": " << e.what();
    }
    ASSERT_EQ(g.operations.size(), 1u);
    EXPECT_EQ(g.operations[0].type, static_cast<OpType>(i));
    GraphToDocOptions options;
    options.name = op;
    Result<GraphDoc> back = graph_to_doc(g, options);
    ASSERT_TRUE(back) << back.error().message;
    Result<std::string> text2 = print_webnn_text(*back);
    ASSERT_TRUE(text2) << text2.error().message;
    EXPECT_EQ(*text2, text) << op;
    // JSON -> graph -> JSON.
    const std::string json = print_graph_json(doc);
    Result<GraphDoc> from_json = parse_graph_json(json, "g.json");
    ASSERT_TRUE(from_json);
    Result<GraphDoc> back_json = graph_to_doc(build_doc(*from_json), options);
    ASSERT_TRUE(back_json);
    EXPECT_EQ(print_graph_json(*back_json), json) << op;
    ++covered;
  }
  EXPECT_EQ(covered, kOpCount);
  EXPECT_EQ(samples.size(), kOpCount);  // no sample for an op that does not exist
}

// A graph recorded through the typed API prints as text that loads back to the same graph.
TEST(FormatsRoundTrip, ApiGraphPrintsAndLoadsBack) {
  MLContext ctx = testing::reference_context();
  MLGraphBuilder b(ctx);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, 2, 4, 4}});
  std::vector<float> w(2 * 2 * 3 * 3, 0.5f);
  MLOperand f =
      b.constant({MLOperandDataType::kFloat32, {2, 2, 3, 3}}, std::as_bytes(std::span(w)));
  MLOperand c = b.conv2d(x, f, {.padding = {1, 1, 1, 1}, .label = "stem"});
  MLOperand r = b.relu(c);
  auto parts = b.split(r, 2, {.axis = 1});
  MLOperand s = b.add(parts[0], parts[1]);
  MLGraph graph = b.build({{"out", s}, {"act", r}});

  const std::string text = graph_to_webnn_text(graph.graph(), {.name = "api"});
  EXPECT_NE(text.find("act = relu(conv2d_0);"), std::string::npos) << text;
  EXPECT_NE(text.find("conv2d_0 = conv2d(x, const_0, label=\"stem\", padding=[1, 1, 1, 1]);"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[split_2_0, split_2_1] = split(act, axis=1, splits=2);"), std::string::npos)
      << text;
  MLGraphBuilder b2(ctx);
  MLNamedOperands outs = load_graph_file(b2, text, "api.webnn");
  MLGraph again = b2.build(outs);
  EXPECT_EQ(graph_to_webnn_text(again.graph(), {.name = "api"}), text);
  EXPECT_EQ(graph_to_graph_json(again.graph()), graph_to_graph_json(graph.graph()));
}

// Integers above the int64 range stay exact integers in text -> JSON -> text (the reference
// reads them as f64: 18446744073709551615 became 1.8446744073709552e19, and a uint64 constant
// 10000000000000000001 became 1e19).
TEST(FormatsRoundTrip, Uint64LiteralsStayExact) {
  const std::string text = R"(webnn_graph "u" v1 {
  inputs { x: u64[2]; }
  consts { c: u64[] @scalar(10000000000000000001); }
  nodes {
    s = add(x, c);
    y = clamp(s, maxValue=18446744073709551615);
  }
  outputs { y; }
}
)";
  const GraphDoc doc = parse_ok(text);
  const std::string json = print_graph_json(doc);
  EXPECT_NE(json.find("\"maxValue\": 18446744073709551615"), std::string::npos) << json;
  EXPECT_NE(json.find("\"value\": 10000000000000000001"), std::string::npos) << json;
  Result<GraphDoc> back = parse_graph_json(json, "u.json");
  ASSERT_TRUE(back) << back.error().message;
  Result<std::string> again = print_webnn_text(*back);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_NE(again->find("maxValue=18446744073709551615"), std::string::npos) << *again;
  EXPECT_NE(again->find("@scalar(10000000000000000001)"), std::string::npos) << *again;
}

// Builder errors carry the node id and its position; file errors name node and option.
TEST(FormatsRoundTrip, BuilderErrorsNameTheNode) {
  auto error = [](std::string_view text) -> std::string {
    MLGraphBuilder b(testing::reference_context());
    Result<GraphDoc> doc = parse_webnn_text(text, "e.webnn");
    if (!doc) return doc.error().message;
    Result<MLNamedOperands> r = record_graph_doc(*doc, b, nullptr, "e.webnn");
    return r ? std::string() : r.error().message;
  };
  std::string e = error(
      "webnn_graph \"g\" v1 {\n  inputs { x: f32[2, 3]; w: f32[4, 5]; }\n  nodes {\n"
      "    y = matmul(x, w);\n  }\n  outputs { y; }\n}\n");
  EXPECT_EQ(e.rfind("e.webnn:4:5: node 'y': matmul", 0), 0u) << e;
  e = error("webnn_graph \"g\" v1 { inputs { x: f32[2]; } nodes { y = frob(x); } outputs { y; } }");
  EXPECT_NE(e.find("node 'y': unknown op 'frob'"), std::string::npos) << e;
  e = error(
      "webnn_graph \"g\" v1 { inputs { x: f32[1,2,3,3]; } nodes { y = "
      "instanceNormalization(x, scale=nope); } outputs { y; } }");
  EXPECT_NE(e.find("node 'y': option 'scale' names unknown value 'nope'"), std::string::npos) << e;
  e = error("webnn_graph \"g\" v1 { consts { w: f32[2]; } nodes { y = relu(w); } outputs { y; } }");
  EXPECT_NE(e.find("constant 'w': @weights(\"w\") needs a weights file"), std::string::npos) << e;
  e = error(
      "webnn_graph \"g\" v1 { consts { w: f32[2] @bytes([1]); } nodes { y = relu(w); } "
      "outputs { y; } }");
  EXPECT_NE(e.find("constant 'w': constant: the buffer has 1 bytes"), std::string::npos) << e;
  e = error(
      "webnn_graph \"g\" v1 { inputs { x: f32[4]; } nodes { y = split(x, splits=2); } "
      "outputs { y; } }");
  EXPECT_NE(e.find("name them with [a, b, ...]"), std::string::npos) << e;
  e = error(
      "webnn_graph \"g\" v1 { inputs { x: f32[dyn(\"n\", 0)]; } nodes { y = relu(x); } "
      "outputs { y; } }");
  EXPECT_NE(e.find("maximum 0"), std::string::npos) << e;
  EXPECT_EQ(error("webnn_graph \"g\" v1 { inputs { x: f32[2]; } nodes { y = relu(x); } "
                  "outputs { y; } }"),
            "");
  // Structural validation runs first (§6.1).
  EXPECT_EQ(error("webnn_graph \"g\" v1 { nodes { y = relu(x); } outputs { y; } }"),
            "unknown reference 'x' used in node 'y'");
}

// @scalar fills the declared shape; 4-bit bytes stay packed.
TEST(FormatsRoundTrip, ConstantInitializers) {
  Graph g = build_doc(
      parse_ok("webnn_graph \"g\" v1 { inputs { x: f32[3]; } consts { s: f32[3] @scalar(2); } "
               "nodes { y = mul(x, s); } outputs { y; } }"));
  bool found = false;
  for (const OperandInfo& info : g.operands) {
    if (info.kind != OperandKind::kConstant) continue;
    found = true;
    const auto bytes = g.constants[info.producer].bytes();
    ASSERT_EQ(bytes.size(), 12u);
    float v[3];
    std::memcpy(v, bytes.data(), 12);
    EXPECT_EQ(v[0], 2.0f);
    EXPECT_EQ(v[2], 2.0f);
    EXPECT_EQ(info.name, "s");
    EXPECT_EQ(info.scalar_fill, MLNumber(2LL));
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace cppnn::formats
