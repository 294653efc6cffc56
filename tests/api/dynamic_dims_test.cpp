// Dynamic dimensions at dispatch (docs/dynamic-dimensions.md): a graph with dyn("seq", 8) inputs
// dispatched at smaller sizes on every compiled-in backend (symbolic reshape, slice and expand
// sizes, a provably sound reshape re-derivation, the cache of re-derived graphs), the binding
// errors, the errors of sizes that cannot be re-derived, and the files' symbolic sizes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cppnn/formats.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "tests/api/api_test_util.h"

namespace cppnn::testing {
namespace {

constexpr uint32_t kMax = 8;

// h = x + pos[:seq] (position embeddings sliced to the sequence length); t = h reshaped to
// [seq, 2, 2] and transposed; flat = h reshaped to [1, 4*seq] without symbolic sizes (the sound
// re-derivation); mask = m as [1, 1, seq] expanded to [1, seq, seq].
const char* kGraph = R"(webnn_graph "dyn" v2 {
  inputs {
    m: f32[1, dyn("seq", 8)];
    x: f32[1, dyn("seq", 8), 4];
  }
  consts {
    pos: f32[8, 4] @weights("pos");
  }
  nodes {
    p = slice(pos, starts=[0, 0], sizes=[dyn("seq", 8), 4]);
    pr = reshape(p, newShape=[1, dyn("seq", 8), 4]);
    h = add(x, pr);
    r = reshape(h, newShape=[dyn("seq", 8), 2, 2]);
    t = transpose(r, permutation=[1, 0, 2]);
    flat = reshape(h, newShape=[1, 32]);
    m3 = reshape(m, newShape=[1, 1, dyn("seq", 8)]);
    mask = expand(m3, newShape=[1, dyn("seq", 8), dyn("seq", 8)]);
  }
  outputs { flat; mask; t; }
}
)";

std::vector<float> positions() {
  std::vector<float> v(kMax * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 100.0f * static_cast<float>(i);
  return v;
}

WeightLoader pos_loader() {
  return [](const std::string&, const std::string&, const MLOperandDescriptor&) {
    std::vector<float> p = positions();
    return ConstantData::copy_of(std::as_bytes(std::span(p)));
  };
}

MLGraph load(MLContext& context, const char* text) {
  MLGraphBuilder builder(context);
  return builder.build(load_graph_file(builder, text, "dyn.webnn", pos_loader()));
}

uint64_t derivations(const MLGraph& g) {
  return g.state()->dynamic ? g.state()->dynamic->derivations : 0;
}

// Runs the graph at `seq` and checks every output against values computed here.
void run_at(MLContext& context, const MLGraph& graph, uint32_t seq) {
  SCOPED_TRACE("seq=" + std::to_string(seq));
  std::vector<float> x(seq * 4), m(seq);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i) + 0.5f;
  MLTensor tx = input_tensor(context, F32, {1, seq, 4}, x);
  MLTensor tm = input_tensor(context, F32, {1, seq}, m);
  MLTensor flat = output_tensor(context, F32, {1, 4 * seq});
  MLTensor mask = output_tensor(context, F32, {1, seq, seq});
  MLTensor t = output_tensor(context, F32, {2, seq, 2});
  context.dispatch(graph, {{"x", tx}, {"m", tm}}, {{"flat", flat}, {"mask", mask}, {"t", t}});
  const std::vector<float> pos = positions();
  std::vector<float> h(seq * 4);
  for (size_t i = 0; i < h.size(); ++i) h[i] = x[i] + pos[i];
  EXPECT_EQ(context.readTensor<float>(flat), h);
  std::vector<float> want_t(seq * 4), want_mask(seq * seq);
  for (uint32_t s = 0; s < seq; ++s)
    for (uint32_t a = 0; a < 2; ++a)
      for (uint32_t b = 0; b < 2; ++b) want_t[(a * seq + s) * 2 + b] = h[s * 4 + a * 2 + b];
  for (uint32_t i = 0; i < seq; ++i)
    for (uint32_t j = 0; j < seq; ++j) want_mask[i * seq + j] = m[j];
  EXPECT_EQ(context.readTensor<float>(t), want_t);
  EXPECT_EQ(context.readTensor<float>(mask), want_mask);
}

