// Per-operation profiles (MLContextOptions::profile, MLGraph::profile(), cppnn/profile.h): every
// operation of every dispatch timed on the backends that run kernels one by one, fast and
// reference kernels told apart, compiled forms of a dynamic graph merged, the Chrome trace, and
// `cppnn bench`'s warm-up subtraction (tools/cppnn/profile_report.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "tests/api/api_test_util.h"
#include "tools/cppnn/profile_report.h"

namespace cppnn::testing {
namespace {

// y = cumulativeSum(relu(matmul(x, w) + bias), 1) * 2 over x [2, 4], w [4, 3]; every op labelled
// but the last.
MLGraph build_profiled(MLContext& context) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {F32, {2, 4}});
  MLOperand w = b.constant<float>({F32, {4, 3}}, std::vector<float>(12, 0.5f));
  MLOperand bias = b.constant<float>({F32, {3}}, std::vector<float>{1, -100, 2});
  MLOperand h = b.matmul(x, w, {.label = "proj"});
  MLOperand biased = b.add(h, bias, {.label = "bias"});
  MLOperand r = b.relu(biased, {.label = "act"});
  MLOperand c = b.cumulativeSum(r, 1, {.label = "cumsum"});
  MLOperand two = b.constant<float>({F32, {1}}, std::vector<float>{2});
  return b.build({{"y", b.mul(c, two)}});
}

// Dispatches the graph of build_profiled() `times` times and checks its output.
void run(MLContext& context, MLGraph& graph, int times) {
  MLTensor x = input_tensor(context, F32, {2, 4}, std::vector<float>{1, 2, 3, 4, -1, -2, -3, -4});
  MLTensor y = output_tensor(context, F32, {2, 3});
  for (int i = 0; i < times; ++i) context.dispatch(graph, {{"x", x}}, {{"y", y}});
  // Row 0: matmul 5 each, + bias -> 6, -95, 7 -> relu 6, 0, 7 -> cumsum 6, 6, 13 -> x2.
  EXPECT_EQ(context.readTensor<float>(y), (std::vector<float>{12, 12, 26, 0, 0, 0}));
}

const MLOperationProfile* find(const MLGraphProfile& p, const std::string& name) {
  for (const MLOperationProfile& o : p.operations)
    if (o.name == name) return &o;
  return nullptr;
}

bool compiled_in(const std::string& backend) {
  const auto all = compiled_backends();
  return std::find(all.begin(), all.end(), backend) != all.end();
}

TEST(Profile, OffByDefault) {
  MLContext context = MLContext::create({.backend = "cpu"});
  MLGraph graph = build_profiled(context);
  run(context, graph, 2);
  const MLGraphProfile p = graph.profile();
  EXPECT_FALSE(p.available);
  EXPECT_EQ(p.dispatches, 0u);
  EXPECT_TRUE(p.operations.empty());
  EXPECT_TRUE(p.events.empty());
}

TEST(Profile, ReferenceTimesEveryOperationByLabel) {
  MLContext context = MLContext::create({.backend = "reference", .profile = true});
  MLGraph graph = build_profiled(context);
  EXPECT_TRUE(graph.profile().available);
  EXPECT_EQ(graph.profile().dispatches, 0u);
  run(context, graph, 3);
  const MLGraphProfile p = graph.profile();
  ASSERT_TRUE(p.available);
  EXPECT_EQ(p.dispatches, 3u);
  EXPECT_GT(p.seconds, 0.0);
  // The reference backend runs the graph as built: five operations, in order, the unlabelled mul
  // named by its op and index.
  std::vector<std::string> names, ops;
  double sum = 0;
  for (const MLOperationProfile& o : p.operations) {
    names.push_back(o.name);
    ops.push_back(o.op);
    EXPECT_EQ(o.kernel, "reference") << o.name;
    EXPECT_EQ(o.runs, 3u) << o.name;
    sum += o.seconds;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"proj", "bias", "act", "cumsum", "mul#4"}));
  EXPECT_EQ(ops, (std::vector<std::string>{"matmul", "add", "relu", "cumulativeSum", "mul"}));
  EXPECT_LE(sum, p.seconds * 1.0001);
  // One event per run, in time order, inside the dispatches.
  ASSERT_EQ(p.events.size(), 15u);
  for (size_t i = 0; i < p.events.size(); ++i) {
    EXPECT_EQ(p.events[i].operation, i % 5);
    EXPECT_GE(p.events[i].duration_us, 0.0);
    if (i > 0) {
      EXPECT_GE(p.events[i].start_us, p.events[i - 1].start_us);
    }
  }
}

TEST(Profile, CpuTellsFastKernelsFromReferenceOnes) {
  MLContext context = MLContext::create({.backend = "cpu", .profile = true});
  MLGraph graph = build_profiled(context);
  run(context, graph, 2);
  const MLGraphProfile p = graph.profile();
  ASSERT_TRUE(p.available);
  EXPECT_EQ(p.dispatches, 2u);
  // The matmul runs on the cpu backend's own kernel (its bias and relu may be fused into it);
  // cumulativeSum has no fast kernel.
  const MLOperationProfile* proj = find(p, "proj");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->kernel, "fast");
  const MLOperationProfile* cumsum = find(p, "cumsum");
  ASSERT_NE(cumsum, nullptr);
  EXPECT_EQ(cumsum->kernel, "reference");
  EXPECT_EQ(cumsum->op, "cumulativeSum");
  for (const MLOperationProfile& o : p.operations) EXPECT_EQ(o.runs, 2u) << o.name;
  EXPECT_EQ(p.events.size(), 2 * p.operations.size());
}

