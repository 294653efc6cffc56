// Parse throughput of the graph formats (webnn-graph-format.md §3, §4): the .webnn text reader
// and the GraphJson reader on generated graphs of 1k and 100k nodes, and on graphs carrying large
// inline data (a 16 MiB inlineBytes constant, compact and pretty-printed, and a node option holding
// 1M floats), with nlohmann::json parsing the same JSON bytes as the peer. Reported as
// bytes_per_second (MB/s).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "src/formats/graph_doc.h"
#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"

namespace {

using namespace cppnn;
using namespace cppnn::formats;

// A transformer-like chain: matmul, add, layerNormalization, gelu, reshape, softmax, split and
// concat with ONNX-style names, operand and list options, weights refs and inline scalars.
GraphDoc generate(size_t nodes) {
  GraphDoc d;
  d.name = "bench";
  d.version = 2;
  d.inputs["/model/input_ids"] = DocInput{MLOperandDataType::kFloat32, {{8, "batch"}, {64, ""}}};
  std::string prev = "/model/input_ids";
  for (size_t i = 0; i < nodes; ++i) {
    const std::string layer = "/model/layers." + std::to_string(i / 8) + "/";
    const std::string id = layer + "op_" + std::to_string(i) + "/output_0";
    DocNode n;
    n.id = id;
    switch (i % 8) {
      case 0: {
        const std::string w = layer + "attn.q_proj.weight";
        d.consts[w] =
            DocConst{MLOperandDataType::kFloat32, {64, 64}, {DocInit::Kind::kWeights, w, {}, {}}};
        n.op = "matmul";
        n.inputs = {prev, w};
        break;
      }
      case 1: {
        const std::string b = layer + "attn.bias_" + std::to_string(i);
        d.consts[b] = DocConst{MLOperandDataType::kFloat32,
                               {64},
                               {DocInit::Kind::kScalar, "", DocValue::floating(0.125), {}}};
        n.op = "add";
        n.inputs = {prev, b};
        break;
      }
      case 2:
        n.op = "layerNormalization";
        n.inputs = {prev};
        n.options = {{"axes", DocValue::array({DocValue::integer(1)})},
                     {"epsilon", DocValue::floating(1e-5)}};
        break;
      case 3:
        n.op = "gelu";
        n.inputs = {prev};
        break;
      case 4:
        n.op = "reshape";
        n.inputs = {prev};
        n.options = {{"newShape", DocValue::array({DocValue::integer(8), DocValue::integer(8),
                                                   DocValue::integer(8)})}};
        break;
      case 5:
        n.op = "softmax";
        n.inputs = {prev};
        n.options = {{"axis", DocValue::integer(2)}, {"label", DocValue::string("attn probs")}};
        break;
      case 6:
        n.op = "split";
        n.inputs = {prev};
        n.outputs = std::vector<std::string>{id, id + "_b"};
        n.options = {{"axis", DocValue::integer(2)}, {"splits", DocValue::integer(2)}};
        break;
      case 7:
        n.op = "concat";
        n.inputs = {prev, prev + "_b"};
        n.options = {{"axis", DocValue::integer(2)}};
        break;
    }
    d.nodes.push_back(std::move(n));
    prev = id;
  }
  d.outputs[prev] = prev;
  return d;
}

const std::string& text_of(size_t n) {
  static std::string small = *print_webnn_text(generate(1000));
  static std::string large = *print_webnn_text(generate(100000));
  return n == 1000 ? small : large;
}
const std::string& json_of(size_t n) {
  static std::string small = print_graph_json(generate(1000));
  static std::string large = print_graph_json(generate(100000));
  return n == 1000 ? small : large;
}

// `json` without the whitespace outside strings.
std::string minify(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\') {
        out += json[++i];
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out += c;
    }
  }
  return out;
}

// A graph whose bulk is inline data: `bytes` bytes of an inlineBytes constant (a pseudo-random
// pattern) and a node option of `floats` floats.
GraphDoc generate_inline(size_t bytes, size_t floats) {
  GraphDoc d;
  d.name = "inline";
  d.inputs["x"] = DocInput{MLOperandDataType::kFloat32, {{4, ""}}};
  DocConst k{MLOperandDataType::kUint8,
             {static_cast<uint32_t>(bytes)},
             {DocInit::Kind::kInlineBytes, "", {}, {}}};
  k.init.bytes.resize(bytes);
  uint32_t state = 12345;
  for (uint8_t& b : k.init.bytes) {
    state = state * 1103515245u + 12345u;
    b = static_cast<uint8_t>(state >> 24);
  }
  d.consts["table"] = std::move(k);
  DocNode n;
  n.id = "y";
  n.op = "relu";
  n.inputs = {"x"};
  if (floats > 0) {
    DocValue values = DocValue::array();
    values.items.reserve(floats);
    for (size_t i = 0; i < floats; ++i) {
      state = state * 1103515245u + 12345u;
      values.items.push_back(
          DocValue::floating(static_cast<double>(state >> 8) / 16777216.0 - 0.5));
    }
    n.options = {{"table", std::move(values)}};
  }
  d.nodes.push_back(std::move(n));
  d.outputs["y"] = "y";
  return d;
}

// 0: 16 MiB inline bytes, compact JSON; 1: the same pretty-printed (the canonical output of §4.2,
// one element per line) with 4 MiB; 2: 1M floats in an option, compact.
const std::string& inline_json_of(int64_t which) {
  static std::string bytes_compact = minify(print_graph_json(generate_inline(16u << 20, 0)));
  static std::string bytes_pretty = print_graph_json(generate_inline(4u << 20, 0));
  static std::string floats_compact = minify(print_graph_json(generate_inline(0, 1u << 20)));
  return which == 0 ? bytes_compact : which == 1 ? bytes_pretty : floats_compact;
}

void BM_ParseText(benchmark::State& state) {
  const std::string& src = text_of(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto doc = parse_webnn_text(src, "bench.webnn");
    if (!doc) state.SkipWithError(doc.error().message.c_str());
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["bytes"] = static_cast<double>(src.size());
}

void BM_ParseGraphJson(benchmark::State& state) {
  const std::string& src = json_of(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto doc = parse_graph_json(src, "bench.json");
    if (!doc) state.SkipWithError(doc.error().message.c_str());
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["bytes"] = static_cast<double>(src.size());
}

void BM_NlohmannJson(benchmark::State& state) {
  const std::string& src = json_of(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto j = nlohmann::json::parse(src);
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["bytes"] = static_cast<double>(src.size());
}

void BM_ParseGraphJsonInline(benchmark::State& state) {
  const std::string& src = inline_json_of(state.range(0));
  for (auto _ : state) {
    auto doc = parse_graph_json(src, "bench.json");
    if (!doc) state.SkipWithError(doc.error().message.c_str());
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["bytes"] = static_cast<double>(src.size());
}

void BM_NlohmannJsonInline(benchmark::State& state) {
  const std::string& src = inline_json_of(state.range(0));
  for (auto _ : state) {
    auto j = nlohmann::json::parse(src);
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["bytes"] = static_cast<double>(src.size());
}

void BM_PrintText(benchmark::State& state) {
  const GraphDoc doc = generate(static_cast<size_t>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    auto text = print_webnn_text(doc);
    bytes = text->size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

BENCHMARK(BM_ParseText)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseGraphJson)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NlohmannJson)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
// Inline data: 0 = 16 MiB bytes (compact), 1 = 4 MiB bytes (pretty), 2 = 1M floats (compact).
BENCHMARK(BM_ParseGraphJsonInline)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NlohmannJsonInline)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrintText)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