class DynamicDims : public ::testing::TestWithParam<std::string> {
 protected:
  MLContext context = MLContext::create({.backend = GetParam()});
};

TEST_P(DynamicDims, DispatchesAtSmallerSizesAndCachesEachTuple) {
  MLGraph graph = load(context, kGraph);
  EXPECT_EQ(graph.inputs().at("x"), (MLOperandDescriptor{F32, {1, kMax, 4}}));
  run_at(context, graph, 3);
  EXPECT_EQ(derivations(graph), 1u);
  run_at(context, graph, kMax);  // the graph as built
  EXPECT_EQ(derivations(graph), 1u);
  run_at(context, graph, 1);
  run_at(context, graph, 3);  // from the cache
  EXPECT_EQ(derivations(graph), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, DynamicDims, ::testing::ValuesIn(available_backends()),
                         [](const auto& info) { return info.param; });

// The message of the exception `f` throws, checked to be of type E.
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return "";
}

class DynamicDimsErrors : public ::testing::Test {
 protected:
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraph graph = load(context, kGraph);

  std::string dispatch_error(uint32_t seq_x, uint32_t seq_m, uint32_t seq_out) {
    MLTensor tx = input_tensor(context, F32, {1, seq_x, 4}, std::vector<float>(seq_x * 4));
    MLTensor tm = input_tensor(context, F32, {1, seq_m}, std::vector<float>(seq_m));
    MLTensor flat = output_tensor(context, F32, {1, 4 * seq_out});
    MLTensor mask = output_tensor(context, F32, {1, seq_out, seq_out});
    MLTensor t = output_tensor(context, F32, {2, seq_out, 2});
    return error_of<TypeError>([&] {
      context.dispatch(graph, {{"x", tx}, {"m", tm}}, {{"flat", flat}, {"mask", mask}, {"t", t}});
    });
  }
};

TEST_F(DynamicDimsErrors, AboveTheMaximum) {
  EXPECT_EQ(dispatch_error(9, 9, 9),
            "dispatch: input \"m\" dimension 1 (\"seq\") is 9, outside 1..8");
}

TEST_F(DynamicDimsErrors, OneNameTwoSizes) {
  EXPECT_EQ(dispatch_error(3, 4, 4),
            "dispatch: input \"x\" dimension 1 (\"seq\") is 3 but input \"m\" gives \"seq\" = 4");
}

TEST_F(DynamicDimsErrors, OutputsOfAnotherSize) {
  EXPECT_EQ(dispatch_error(3, 3, 4),
            "dispatch: outputs \"flat\" expects float32[1,12] (at seq=3), the bound tensor is "
            "float32[1,16]");
}

TEST_F(DynamicDimsErrors, StaticDimensionsStayFixed) {
  MLTensor tx = input_tensor(context, F32, {1, 3, 5}, std::vector<float>(15));
  MLTensor tm = input_tensor(context, F32, {1, 3}, std::vector<float>(3));
  MLTensor flat = output_tensor(context, F32, {1, 12});
  MLTensor mask = output_tensor(context, F32, {1, 3, 3});
  MLTensor t = output_tensor(context, F32, {2, 3, 2});
  EXPECT_EQ(
      error_of<TypeError>([&] {
        context.dispatch(graph, {{"x", tx}, {"m", tm}}, {{"flat", flat}, {"mask", mask}, {"t", t}});
      }),
      "dispatch: input \"x\" dimension 2 is static 4, the bound tensor has 5 "
      "(float32[1,3,5])");
}