TEST(Profile, ChromeTraceHasOneCompleteEventPerRun) {
  MLContext context = MLContext::create({.backend = "reference", .profile = true});
  MLGraph graph = build_profiled(context);
  run(context, graph, 2);
  const MLGraphProfile p = graph.profile();
  const nlohmann::json trace = nlohmann::json::parse(chrome_trace_json(p));
  const nlohmann::json& events = trace.at("traceEvents");
  ASSERT_EQ(events.size(), p.events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const MLOperationProfile& o = p.operations[p.events[i].operation];
    EXPECT_EQ(events[i].at("ph"), "X");
    EXPECT_EQ(events[i].at("name"), o.name);
    EXPECT_EQ(events[i].at("cat"), o.kernel);
    EXPECT_EQ(events[i].at("args").at("op"), o.op);
    EXPECT_DOUBLE_EQ(events[i].at("ts").get<double>(), p.events[i].start_us);
  }
  EXPECT_EQ(trace.at("otherData").at("dispatches"), 2);
  // An empty profile is an empty, valid trace.
  EXPECT_TRUE(nlohmann::json::parse(chrome_trace_json({})).at("traceEvents").empty());
}

TEST(Profile, DynamicGraphMergesItsCompiledForms) {
  MLContext context = MLContext::create({.backend = "cpu", .profile = true});
  MLGraphBuilder b(context);
  MLOperand x = dynamic_input(b, "x", {F32, {8, 4}}, {"seq", ""});
  MLGraph graph =
      b.build({{"y", b.cumulativeSum(b.relu(x, {.label = "act"}), 1, {.label = "cumsum"})}});
  for (uint32_t seq : {2u, 5u, 2u, 8u}) {
    MLTensor tx = input_tensor(context, F32, {seq, 4}, std::vector<float>(seq * 4, 1.0f));
    MLTensor ty = output_tensor(context, F32, {seq, 4});
    context.dispatch(graph, {{"x", tx}}, {{"y", ty}});
  }
  const MLGraphProfile p = graph.profile();
  ASSERT_TRUE(p.available);
  EXPECT_EQ(p.dispatches, 4u);
  ASSERT_NE(find(p, "act"), nullptr);
  ASSERT_NE(find(p, "cumsum"), nullptr);
  EXPECT_EQ(find(p, "act")->runs, 4u);
  EXPECT_EQ(find(p, "cumsum")->runs, 4u);
  EXPECT_EQ(p.events.size(), 8u);
  for (size_t i = 1; i < p.events.size(); ++i)
    EXPECT_GE(p.events[i].start_us, p.events[i - 1].start_us);
}

TEST(Profile, BackendsThatCannotTimeOperationsSaySo) {
  for (const char* backend : {"ort", "litert"}) {
    if (!compiled_in(backend)) continue;
    MLContext context = MLContext::create({.backend = backend, .profile = true});
    MLGraph graph = build_profiled(context);
    run(context, graph, 1);
    EXPECT_FALSE(graph.profile().available) << backend;
  }
}

TEST(Profile, DestroyedGraphHasNoProfile) {
  MLContext context = MLContext::create({.backend = "reference", .profile = true});
  MLGraph graph = build_profiled(context);
  run(context, graph, 1);
  graph.destroy();
  EXPECT_FALSE(graph.profile().available);
}

TEST(Profile, BenchSubtractsTheWarmUp) {
  MLContext context = MLContext::create({.backend = "reference", .profile = true});
  MLGraph graph = build_profiled(context);
  run(context, graph, 2);
  const MLGraphProfile warm = graph.profile();
  run(context, graph, 3);
  const MLGraphProfile all = graph.profile();
  const MLGraphProfile timed = tool::profile_since(warm, all);
  EXPECT_EQ(timed.dispatches, 3u);
  for (size_t i = 0; i < timed.operations.size(); ++i) {
    EXPECT_EQ(timed.operations[i].runs, 3u);
    EXPECT_NEAR(timed.operations[i].seconds, all.operations[i].seconds - warm.operations[i].seconds,
                1e-12);
  }
  EXPECT_EQ(timed.events.size(), 15u);
  EXPECT_GT(timed.events.front().start_us, warm.events.back().start_us);
  // Snapshots of different graphs are not subtracted.
  MLGraphProfile other = warm;
  other.operations.pop_back();
  EXPECT_EQ(tool::profile_since(other, all).dispatches, 5u);
  // The report prints every operation and the per-op summary.
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  tool::print_profile(out, "reference", timed, 3);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("3 dispatches"), std::string::npos) << printed;
  EXPECT_NE(printed.find("(2 more operations)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("cumulativeSum"), std::string::npos) << printed;
  EXPECT_EQ(tool::profile_json(timed).at("operations").size(), 5u);
}

}  // namespace
}  // namespace cppnn::testing
