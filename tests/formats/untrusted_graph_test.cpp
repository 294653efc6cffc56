// Graph files as untrusted input (docs/security.md): names must be UTF-8 without NUL in every
// format and in the API, misspelled options are errors (warnings in plain validate), scalar
// fills stay fills (an unused one never takes memory, an exported one is ConstantOfShape), and
// printers never write a number their readers cannot read back.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "onnx/onnx_pb.h"
#include "tests/formats/formats_test_util.h"

namespace cppnn {
namespace {

using formats::testing::reference_context;

// The message of the cppnn::Error that `f` throws, or "" when it throws none.
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string load_error(const std::string& content, const std::string& file = "g.webnn") {
  return error_message([&] {
    MLGraphBuilder builder(reference_context());
    load_graph_file(builder, content, file, nullptr);
  });
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(UntrustedGraph, NulAndInvalidUtf8InNamesAreRejectedInEveryFormat) {
  const std::string json_nul =
      R"({"format":"webnn-graph-json","version":1,"inputs":{"x":{"dataType":"float32","shape":[2]}},)"
      R"("consts":{},"nodes":[{"id":"y\u0000z","op":"relu","inputs":["x"],"options":{}}],)"
      R"("outputs":{"y":"y\u0000z"}})";
  std::string e = load_error(json_nul, "g.json");
  EXPECT_NE(e.find("NUL"), std::string::npos) << e;
  EXPECT_NE(e.find("g.json"), std::string::npos) << e;

  const std::string text_bad_utf8 =
      "webnn_graph \"g\" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = relu(x); }\n"
      "  outputs { y; }\n}\n";
  std::string bad = text_bad_utf8;
  bad.replace(bad.find("\"g\""), 3, "\"g\xff\"");
  e = load_error(bad);
  EXPECT_NE(e.find("UTF-8"), std::string::npos) << e;
  EXPECT_THROW(webnn_text_to_json(bad, "g.webnn"), DataError);
  EXPECT_EQ(load_error(text_bad_utf8), "");
}

TEST(UntrustedGraph, ApiNamesMayHoldNulButMustBeUtf8AndBindTheRightTensors) {
  // NUL is allowed (USVString, WPT unprintableNames); invalid UTF-8 is a TypeError.
  MLGraphBuilder b(reference_context());
  EXPECT_THROW(b.input("x\xc0\xaf", {MLOperandDataType::kFloat32, {2}}), TypeError);
  MLOperand x0 = b.input("x", {MLOperandDataType::kFloat32, {2}});
  EXPECT_THROW(b.relu(x0, {.label = "a\xff"}), TypeError);
  EXPECT_THROW(b.build({{"y\xed\xa0\x80", b.relu(x0)}}), TypeError);  // a surrogate
  // Names that differ only after a NUL bind to their own tensors on every backend (the ORT
  // backend once truncated them at the NUL and returned zeros).
  for (const char* backend : {"reference", "ort"}) {
    std::optional<MLContext> made;
    try {
      made.emplace(MLContext::create({.backend = backend}));
    } catch (const Error&) {
      continue;  // not compiled in
    }
    MLContext& context = *made;
    MLGraphBuilder g(context);
    const std::string a(std::string("in\0a", 4)), c(std::string("in\0c", 4));
    MLOperand xa = g.input(a, {MLOperandDataType::kFloat32, {2}});
    MLOperand xc = g.input(c, {MLOperandDataType::kFloat32, {2}});
    MLGraph graph = g.build(
        {{std::string("out\0sum", 7), g.add(xa, xc)}, {std::string("out\0neg", 7), g.neg(xc)}});
    auto tensor = [&](bool in) {
      return context.createTensor({MLOperandDataType::kFloat32, {2}, !in, in});
    };
    MLTensor ta = tensor(true), tc = tensor(true), sum = tensor(false), neg = tensor(false);
    context.writeTensor(ta, std::vector<float>{1, 2});
    context.writeTensor(tc, std::vector<float>{10, 20});
    context.dispatch(graph, {{a, ta}, {c, tc}},
                     {{std::string("out\0sum", 7), sum}, {std::string("out\0neg", 7), neg}});
    EXPECT_EQ(context.readTensor<float>(sum), (std::vector<float>{11, 22})) << backend;
    EXPECT_EQ(context.readTensor<float>(neg), (std::vector<float>{-10, -20})) << backend;
  }
}

TEST(UntrustedGraph, MisspelledOptionsAreErrorsThatListTheKnownKeys) {
  const std::string graph =
      "webnn_graph \"g\" v1 {\n  inputs { x: f32[1, 1, 4, 4]; w: f32[1, 1, 3, 3]; }\n"
      "  nodes {\n    y = conv2d(x, w, stride=[2, 2]);\n  }\n  outputs { y; }\n}\n";
  const std::string e = load_error(graph);
  EXPECT_NE(e.find("g.webnn:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("'stride'"), std::string::npos) << e;
  EXPECT_NE(e.find("strides"), std::string::npos) << e;  // the known keys
  // Plain validation stays structural but warns.
  FormatWarnings warnings;
  EXPECT_NO_THROW(validate_graph_file(graph, "g.webnn", &warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("'stride'"), std::string::npos) << warnings[0];
  // Positional parameters and real option names are fine.
  EXPECT_EQ(load_error("webnn_graph \"g\" v1 {\n  inputs { x: f32[2, 3]; }\n"
                       "  nodes { y = softmax(x, axis=1, label=\"s\"); }\n  outputs { y; }\n}\n"),
            "");
}

TEST(UntrustedGraph, AnUnusedScalarFillTakesNoMemory) {
  // 113 bytes declaring a 1 GiB constant that nothing uses.
  const std::string graph =
      "webnn_graph \"g\" v1 {\n  inputs { x: f32[2]; }\n  consts { big: f32[268435456] "
      "@scalar(1.0); }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n";
  const long before = max_rss_kib();
  MLGraphBuilder builder(reference_context());
  MLNamedOperands outs = load_graph_file(builder, graph, "g.webnn", nullptr);
  MLGraph g = builder.build(outs);
  EXPECT_LT(max_rss_kib() - before, 64 * 1024) << "KiB of peak memory grew";
}

TEST(UntrustedGraph, UsedScalarFillsExportAsConstantOfShape) {
  const std::string graph =
      "webnn_graph \"g\" v1 {\n  inputs { x: f32[1024, 1024]; }\n  consts { k: f32[1024, 1024] "
      "@scalar(0.5); }\n  nodes { y = add(x, k); }\n  outputs { y; }\n}\n";
  MLGraphBuilder builder(MLContext::create({}));
  MLNamedOperands outs = load_graph_file(builder, graph, "g.webnn", nullptr);
  const std::string bytes = to_onnx_bytes(builder.pruned_graph(outs));
  EXPECT_LT(bytes.size(), 4096u) << "a one-number fill became a 4 MiB initializer";
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  bool found = false;
  for (const auto& n : model.graph().node()) found = found || n.op_type() == "ConstantOfShape";
  EXPECT_TRUE(found);
  // ... and the graph still runs with the fill's value.
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder b2(context);
  MLGraph built = b2.build(load_graph_file(b2, graph, "g.webnn", nullptr));
  MLTensor in = context.createTensor({MLOperandDataType::kFloat32, {1024, 1024}, false, true});
  MLTensor out = context.createTensor({MLOperandDataType::kFloat32, {1024, 1024}, true, false});
  context.writeTensor(in, std::vector<float>(1024 * 1024, 1.0f));
  context.dispatch(built, {{"x", in}}, {{"y", out}});
  EXPECT_EQ(context.readTensor<float>(out)[12345], 1.5f);
}

// Prints `graph` as text and JSON and loads both back.
void expect_round_trip(const Graph& graph) {
  const std::string text = graph_to_webnn_text(graph);
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(load_error(text), "") << text;
  const std::string json = graph_to_graph_json(graph);
  EXPECT_EQ(load_error(json, "g.json"), "") << json;
}

TEST(UntrustedGraph, NonFiniteNumbersPrintInFormsTheReadersTakeBack) {
  const double inf = std::numeric_limits<double>::infinity();
  MLGraphBuilder b(reference_context());
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {2, 3}});
  MLOperand c = b.clamp(x, {.minValue = MLNumber(0.0), .maxValue = MLNumber(inf)});
  MLOperand p = b.pad(c, {1, 0}, {0, 1}, {.value = MLNumber(-inf)});
  MLOperand k = b.constant_fill({MLOperandDataType::kFloat32, {1}}, MLNumber(-inf));
  MLOperand s = b.add(b.reshape(p, {12}), b.expand(k, {12}));
  Graph graph = b.pruned_graph({{"y", s}});
  const std::string text = graph_to_webnn_text(graph);
  EXPECT_EQ(text.find("maxValue"), std::string::npos) << "a default bound is omitted\n" << text;
  EXPECT_NE(text.find("\"-Infinity\""), std::string::npos) << text;
  expect_round_trip(graph);
}

TEST(UntrustedGraph, SaveGraphFileWritesTheGraphAndItsWeightsTogether) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "cppnn-save-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  MLGraphBuilder b(reference_context());
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {256, 256}});
  std::vector<float> w(256 * 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 13);
  MLOperand k = b.constant({MLOperandDataType::kFloat32, {256, 256}}, w);
  Graph graph = b.pruned_graph({{"y", b.add(x, k)}});
  save_graph_file(graph, dir / "net.webnn");
  ASSERT_TRUE(fs::exists(dir / "net.safetensors"));
  MLGraphBuilder b2(reference_context());
  std::optional<ExternalWeights> weights;
  auto loader = [&](const std::string& name, const std::string& ref,
                    const MLOperandDescriptor& desc) {
    if (!weights) weights = ExternalWeights::for_graph(dir / "net.webnn");
    return weights->load(ref, desc, name);
  };
  std::ifstream in(dir / "net.webnn");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  MLNamedOperands outs = load_graph_file(b2, text, (dir / "net.webnn").string(), loader);
  Graph back = b2.pruned_graph(outs);
  bool found = false;
  for (const OperandInfo& info : back.operands)
    if (info.kind == OperandKind::kConstant) {
      const auto bytes = back.constants.at(info.producer).bytes();
      found =
          bytes.size() == w.size() * 4 && std::memcmp(bytes.data(), w.data(), bytes.size()) == 0;
    }
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

TEST(UntrustedGraph, TypedConstantAndWriteTensorOverloads) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat16, {2}});
  MLOperand w = b.constant({MLOperandDataType::kFloat16, {2}},
                           std::vector<Float16>{Float16(1.5f), Float16(-2.0f)});
  EXPECT_THROW(b.constant({MLOperandDataType::kInt32, {2}}, std::vector<float>{1, 2}), TypeError);
  EXPECT_THROW(b.constant({MLOperandDataType::kFloat32, {3}}, std::vector<float>{1, 2}), TypeError);
  MLGraph g = b.build({{"y", b.mul(x, w)}});
  MLTensor in = context.createTensor({MLOperandDataType::kFloat16, {2}, false, true});
  MLTensor out = context.createTensor({MLOperandDataType::kFloat16, {2}, true, false});
  EXPECT_THROW(context.writeTensor(in, std::vector<float>{1, 2}), TypeError);
  context.writeTensor(in, std::vector<Float16>{Float16(2.0f), Float16(3.0f)});
  context.dispatch(g, {{"x", in}}, {{"y", out}});
  const std::vector<Float16> y = context.readTensor<Float16>(out);
  EXPECT_EQ(static_cast<float>(y[0]), 3.0f);
  EXPECT_EQ(static_cast<float>(y[1]), -6.0f);
}

}  // namespace
}  // namespace cppnn