// A size that does not follow the sequence length (pos sliced at a fixed 8 rows) is an error at
// the dispatch that needs it, naming the operation and the sizes, never a wrong-size result.
TEST(DynamicDimsRederive, UnderivableSizeIsAnError) {
  MLContext context = MLContext::create({.backend = "reference"});
  const char* text = R"(webnn_graph "dyn" v2 {
  inputs { x: f32[dyn("seq", 8), 4]; }
  consts { pos: f32[8, 4] @weights("pos"); }
  nodes {
    p = slice(pos, starts=[0, 0], sizes=[8, 4]);
    h = add(x, p);
  }
  outputs { h; }
})";
  MLGraph graph = load(context, text);
  MLTensor x = input_tensor(context, F32, {3, 4}, std::vector<float>(12));
  MLTensor h = output_tensor(context, F32, {3, 4});
  const std::string e = error_of<NotSupportedError>([&] {
    context.dispatch(graph, {{"x", x}}, {{"h", h}});
  });
  EXPECT_NE(e.find("at seq=3: operation 1 (add) cannot run at these sizes"), std::string::npos)
      << e;
  // At the maximum the graph runs as built.
  MLTensor x8 = input_tensor(context, F32, {8, 4}, std::vector<float>(32));
  MLTensor h8 = output_tensor(context, F32, {8, 4});
  context.dispatch(graph, {{"x", x8}}, {{"h", h8}});
  EXPECT_EQ(context.readTensor<float>(h8), positions());
}

// A reshape that splits the changed dimension among several output dimensions has no sound
// re-derivation without symbolic sizes.
TEST(DynamicDimsRederive, AmbiguousReshapeIsAnError) {
  MLContext context = MLContext::create({.backend = "reference"});
  const char* text = R"(webnn_graph "dyn" v2 {
  inputs { x: f32[dyn("seq", 8)]; }
  nodes { y = reshape(x, newShape=[2, 4]); }
  outputs { y; }
})";
  MLGraph graph = load(context, text);
  MLTensor x = input_tensor(context, F32, {4}, std::vector<float>(4));
  MLTensor y = output_tensor(context, F32, {2, 2});
  const std::string e = error_of<NotSupportedError>([&] {
    context.dispatch(graph, {{"x", x}}, {{"y", y}});
  });
  EXPECT_NE(e.find("at seq=4: operation 0 (reshape)"), std::string::npos) << e;
  EXPECT_NE(e.find("several output dimensions"), std::string::npos) << e;
}

// The cache keeps the most recently used re-derived graphs only.
TEST(DynamicDimsRederive, CacheIsBounded) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraph graph = load(context, R"(webnn_graph "dyn" v2 {
  inputs { x: f32[dyn("n", 16)]; }
  nodes { y = relu(x); }
  outputs { y; }
})");
  auto run = [&](uint32_t n) {
    MLTensor x = input_tensor(context, F32, {n}, std::vector<float>(n, -1.0f));
    MLTensor y = output_tensor(context, F32, {n});
    context.dispatch(graph, {{"x", x}}, {{"y", y}});
  };
  for (uint32_t n = 1; n < 16; ++n) run(n);
  const detail::DynamicDispatch& dd = *graph.state()->dynamic;
  EXPECT_EQ(dd.derivations, 15u);
  EXPECT_EQ(dd.cache.size(), detail::DynamicDispatch::kMaxSpecializations);
  run(15);  // still cached
  EXPECT_EQ(dd.derivations, 15u);
  run(1);  // evicted: derived again
  EXPECT_EQ(dd.derivations, 16u);
  EXPECT_EQ(graph.outputs_for({{"x", {F32, {5}}}}).at("y"), (MLOperandDescriptor{F32, {5}}));
}

// The same through the C++ builder API: dynamic_input() and set_symbolic_size().
TEST(DynamicDimsApi, DynamicInputAndSymbolicSize) {
  MLContext context = MLContext::create({.backend = "cpu"});
  MLGraphBuilder b(context);
  MLOperand x = dynamic_input(b, "x", {F32, {8, 4}}, {"seq", ""});
  MLOperand r = b.reshape(x, {32});
  EXPECT_THROW(set_symbolic_size(b, r, "newShape", 0, "seq"), TypeError);
  EXPECT_THROW(set_symbolic_size(b, r, "newShape", 0, "4*len"), TypeError);
  EXPECT_THROW(set_symbolic_size(b, r, "newShape", 1, "4*seq"), TypeError);
  set_symbolic_size(b, r, "newShape", 0, "4*seq");
  MLOperand tail = b.slice(r, {28}, {4});
  set_symbolic_size(b, tail, "starts", 0, "4*seq-4");
  MLGraph graph = b.build({{"y", b.relu(tail)}});
  MLTensor tx = input_tensor(context, F32, {2, 4}, std::vector<float>{0, -1, 2, -3, 4, -5, 6, -7});
  MLTensor ty = output_tensor(context, F32, {4});
  context.dispatch(graph, {{"x", tx}}, {{"y", ty}});
  EXPECT_EQ(context.readTensor<float>(ty), (std::vector<float>{4, 0, 6, 0}));
}

// Symbolic sizes survive the text and GraphJson printers and readers; files without them print
// as before.
TEST(DynamicDimsFiles, SymbolicSizesRoundTrip) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraph graph = load(context, kGraph);
  const std::string text = graph_to_webnn_text(graph.graph(), {.name = "dyn"});
  EXPECT_NE(text.find("sizes=[dyn(\"seq\", 8), 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("newShape=[1, dyn(\"seq\", 8), dyn(\"seq\", 8)]"), std::string::npos) << text;
  EXPECT_NE(text.find("newShape=[1, 32]"), std::string::npos) << text;
  const std::string json = graph_to_graph_json(graph.graph(), {.name = "dyn"});
  EXPECT_NE(json.find("\"dyn\": \"seq\""), std::string::npos) << json;
  EXPECT_EQ(graph_json_to_webnn_text(json), text);
  EXPECT_EQ(webnn_text_to_json(text), json);
  MLGraphBuilder b2(context);
  MLGraph again = b2.build(load_graph_file(b2, json, "dyn.json", pos_loader()));
  EXPECT_EQ(graph_to_webnn_text(again.graph(), {.name = "dyn"}), text);
  EXPECT_EQ(again.graph().content_hash(), graph.graph().content_hash());
}

TEST(DynamicDimsFiles, ExpressionsWithScaleAndOffset) {
  MLContext context = MLContext::create({.backend = "reference"});
  const char* text = R"(webnn_graph "dyn" v2 {
  inputs { x: f32[dyn("seq", 8), 3]; }
  nodes {
    f = reshape(x, newShape=[dyn("3*seq", 24)]);
    y = slice(f, starts=[1], sizes=[dyn("3*seq-2", 22)]);
  }
  outputs { y; }
})";
  MLGraph graph = load(context, text);
  EXPECT_NE(graph_to_webnn_text(graph.graph(), {.name = "dyn"}).find("dyn(\"3*seq-2\", 22)"),
            std::string::npos);
  MLTensor x = input_tensor(context, F32, {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5});
  MLTensor y = output_tensor(context, F32, {4});
  context.dispatch(graph, {{"x", x}}, {{"y", y}});
  EXPECT_EQ(context.readTensor<float>(y), (std::vector<float>{1, 2, 3, 4}));
}

TEST(DynamicDimsFiles, WrongRecordedSizeOrUnknownNameIsADataError) {
  MLContext context = MLContext::create({.backend = "reference"});
  auto error = [&](const std::string& shape) {
    const std::string text =
        "webnn_graph \"dyn\" v2 { inputs { x: f32[dyn(\"seq\", 8)]; } nodes { y = reshape(x, "
        "newShape=" +
        shape + "); } outputs { y; } }";
    MLGraphBuilder b(context);
    return error_of<DataError>([&] { load_graph_file(b, text, "d.webnn"); });
  };
  EXPECT_NE(error("[dyn(\"seq\", 7)]").find("dyn(\"seq\", 7) must give 8 at seq = 8"),
            std::string::npos);
  EXPECT_NE(error("[dyn(\"len\", 8)]").find("dyn(\"len\") names no dynamic input dimension"),
            std::string::npos);
  EXPECT_NE(error("[dyn(\"0*seq\", 0)]").find("the scale must be a positive integer"),
            std::string::npos);
}

}  // namespace
}  // namespace cppnn::testing
